"""report.json validates against docs/report.schema.json for every kind of report: the example
gateway log (gateway findings, a fleet, eviction policies in GiB, prefix text), a generated
Mooncake trace with a fleet that includes unbounded workers and KV bytes given directly, the public
Mooncake conversation trace (when ../shared/data has it), a generated bailian trace (conversations,
a skipped line) and a directory of cache traces (cctrace, sub-agents, warm prefix, an ignored file).

The schema is strict: every object it describes is closed (additionalProperties false) except the
maps keyed by input values (model names, session fields, skip reasons, ...). The test proves it by
renaming, one at a time, every key of every distinct object path in those reports: each rename
must fail validation, unless the path is one of the listed maps.

The same reports are cross-checked with Ajv, a complete JSON Schema 2020-12 validator installed from
npm by scripts/install-test-oracles.sh (scripts/test.sh runs it); without node or Ajv that check is
skipped with a note."""
import copy
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import json_schema_subset  # noqa: E402
import test_cctrace_read  # noqa: E402
import trace_gen  # noqa: E402
import ltl_test_env as env  # noqa: E402

BIN = os.environ["LTL_BINARY"]
SRC = os.environ["LTL_SOURCE_DIR"]
SHARED = os.environ.get("LTL_SHARED_DATA", os.path.join(SRC, "..", "shared", "data"))

# Objects whose keys come from the input or the run (free keys); renaming one of their keys is
# legitimate. Paths use [] for any list index.
FREE_KEY_MAPS = {
    "counts.skipped_by_reason",
    "input.files[].skipped_by_reason",
    "distributions.models",
    "distributions.status_codes",
    "session_ids.fields",
    "prefixes.by_count[].models",
    "prefixes.by_volume[].models",
    "gateway.session_identifiers.fields",
    "gateway.templates",
}


