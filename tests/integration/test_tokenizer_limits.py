"""A tokenizer.json whose split pattern backtracks catastrophically (`(\\w+\\s?)+$`; 35.8 s on a
206-byte line before the PCRE2 limits, issue 17) ends `tokenize`, `profile` and `export` with exit 2
and one line naming the tokenizer file and the pattern, instead of hanging; profile and export
leave their previous outputs untouched. The same tokenizer with a linear pattern encodes fine."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ltl_test_env as env  # noqa: E402


def byte_level_tokenizer(pattern):
    """A minimal byte-level BPE tokenizer.json (256 byte tokens, no merges) splitting by pattern."""
    chars, n = {}, 256
    for b in range(256):
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or b >= 0xAE:
            chars[b] = chr(b)
        else:
            chars[b] = chr(n)
            n += 1
    return {"version": "1.0", "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated",
                 "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                 "use_regex": False}]},
            "model": {"type": "BPE", "vocab": {chars[b]: b for b in range(256)}, "merges": []}}


def main():
    tmp = env.tempdir()
    evil = os.path.join(tmp, "evil-tokenizer.json")
    fine = os.path.join(tmp, "fine-tokenizer.json")
    json.dump(byte_level_tokenizer("(\\w+\\s?)+$"), open(evil, "w"))
    json.dump(byte_level_tokenizer("\\w+\\s?"), open(fine, "w"))
    line = ("abcdef " * 30)[:205] + "!"
    assert len(line) == 206
    message = (f"llmtrafficlens: {evil}: split pattern 1 of 1 exceeded PCRE2's match limit on "
               r"1 piece\(s\) \(the longest \d+ bytes\): it backtracks catastrophically")

    def one_line(r, what):
        lines = r.stderr.splitlines()
        assert r.returncode == 2, f"{what}: exit {r.returncode}: {r.stderr}"
        assert len(lines) == 1 and __import__("re").match(message, lines[0]), (what, lines)

    # tokenize: the ids are printed (one byte per token here), then the error.
    r = subprocess.run([env.BINARY, "tokenize", "--tokenizer", evil], input=line + "\n",
                       capture_output=True, text=True, timeout=300)
    one_line(r, "tokenize")
    assert len(r.stdout.split()) == 206, r.stdout[:200]
    r = subprocess.run([env.BINARY, "tokenize", "--tokenizer", fine], input=line + "\n",
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and len(r.stdout.split()) == 206, r

    # profile and export on a gateway log whose prompt holds that line.
    log = os.path.join(tmp, "gateway.jsonl")
    with open(log, "w") as f:
        for i in range(3):
            body = {"model": "gpt-4o", "messages": [{"role": "user", "content": line}]}
            f.write(json.dumps({"request_id": str(i), "timestamp": 1700000000 + i,
                                "request_json": body}) + "\n")
    report = os.path.join(tmp, "report")
    with open(report + ".json", "w") as f:
        f.write('{"previous": true}')
    # One thread: the count is of pieces tokenized, and with two workers taking rows of one batch
    # both may tokenize the repeated line before either remembers it (2 pieces, by timing).
    r = env.run(["profile", log, "-o", report, "--tokenizer", evil, "--quiet", "--threads", "1",
                 "--salt-file", os.path.join(tmp, "salt")])
    one_line(r, "profile")
    assert open(report + ".json").read() == '{"previous": true}'
    assert not os.path.exists(report + ".html")
    r = env.run(["profile", log, "-o", report, "--tokenizer", fine, "--quiet", "--salt-file",
                 os.path.join(tmp, "salt")])
    assert r.returncode == 0, r.stderr
    trace = os.path.join(tmp, "trace.jsonl")
    with open(trace, "w") as f:
        f.write("previous\n")
    r = env.run(["export", log, "--to", "mooncake", "-o", trace, "--tokenizer", evil,
                 "--salt-file", os.path.join(tmp, "salt")])
    one_line(r, "export")
    assert open(trace).read() == "previous\n"
    print("ok")


if __name__ == "__main__":
    main()
