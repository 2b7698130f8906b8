#!/usr/bin/env python3
"""Writes the committed files of the bad-input corpus (tests/data/bad/). Run it from anywhere to
regenerate them; expected.json pins what llmtrafficlens must do with each. The 200 MB cases are not
committed: tests/integration/test_bad_inputs.py generates them in a temporary directory."""
import gzip
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def w(name, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def mooncake(ts, n_in, ids, out=10):
    return json.dumps({"timestamp": ts, "input_length": n_in, "output_length": out, "hash_ids": ids})


def body(text, model="gpt-4o"):
    return {"model": model, "messages": [{"role": "user", "content": text}]}


def csvq(s):
    return '"' + s.replace('"', '""') + '"'


GOOD = [mooncake(0, 1024, [1, 2]), mooncake(1000, 1500, [1, 2, 3]), mooncake(2000, 10, [7])]

# --- files and headers
w("empty.csv", b"")
w("empty.jsonl", b"")
w("whitespace_only.jsonl", "\n   \n\t\n")
w("header_only.csv", "request_json,model_name,status_code\r\n")
w("no_request_json.csv", "id,model,prompt\n1,gpt-4o,hello\n")
# A CSV without a header: the first row is data (a prompt); it must not be echoed in the error.
w("headerless.csv", csvq(json.dumps(body("SECRET PROMPT TEXT"))) + ",gpt-4o\n")
w("not_a_format.txt", "just some words\nand more words\n")
w("duplicate_columns.csv",
  "request_json,model_name,request_json\n" + csvq(json.dumps(body("a"))) + ",gpt-4o," +
  csvq(json.dumps(body("b"))) + "\n")
w("duplicate_unused_columns.csv",
  "id,request_json,id\n1," + csvq(json.dumps(body("a"))) + ",2\n3," + csvq(json.dumps(body("b"))) +
  ",4\n")
w("bad_header.csv", '"request_json\n')

# --- CSV records
rows = ["request_json,model_name"] + [csvq(json.dumps(body(f"question {i}"))) + ",gpt-4o"
                                      for i in range(3)]
w("unbalanced_quote.csv", "\n".join(rows) + '\n"{""messages"": [}, unterminated\n')
w("invalid_utf8.csv", ("\n".join(rows) + "\n").encode() +
  b'"{""model"": ""gpt-4o"", ""messages"": [{""role"": ""user"", ""content"": ""caf\xe9""}]}",gpt-4o\n')
w("nul_bytes.csv", ("\n".join(rows) + "\n").encode() +
  b'"{""messages"": [{""role"": ""user"", ""content"": ""a\x00b""}]}",gpt-4o\n'
  b'"{""messages"": [{""role"": ""user"", ""content"": ""fine""}]}",gpt\x00-4o\n')
w("timestamps_unparseable.csv",
  "request_json,timestamp\n" + csvq(json.dumps(body("a"))) + ",2025-01-02T03:04:05Z\n" +
  csvq(json.dumps(body("b"))) + ",yesterday at noon\n" + csvq(json.dumps(body("c"))) +
  ",2025-13-45 99:99\n" + csvq(json.dumps(body("d"))) + ",1735787045\n" +
  csvq(json.dumps(body("e"))) + ",1735787046\n")
w("field_count_mismatch.csv",
  "request_json,model_name\n" + csvq(json.dumps(body("a"))) + ",gpt-4o,extra\n" +
  csvq(json.dumps(body("b"))) + ",gpt-4o\n" + csvq(json.dumps(body("c"))) + ",gpt-4o\n")

# --- gateway JSONL
lines = [json.dumps(body(f"question {i}")) for i in range(3)]
w("invalid_utf8.jsonl", ("\n".join(lines) + "\n").encode() +
  b'{"model": "gpt-4o", "messages": [{"role": "user", "content": "caf\xe9 \xff\xfe"}]}\n')
w("deep_nesting.jsonl", "\n".join(lines) + "\n" + '{"messages": [{"role": "user", "content": ' +
  "[" * 10000 + "]" * 10000 + "}]}\n")
w("messages_not_array.jsonl", "\n".join(lines) + "\n" +
  json.dumps({"model": "gpt-4o", "messages": "hello"}) + "\n" +
  json.dumps({"model": "gpt-4o", "messages": {"role": "user"}}) + "\n")
w("not_objects.jsonl", "\n".join(lines) + "\n[1, 2, 3]\n\"a string\"\nnull\n{\"truncated\": \n")
# The same instants in seconds, milliseconds, microseconds, nanoseconds and ISO-8601, out of order.
ts = [1735787045, 1735787046123, 1735787047000000, 1735787048000000000, "2025-01-02T03:04:09Z",
      "2025-01-02 03:04:04.5+00:00"]
w("timestamps_mixed_units.jsonl", "\n".join(
    json.dumps({"timestamp": t, "request_json": body(f"q{i}")}) for i, t in enumerate(ts)) + "\n")

# --- hashed traces
w("timestamps_backwards.jsonl", "\n".join([GOOD[2], GOOD[1], GOOD[0]]) + "\n")
w("nul_bytes.jsonl", "\n".join(GOOD).encode() + b"\n" +
  b'{"timestamp": 5, "input_length": 10,\x00 "hash_ids": [1]}\n')
w("numbers_as_strings.jsonl", "\n".join(GOOD * 2) + "\n" + "\n".join([
    '{"timestamp": "3000", "input_length": 10, "output_length": 1, "hash_ids": [1]}',
    '{"timestamp": 3000, "input_length": "10", "output_length": 1, "hash_ids": [1]}',
    '{"timestamp": 3000, "input_length": 10, "output_length": "1", "hash_ids": [1]}',
    '{"timestamp": 3000, "input_length": 10, "output_length": 1, "hash_ids": ["1"]}',
]) + "\n")
w("hash_ids_bad.jsonl", "\n".join(GOOD * 2) + "\n" + "\n".join([
    '{"timestamp": 3000, "input_length": 600, "hash_ids": [1, -2]}',
    '{"timestamp": 3000, "input_length": 600, "hash_ids": [1, 2.5]}',
    '{"timestamp": 3000, "input_length": 600, "hash_ids": [1, 36893488147419103232]}',
    '{"timestamp": 3000, "input_length": 600, "hash_ids": [1, "2"]}',
    '{"timestamp": 3000, "input_length": 600, "hash_ids": 12}',
    '{"timestamp": 3000, "input_length": 600, "hash_ids": [1, 18446744073709551615]}',
]) + "\n")
w("hash_ids_length_mismatch.jsonl", "\n".join(GOOD) + "\n" + mooncake(3000, 2000, [1]) + "\n")
w("mostly_bad.jsonl", GOOD[0] + "\n" + "not json\n" * 3)
w("block_size_huge.jsonl", "\n".join(GOOD) + "\n" + "\n".join([
    '{"timestamp": 3000, "input_length": 10, "hash_ids": [1], "block_size": 2147483648}',
    '{"timestamp": 3000, "input_length": 10, "hash_ids": [1], "block_size": 0}',
]) + "\n")

# --- compressed
big = ("\n".join(mooncake(i * 100, 1024, [i % 50, i]) for i in range(4000)) + "\n").encode()
small = ("\n".join(GOOD) + "\n").encode()
gz_big, gz_small = gzip.compress(big, mtime=0), gzip.compress(small, mtime=0)
w("truncated_early.jsonl.gz", gz_small[: len(gz_small) // 2])
w("truncated_late.jsonl.gz", gz_big[: len(gz_big) * 3 // 4])
corrupt = bytearray(gz_small)
corrupt[len(corrupt) // 2] ^= 0xFF
corrupt[len(corrupt) // 2 + 1] ^= 0xFF
w("corrupt.jsonl.gz", bytes(corrupt))


def zstd(data):
    return subprocess.run(["zstd", "-q", "-c", "-19"], input=data, capture_output=True,
                          check=True).stdout


zs_big, zs_small = zstd(big), zstd(small)
w("truncated_early.jsonl.zst", zs_small[: len(zs_small) // 2])
w("truncated_late.jsonl.zst", zs_big[: len(zs_big) * 3 // 4])

# --- a runaway quoted field (issue 17 item 3): one doubled quote in row 5 of 20 left single, so
# the field's quote closes early and the rest of the line holds an odd number of quotes. Without
# recovery the quote state stays flipped to the end of the file (every later row lost); with it,
# only row 5 is lost.
rows = ["request_json,model_name"] + [csvq(json.dumps(body(f"question {i}"))) + ",gpt-4o"
                                      for i in range(20)]
rows[5] = rows[5].replace('""content""', '"content""', 1)
w("runaway_quote.csv", "\n".join(rows) + "\n")
# A stray quote opening an unquoted field: the field runs across the next lines.
rows = ["request_json,model_name"] + [csvq(json.dumps(body(f"question {i}"))) + ",gpt-4o"
                                      for i in range(20)]
rows[5] = rows[5].replace(",gpt-4o", ',"gpt-4o', 1)
w("runaway_open_quote.csv", "\n".join(rows) + "\n")

# --- compression as real tools leave it (issue 17 item 9)
good = ("\n".join(GOOD) + "\n").encode()
w("gzip_zero_padded.jsonl.gz", gzip.compress(good, mtime=0) + b"\0" * 4096)
w("gzip_garbage_after_padding.jsonl.gz", gzip.compress(good, mtime=0) + b"\0" * 64 + b"junk")
w("pzstd_skippable.jsonl.zst",
  subprocess.run(["pzstd", "-q", "-c"], input=good, capture_output=True, check=True).stdout)
