"""report.json validates against docs/report.schema.json, for a trace with conversations (bailian)
and one without (mooncake); and the validator rejects reports that break the schema."""
import copy
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import json_schema_subset  # noqa: E402
import trace_gen  # noqa: E402

BIN = os.environ["LTL_BINARY"]
SRC = os.environ["LTL_SOURCE_DIR"]


def profile(args, out_prefix):
    res = subprocess.run([BIN, "profile", *args, "-o", out_prefix, "--quiet"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "wrote %s.json, %s.html" % (out_prefix, out_prefix) in res.stdout, res.stdout
    with open(out_prefix + ".json", encoding="utf-8") as f:
        return json.load(f)


def main():
    with open(os.path.join(SRC, "docs", "report.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    tmp = tempfile.mkdtemp(prefix="ltl-schema-")
    bailian = os.path.join(tmp, "bailian.jsonl")
    trace_gen.write_jsonl(bailian, trace_gen.bailian_trace(), ["{not json"])
    mooncake = os.path.join(tmp, "mooncake.jsonl")
    with open(mooncake, "w") as f:
        for i in range(50):
            f.write(json.dumps({"timestamp": i * 100, "input_length": 1000 + i,
                                "output_length": 10, "hash_ids": [0, 1, 100 + i]}) + "\n")
    reports = [profile([bailian, "--capacity", "256,1K,4K"], os.path.join(tmp, "b")),
               profile([mooncake, "--format", "mooncake"], os.path.join(tmp, "m"))]
    for rep in reports:
        errors = json_schema_subset.validate(rep, schema)
        assert not errors, "\n".join(errors[:20])
    assert reports[0]["replay"]["conversations_known"] is True
    assert "across" in reports[0]["curve"][0]
    assert reports[0]["counts"]["skipped_by_reason"]["invalid JSON"]["count"] == 1

    # The validator has teeth: each of these breaks the schema.
    rep = reports[0]
    broken = []
    b = copy.deepcopy(rep); del b["prefixes"]["by_volume"]; broken.append(b)
    b = copy.deepcopy(rep); b["ceiling"]["hit_rate"] = 1.5; broken.append(b)
    b = copy.deepcopy(rep); b["counts"]["requests"] = "many"; broken.append(b)
    b = copy.deepcopy(rep); b["undocumented_field"] = 1; broken.append(b)
    b = copy.deepcopy(rep); b["prefixes"]["by_count"][0]["tokens"] = -3; broken.append(b)
    b = copy.deepcopy(rep); b["replay"]["evict_order"] = "random"; broken.append(b)
    for i, b in enumerate(broken):
        assert json_schema_subset.validate(b, schema), "broken report %d passed validation" % i
    print("ok: %d reports valid, %d broken ones rejected" % (len(reports), len(broken)))


if __name__ == "__main__":
    main()
