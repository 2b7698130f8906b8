"""Export to cache traces (`export LOG --to cctrace`): a hand-built Anthropic log (cctrace_log.py)
is exported and every field of every file is checked against values computed here. Block ids are
recomputed independently of the tool: the test serializes each body with Python's json.dumps (and
a hand-written serializer that must give the same bytes), tokenizes those bytes with OpenAI's
tiktoken (npm WASM build under node, installed by the test set-up), chains with hashlib under the
fixed --salt and numbers per file; the exported ids must match exactly. Since cl100k_base token ids
decode to exactly one byte string, equal ids mean the tool serialized the very same bytes as
Python. Profiling the exported directory must give the reference replay's parent (and sub-agent)
hit blocks per file. Skips when node/npm or the cl100k_base vocabulary is unavailable."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cctrace_log as log  # noqa: E402
import json_schema_subset  # noqa: E402
import cctrace_reference as ref  # noqa: E402
from ltl_test_env import BINARY, DATA_DIR, SOURCE_DIR, node_oracle_modules, run, skip, tempdir  # noqa: E402

SALT = "test-salt-0123456789abcdef"
BS = 64


NODE_PATH = None  # set in main(): the npm reference packages


def node_oracle():
    return node_oracle_modules()


def tokenize_all(texts):
    """cl100k_base token ids of each text from npm tiktoken (encode_ordinary), never the tool."""
    d = tempdir()
    path = os.path.join(d, "texts.bin")
    with open(path, "wb") as f:
        for t in texts:
            assert "\0" not in t
            f.write(t.encode() + b"\0")
    out = subprocess.run(["node", os.path.join(SOURCE_DIR, "tests/oracle/tiktoken_oracle.js"),
                          "cl100k_base", path], env=dict(os.environ, NODE_PATH=NODE_PATH),
                         capture_output=True, text=True, check=True).stdout
    rows = out.split("\n")[:len(texts)]
    assert len(rows) == len(texts)
    return [[int(x) for x in r.split()] for r in rows]


def csv_log(calls):
    """The same calls as a gateway CSV (request_json/response_json columns, ISO times)."""
    import csv
    import datetime
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["startTime", "request_json", "response_json", "status_code", "duration_ms",
                "ttft_ms"])
    for c in calls:
        t = datetime.datetime.fromtimestamp(c["t"], datetime.timezone.utc)
        w.writerow([t.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                    json.dumps(c["body"], ensure_ascii=False), json.dumps(c["response"]), "200",
                    c["duration_ms"], "" if c["ttft_ms"] is None else c["ttft_ms"]])
    return buf.getvalue()


def export(lines, *extra, csv_text=None):
    d = tempdir()
    src = os.path.join(d, "log.jsonl" if csv_text is None else "log.csv")
    with open(src, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n" if csv_text is None else csv_text)
    out = os.path.join(d, "traces")
    p = run(["export", src, "--to", "cctrace", "-o", out, "--salt", SALT,
             "--data-dir", DATA_DIR] + list(extra))
    assert p.returncode == 0, p.stderr
    files = {}
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), encoding="utf-8") as f:
            files[name] = json.load(f)
        check_weka_schema(files[name], name)
    return files, p, out


# AIPerf's weka_trace loader validates each file with its pydantic WekaTrace model (extra="forbid");
# the schema is transcribed from those models (file and commit in the schema's description).
WEKA_SCHEMA = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                          "aiperf_weka_trace.schema.json")))


def check_weka_schema(doc, name):
    errors = json_schema_subset.validate(doc, WEKA_SCHEMA)
    assert not errors, (name, errors[:5])
    # The schema would catch what AIPerf rejects: a key outside the model, a missing scope.
    bad = dict(doc, _analysis={})
    assert json_schema_subset.validate(bad, WEKA_SCHEMA), "schema must forbid extra keys"
    bad = {k: v for k, v in doc.items() if k != "hash_id_scope"}
    assert json_schema_subset.validate(bad, WEKA_SCHEMA), "schema must require hash_id_scope"


def expected_hashes(calls):
    whole = [ref.serialize(c["body"]) for c in calls]
    toks = tokenize_all([w for w, _, _ in whole] + [t for _, t, _ in whole] +
                        [s for _, _, s in whole])
    n = len(calls)
    for i, c in enumerate(calls):
        c["hashes"] = ref.chain(SALT, toks[i], BS)
        c["tool_tokens"] = len(toks[n + i])
        c["system_tokens"] = len(toks[2 * n + i])
        c["prompt_tokens"] = len(toks[i])


def usage_in(c):
    u = c["response"]["usage"]
    return u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]


def check_request(got, c, number, t, input_types, output_types, think_time=None):
    assert got["t"] == t, (got["t"], t)
    assert got["type"] == ("s" if c["body"]["stream"] else "n")
    assert got["model"] == c["body"]["model"]
    assert got["in"] == usage_in(c)
    assert got["out"] == c["response"]["usage"]["output_tokens"]
    assert got["hash_ids"] == number(c["hashes"]), "hash_ids differ from the independent chain"
    assert got["input_types"] == input_types, (got["input_types"], input_types)
    assert got["output_types"] == output_types, (got["output_types"], output_types)
    assert got["stop"] == c["response"]["stop_reason"]
    assert got["api_time"] == c["duration_ms"] / 1000
    if c["body"]["stream"]:
        assert got["ttft"] == c["ttft_ms"] / 1000
    else:
        assert "ttft" not in got
    if think_time is None:
        assert "think_time" not in got, got
    else:
        assert abs(got["think_time"] - think_time) < 1e-9, (got["think_time"], think_time)


def main():
    if not os.path.exists(os.path.join(DATA_DIR, "cl100k_base.tiktoken")):
        skip(f"cl100k_base vocabulary not installed: run scripts/fetch-vocab.sh {DATA_DIR}")
    global NODE_PATH
    NODE_PATH = node_oracle()
    # Pad the first user message so the first request's serialized prompt fills whole blocks: the
    # block holding the end of its messages is then full, and the cache_control check below is exact.
    lines, calls = log.build()
    pad = -len(tokenize_all([ref.serialize(calls[0]["body"])[0]])[0]) % BS
    lines, calls = log.build(pad)
    expected_hashes(calls)
    a1, a1n, s1, s2, a2, a2n, a3, a4, b1, b2 = calls

    files, p, out = export(lines, "--split-at-gap", "3600", "--include-subagents")
    assert sorted(files) == ["8712b46f-04e_s1.json", "8712b46f-04e_s2.json", "f99f3001-351.json"], files
    assert "invalid JSON" in p.stderr and "log.jsonl:4" in p.stderr, p.stderr
    assert "non-2xx" in p.stderr, p.stderr

    # Segment 1: the turn-1 pair, the Explore sub-agent, the turn-2 pair.
    f = files["8712b46f-04e_s1.json"]
    assert list(f) == ["id", "models", "block_size", "hash_id_scope", "tool_tokens",
                       "system_tokens", "requests", "totals"], list(f)
    assert f["hash_id_scope"] == "local"
    assert f["id"] == "8712b46f-04e_s1"
    assert f["models"] == ["claude-sonnet-4-20250514", "claude-haiku-4-5-20251001"]
    assert f["block_size"] == BS
    assert (f["tool_tokens"], f["system_tokens"]) == (a1["tool_tokens"], a1["system_tokens"])
    num = ref.Numbering()
    r = f["requests"]
    assert [x["type"] for x in r] == ["s", "n", "subagent", "s", "n"]
    check_request(r[0], a1, num, 0.0, ["text"], ["thinking", "text", "tool_use"])
    check_request(r[1], a1n, num, 0.5, [], ["thinking", "text", "tool_use"], think_time=0.0)
    assert r[0]["hash_ids"] == r[1]["hash_ids"], "the within-turn pair must share hash_ids"
    sa = r[2]
    assert sa["t"] == 5.0 and sa["subagent_type"] == "Explore" and sa["status"] == "completed"
    assert len(sa["agent_id"]) == 8 and int(sa["agent_id"], 16) >= 0
    assert sa["duration_ms"] == 4000  # first call at +5 s, last ends at +7 s + 2 s
    assert sa["total_tokens"] == usage_in(s1) + 30 + usage_in(s2) + 40
    assert sa["tool_use_count"] == 1
    assert sa["models"] == ["claude-haiku-4-5-20251001"]
    assert (sa["tool_tokens"], sa["system_tokens"]) == (s1["tool_tokens"], s1["system_tokens"])
    check_request(sa["requests"][0], s1, num, 0.0, ["text"], ["text", "tool_use"])
    check_request(sa["requests"][1], s2, num, 2.0, ["tool_result"], ["text"], think_time=0.5)
    check_request(r[3], a2, num, 12.0, ["tool_result"], ["text"], think_time=7.6)
    check_request(r[4], a2n, num, 12.4, [], ["text"], think_time=0.0)
    assert r[3]["hash_ids"] == r[4]["hash_ids"]
    analysis = f["totals"].pop("analysis")
    assert analysis == {"indexed": 6, "total": 6, "unique_blocks": len(num.ids)}
    par_in = sum(usage_in(c) for c in (a1, a1n, a2, a2n))
    par_out = sum(c["response"]["usage"]["output_tokens"] for c in (a1, a1n, a2, a2n))
    sub_in, sub_out = usage_in(s1) + usage_in(s2), 70
    assert f["totals"] == {"parent_tokens": {"input": par_in, "output": par_out},
                           "subagent_tokens": {"input": sub_in, "output": sub_out},
                           "combined_tokens": {"input": par_in + sub_in,
                                               "output": par_out + sub_out},
                           "subagent_count": 1}, f["totals"]

    # cache_control moved to the new last block. With the key removed, turn 1's serialization up to
    # its closing "]" is a prefix of turn 2's; without removing it, it is not (the key sat in the
    # middle of what turn 2 extends). Turn 1 fills whole blocks, so the only block that
    # changes is the boundary block holding the end of turn 1's messages.
    w1, w2 = ref.serialize(a1["body"])[0], ref.serialize(a2["body"])[0]
    assert a1["prompt_tokens"] % BS == 0, a1["prompt_tokens"]
    assert w1.endswith("]") and w2.startswith(w1[:-1])
    r1, r2 = [ref.dumps(c["body"]["tools"]) + ref.dumps(c["body"]["system"]) +
              ref.dumps(c["body"]["messages"]) for c in (a1, a2)]
    assert not r2.startswith(r1[:-1]) and "cache_control" in r1
    h1, h2 = a1["hashes"], a2["hashes"]
    common = next((i for i, (x, y) in enumerate(zip(h1, h2)) if x != y), min(len(h1), len(h2)))
    assert len(h1) - common == 1, (len(h1), common)
    got1 = files["8712b46f-04e_s1.json"]["requests"][0]
    got2 = files["8712b46f-04e_s1.json"]["requests"][3]
    assert got1["hash_ids"][:-1] == got2["hash_ids"][:len(h1) - 1]
    assert got1["hash_ids"][-1] not in got2["hash_ids"]

    # Segment 2 after the two-hour gap: t restarts, ids restart, the reset lists all types.
    f = files["8712b46f-04e_s2.json"]
    assert f["id"] == "8712b46f-04e_s2" and list(f["totals"]) == ["analysis"]
    num = ref.Numbering()
    check_request(f["requests"][0], a3, num, 0.0, ["text"], ["text"])
    check_request(f["requests"][1], a4, num, 60.0, ["text", "image"], ["text"], think_time=58.0)
    assert f["totals"]["analysis"] == {"indexed": 2, "total": 2, "unique_blocks": len(num.ids)}

    f = files["f99f3001-351.json"]
    num = ref.Numbering()
    check_request(f["requests"][0], b1, num, 0.0, ["text"], ["text"])
    check_request(f["requests"][1], b2, num, 30.0, ["text"], ["text"], think_time=25.0)
    assert list(f["totals"]) == ["analysis"]

    # Without --include-subagents and without splitting: one file per session, sub-agent left out.
    files2, p2, _ = export(lines)
    assert sorted(files2) == ["8712b46f-04e.json", "f99f3001-351.json"], files2
    f = files2["8712b46f-04e.json"]
    assert [x["type"] for x in f["requests"]] == ["s", "n", "s", "n", "s", "s"]
    assert f["totals"] == {"analysis": {"indexed": 6, "total": 8,
                                        "unique_blocks": f["totals"]["analysis"]["unique_blocks"]}}
    assert "sub-agent calls" in p2.stderr
    # The same salt gives the same files.
    files3, _, _ = export(lines)
    assert files3 == files2
    # The same log as CSV (ISO timestamps, timing columns) exports to the very same files.
    files5, p5, _ = export([], csv_text=csv_log(calls))
    assert files5 == files2, p5.stderr
    # Output is never mixed with an earlier run's.
    p3 = run(["export", os.path.join(os.path.dirname(out), "log.jsonl"), "--to", "cctrace", "-o",
              out, "--salt", SALT, "--data-dir", DATA_DIR])
    assert p3.returncode == 2 and "not empty" in p3.stderr, p3.stderr

    # Profiling the export reproduces the reference replay per file.
    rep_path = os.path.join(tempdir(), "r")
    pr = run(["profile", out, "--warmup", "0", "-o", rep_path])
    assert pr.returncode == 0, pr.stderr
    with open(rep_path + ".json") as fh:
        rep = json.load(fh)
    for conv, name in zip(rep["cctrace"]["conversations"], sorted(files)):
        (ph, pb), (sh, sb) = ref.simulate_cache(files[name])
        assert (conv["parent"]["hit_blocks"], conv["parent"]["blocks"]) == (ph, pb), (name, conv)
        assert (conv["subagent"]["hit_blocks"], conv["subagent"]["blocks"]) == (sh, sb)
        assert pb == 0 or abs(conv["parent"]["hit_rate"] - ph / pb) < 1e-12
    print("ok")


if __name__ == "__main__":
    main()
