"""`profile --eviction vllm|sglang`: which LRU the headline figures follow. `sglang`'s curve rows
(and the KV-cache section's lru column, which becomes radix-lru) equal `--policies radix-lru`, whose
replay the radix-LRU reference test checks against a separately written tree; `vllm` (the default)
keeps the flat LRU's one-pass figures. On a generated trace always, and on both public traces at
GLM-5.2 budgets 1...4096 GiB when ../shared/data is present (with the issue's 106,496 vs 109,568
hit tokens at 22 blocks on the synthetic trace)."""
import json
import os
import random
import subprocess
import sys
import ltl_test_env as env

BIN = os.environ["LTL_BINARY"]
SHARED = os.environ.get("LTL_SHARED_DATA", "")
GLM52_BYTES_PER_TOKEN = 95232
BUDGETS = [2 ** k for k in range(13)]


def profile(trace, out, *extra):
    p = subprocess.run([BIN, "profile", trace, "--format", "mooncake", "-o", out, "-q", *extra],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.load(open(out + ".json"))


def generated_trace(path):
    rng = random.Random(7)
    prefixes = [[rng.randrange(1 << 30) for _ in range(rng.randint(1, 12))] for _ in range(8)]
    with open(path, "w") as f:
        for i in range(400):
            ids = list(rng.choice(prefixes)) + [rng.randrange(1 << 30) for _ in range(rng.randint(0, 6))]
            f.write(json.dumps({"timestamp": i * 10, "input_length": len(ids) * 512 - rng.randrange(300),
                                "output_length": 8, "hash_ids": ids}) + "\n")


def check(trace, tmp, blocks, gib=None):
    name = os.path.basename(trace)
    caps = ["--capacity-blocks", ",".join(str(b) for b in blocks)]
    kv = ["--model", "glm-5.2", "--cache-gib", ",".join(str(g) for g in gib)] if gib else []
    base = profile(trace, os.path.join(tmp, name + ".base"), *caps, *kv, "--policies", "lru,radix-lru")
    vllm = profile(trace, os.path.join(tmp, name + ".vllm"), *caps, *kv, "--eviction", "vllm")
    sgl = profile(trace, os.path.join(tmp, name + ".sglang"), *caps, *kv, "--eviction", "sglang")
    assert base["replay"]["eviction"] == "vllm" and vllm["replay"]["eviction"] == "vllm"
    assert sgl["replay"]["eviction"] == "sglang"
    if gib is None:
        # Without a model the KV section's capacities are the curve's: radix-lru rows per block count.
        radix = {e["capacity_blocks"]: e for e in base["kv_cache"]["entries"] if e["policy"] == "radix-lru"}
        flat = {e["capacity_blocks"]: e for e in base["kv_cache"]["entries"] if e["policy"] == "lru"}
        for row in sgl["curve"]:
            assert row["hit_tokens"] == radix[row["capacity_blocks"]]["hit_tokens"], (name, row)
        for row in vllm["curve"]:
            assert row["hit_tokens"] == flat[row["capacity_blocks"]]["hit_tokens"], (name, row)
    else:
        want = {e["capacity_gib"]: e for e in base["kv_cache"]["entries"] if e["policy"] == "radix-lru"}
        assert sgl["kv_cache"]["policies"] == ["radix-lru"], sgl["kv_cache"]["policies"]
        for e in sgl["kv_cache"]["entries"]:
            assert e["hit_tokens"] == want[e["capacity_gib"]]["hit_tokens"], (name, e)
        by_blocks = {e["capacity_blocks"]: e["hit_tokens"] for e in want.values()}
        for row in sgl["curve"]:
            assert row["hit_tokens"] == by_blocks[row["capacity_blocks"]], (name, row)
        flat = {e["capacity_blocks"]: e["hit_tokens"] for e in base["kv_cache"]["entries"] if e["policy"] == "lru"}
        for row in vllm["curve"]:
            assert row["hit_tokens"] == flat[row["capacity_blocks"]], (name, row)
        assert vllm["kv_cache"]["policies"] == ["lru"]
    # vllm is today's output: everything but the run settings is the same as without the flag.
    assert vllm["curve"] == base["curve"] and vllm["ceiling"] == base["ceiling"]
    # The sglang knee and ceiling are radix figures: the ceiling is the never-evicting replay, equal
    # to the flat ceiling for chained ids; the knee lies on the curve's grid.
    assert sgl["ceiling"]["hit_tokens"] == base["ceiling"]["hit_tokens"], (sgl["ceiling"], base["ceiling"])
    return base, vllm, sgl


def main():
    tmp = env.tempdir()
    gen = os.path.join(tmp, "generated.jsonl")
    generated_trace(gen)
    base, vllm, sgl = check(gen, tmp, [1, 2, 3, 5, 8, 13, 21, 34, 55, 89])
    differs = [r["capacity_blocks"] for r, s in zip(vllm["curve"], sgl["curve"]) if r["hit_tokens"] != s["hit_tokens"]]
    print("generated trace: capacities where the two LRUs differ:", differs)
    traces = [os.path.join(SHARED, n) for n in ("synthetic_trace.jsonl", "conversation_trace.jsonl")]
    if not SHARED or not all(os.path.exists(t) for t in traces):
        print("skipping the public traces: ../shared/data/{synthetic,conversation}_trace.jsonl are absent")
        return 0
    for trace in traces:
        blocks = [g * 2 ** 30 // (GLM52_BYTES_PER_TOKEN * 512) for g in BUDGETS]
        base, vllm, sgl = check(trace, tmp, blocks, BUDGETS)
        for r, s in zip(vllm["curve"], sgl["curve"]):
            print(f"{os.path.basename(trace)} {r['capacity_blocks']} blocks: vllm {r['hit_tokens']} "
                  f"sglang {s['hit_tokens']}")
        if trace.endswith("synthetic_trace.jsonl"):
            at22 = lambda j: next(r["hit_tokens"] for r in j["curve"] if r["capacity_blocks"] == 22)
            assert at22(sgl) == 106496 and at22(vllm) == 109568, (at22(sgl), at22(vllm))
    return 0


if __name__ == "__main__":
    sys.exit(main())