def profile(args, out_prefix):
    res = subprocess.run([BIN, "profile", *args, "-o", out_prefix, "--quiet"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "wrote %s.json, %s.html" % (out_prefix, out_prefix) in res.stdout, res.stdout
    with open(out_prefix + ".json", encoding="utf-8") as f:
        return json.load(f)


def object_paths(value, path=""):
    """Yields (normalized path, the object) for the first object seen at each distinct path."""
    seen = set()

    def walk(v, p):
        if isinstance(v, dict):
            if p not in seen:
                seen.add(p)
                yield p, v
            for k, x in v.items():
                yield from walk(x, "%s.%s" % (p, k) if p else k)
        elif isinstance(v, list):
            for x in v:
                yield from walk(x, p + "[]")

    yield from walk(value, path)


def renamed_field_results(report, schema):
    """For every distinct object path and each of its keys: (path, whether the report with that one
    key renamed still validates). Renames in place and restores."""
    for path, obj in list(object_paths(report)):
        for key in list(obj):
            items = list(obj.items())
            obj[key + "_renamed"] = obj.pop(key)
            still_valid = not json_schema_subset.validate(report, schema)
            obj.clear()
            obj.update(items)
            yield path, still_valid


def make_inputs(tmp):
    bailian = os.path.join(tmp, "bailian.jsonl")
    trace_gen.write_jsonl(bailian, trace_gen.bailian_trace(), ["{not json"])
    mooncake = os.path.join(tmp, "mooncake.jsonl")
    with open(mooncake, "w") as f:
        for i in range(50):
            f.write(json.dumps({"timestamp": i * 100, "input_length": 1000 + i,
                                "output_length": 10, "hash_ids": [0, 1, 100 + i]}) + "\n")
    cct = os.path.join(tmp, "cctrace")
    os.makedirs(cct)
    for name, tr in test_cctrace_read.hand_built().items():
        with open(os.path.join(cct, name), "w") as f:
            json.dump(tr, f)
    with open(os.path.join(cct, "notes.txt"), "w") as f:
        f.write("not a trace\n")
    return bailian, mooncake, cct


def cross_check_with_ajv(schema, reports, tmp):
    """Validates the same reports with Ajv (a complete JSON Schema 2020-12 implementation, installed
    by scripts/install-test-oracles.sh) and checks it too rejects a renamed field and a bad value,
    so the schema means what the small validator takes it to mean."""
    npm = os.path.join(os.environ.get("LTL_DATA_DIR", os.path.join(SRC, "build", "data")), "npm")
    node = shutil.which("node")
    if not node or not os.path.exists(os.path.join(npm, "node_modules", "ajv")):
        print("note: node or ajv absent (scripts/install-test-oracles.sh installs ajv); "
              "Ajv cross-check skipped")
        return ""
    files = []
    for i, rep in enumerate(reports.values()):
        files.append(os.path.join(tmp, "ajv-valid-%d.json" % i))
        with open(files[-1], "w", encoding="utf-8") as f:
            json.dump(rep, f)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ajv_validate.js")
    schema_path = os.path.join(SRC, "docs", "report.schema.json")
    res = subprocess.run([node, script, npm, schema_path, *files], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    rep = next(iter(reports.values()))
    bad = []
    b = copy.deepcopy(rep); b["fleet"]["policies"][0]["points"][0]["hit_rat"] = \
        b["fleet"]["policies"][0]["points"][0].pop("hit_rate"); bad.append(b)
    b = copy.deepcopy(rep); b["gateway"]["tool_changes"]["share"] = 2; bad.append(b)
    for i, b in enumerate(bad):
        path = os.path.join(tmp, "ajv-invalid-%d.json" % i)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(b, f)
        res = subprocess.run([node, script, npm, schema_path, path], capture_output=True, text=True)
        assert res.returncode == 1, "Ajv accepted broken report %d: %s" % (i, res.stdout)
    return " (also by Ajv, which rejects %d broken ones)" % len(bad)


def main():
    with open(os.path.join(SRC, "docs", "report.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    tmp = env.tempdir(prefix="ltl-schema-")
    bailian, mooncake, cct = make_inputs(tmp)
    example = os.path.join(SRC, "examples", "gateway.csv")
    runs = {
        "gateway example, fleet, policies in GiB, prefix text": [
            example, "--salt-file", os.path.join(tmp, "salt"), "--workers", "3", "--routing",
            "all", "--kvcache-sim", "llama-3.1-8b", "--cache-gib", "1,4", "--show-prefix-text",
            "12"],
        "generated mooncake, fleet with unbounded workers, KV bytes given": [
            mooncake, "--format", "mooncake", "--workers", "4", "--per-worker-capacity",
            "1K,unbounded", "--kv-bytes-per-token", "65536", "--policies", "lru,fifo",
            "--tiers", "hbm=64MiB,dram=1GiB,ssd=4K", "--compute-model", "llama-3.1-8b",
            "--gpu-hour-price", "2"],
        "generated bailian": [bailian, "--capacity", "256,1K,4K"],
        "cctrace directory": [cct, "--warm-prefix"],
    }
    public = os.path.join(SHARED, "conversation_trace.jsonl")
    if os.path.exists(public):
        runs["public mooncake conversation trace"] = [public, "--format", "mooncake"]
    else:
        print("note: %s is absent; the public trace is not validated" % public)
    reports = {}
    for i, (name, args) in enumerate(runs.items()):
        rep = profile(args, os.path.join(tmp, "r%d" % i))
        errors = json_schema_subset.validate(rep, schema)
        assert not errors, "%s:\n%s" % (name, "\n".join(errors[:20]))
        reports[name] = rep

    # Each run produced the objects it is here for.
    gw = reports["gateway example, fleet, policies in GiB, prefix text"]
    for key in ("gateway", "fleet", "kv_cache"):
        assert key in gw, key
    assert gw["kv_cache"]["entries"][0]["capacity_gib"] == 1
    assert gw["fleet"]["capacities"][0]["per_worker_capacity_gib"] > 0
    assert "text" in gw["prefixes"]["by_count"][0]
    mc = reports["generated mooncake, fleet with unbounded workers, KV bytes given"]
    assert mc["fleet"]["capacities"][-1]["unbounded"] is True
    assert mc["fleet"]["capacities"][-1]["per_worker_capacity_blocks"] is None
    assert mc["kv_cache"]["precision"] is None and mc["kv_cache"]["bytes_per_token"] == 65536
    assert [t["capacity_blocks"] for t in mc["tiers"]["tiers"]] == [2, 32, 8], mc["tiers"]
    assert mc["tiers"]["time_model"]["estimate"] is True, mc["tiers"]
    assert mc["tiers"]["rows"][0]["cost_saved_per_month"] is not None, mc["tiers"]["rows"][0]
    bl = reports["generated bailian"]
    assert bl["replay"]["conversations_known"] is True
    assert "across" in bl["curve"][0]
    assert bl["counts"]["skipped_by_reason"]["invalid JSON"]["count"] == 1
    cc = reports["cctrace directory"]
    assert cc["cctrace"]["files"] == 4 and cc["cctrace"]["ignored_files"] == 1
    assert cc["cctrace"]["warm_prefix"] is True and cc["cctrace"]["subagents"] == 3
    # report.html states the format's reference replay, computed here from the specification.
    parent, sub = [0, 0], [0, 0]
    for tr in test_cctrace_read.hand_built().values():
        p_acc, s_acc = test_cctrace_read.reference(tr, warm_prefix=True)
        parent = [parent[0] + p_acc[0], parent[1] + p_acc[1]]
        sub = [sub[0] + s_acc[0], sub[1] + s_acc[1]]
    with open(os.path.join(tmp, "r%d.html" % list(runs).index("cctrace directory")),
              encoding="utf-8") as f:
        page = f.read()
    assert "parent %.1f%%, sub-agents %.1f%%" % (100 * parent[0] / parent[1],
                                                 100 * sub[0] / sub[1]) in page, (parent, sub)

    # Strictness: a renamed field is caught everywhere but in the free-key maps.
    checked = 0
    passed = set()
    all_paths = set()
    for rep in reports.values():
        for path, still_valid in renamed_field_results(rep, schema):
            all_paths.add(path)
            checked += 1
            if still_valid:
                passed.add(path)
    assert passed == FREE_KEY_MAPS & all_paths, (
        "renaming a key went unnoticed at %s; expected only the free-key maps %s" %
        (sorted(passed - FREE_KEY_MAPS), sorted(FREE_KEY_MAPS)))
    for must in ("fleet", "fleet.policies[].points[]", "fleet.capacities[]", "kv_cache",
                 "kv_cache.entries[]", "tiers", "tiers.tiers[]", "tiers.rows[]",
                 "tiers.time_model", "tiers.time_model.no_cache", "cctrace", "cctrace.conversations[].parent", "gateway",
                 "gateway.provider_cache", "prefixes.by_volume[]", "distributions"):
        assert must in all_paths, must

    # And the validator has teeth on values too.
    rep = bl
    broken = []
    b = copy.deepcopy(rep); del b["prefixes"]["by_volume"]; broken.append(b)
    b = copy.deepcopy(rep); b["ceiling"]["hit_rate"] = 1.5; broken.append(b)
    b = copy.deepcopy(rep); b["counts"]["requests"] = "many"; broken.append(b)
    b = copy.deepcopy(rep); b["undocumented_field"] = 1; broken.append(b)
    b = copy.deepcopy(rep); b["prefixes"]["by_count"][0]["tokens"] = -3; broken.append(b)
    b = copy.deepcopy(rep); b["replay"]["evict_order"] = "random"; broken.append(b)
    # Policy names are whatever the registries hold (plug-ins), but always a lower-case name.
    b = copy.deepcopy(gw); b["fleet"]["policies"][0]["policy"] = "Sticky <b>"; broken.append(b)
    b = copy.deepcopy(gw); b["gateway"]["provider_cache"]["observed_hit_rate"] = -0.1
    broken.append(b)
    b = copy.deepcopy(cc); b["cctrace"]["reference_replay"]["parent"]["hit_blocks"] = 2.5
    broken.append(b)
    for i, b in enumerate(broken):
        assert json_schema_subset.validate(b, schema), "broken report %d passed validation" % i
    ajv = cross_check_with_ajv(schema, reports, tmp)
    print("ok: %d reports valid%s; %d renamed fields over %d object paths all rejected outside %d "
          "free-key maps; %d broken values rejected" %
          (len(reports), ajv, checked, len(all_paths), len(passed), len(broken)))


if __name__ == "__main__":
    main()
