"""CLI checks for eviction policies and KV memory: `list-models`, `profile --kvcache-sim`,
`--kv-bytes-per-token`, `--model-config`, `--policies` without a model, and argument errors.
Uses a small trace written here; the public-trace figures are checked when ../shared/data exists."""
import json
import os
import subprocess
import sys
import ltl_test_env as env

BIN = os.environ["LTL_BINARY"]
SHARED = os.environ.get("LTL_SHARED_DATA", "")


def run(*args, expect=0):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"{args}: exit {p.returncode}, expected {expect}\n{p.stdout}\n{p.stderr}")
    return p


def main():
    tmp = env.tempdir()
    # list-models: the catalog figures the reference simulator publishes.
    models = {m["id"]: m for m in json.loads(run("list-models", "--json").stdout)}
    for mid, want in {"llama-3.1-8b": 131072, "qwen3-32b": 262144, "deepseek-v3": 70272,
                      "glm-5.2": 95232}.items():
        assert models[mid]["bytes_per_token"] == want, (mid, models[mid])
    assert json.loads(run("list-models", "--json", "--kv-precision", "fp8").stdout)[0][
        "bytes_per_token"] == 65536
    assert "glm-5.2" in run("list-models").stdout

    # A tiny mooncake trace, 4 blocks of 512 tokens per request at most.
    trace = os.path.join(tmp, "t.jsonl")
    rows = [[1, 2], [3], [1, 2], [3], [1, 2, 4], [3], [1, 2], [3]]
    with open(trace, "w") as f:
        for i, ids in enumerate(rows):
            f.write(json.dumps({"timestamp": i * 1000, "input_length": 512 * len(ids),
                                "output_length": 1, "hash_ids": ids}) + "\n")
    # 2 blocks of 512 tokens at 1 KiB/token = 1 MiB: 1/1024 GiB.
    out = os.path.join(tmp, "r")
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--kv-bytes-per-token", "1024",
            "--cache-gib", "0.0009765625,1", "--policies", "optimal,lru", "--warmup", "0")
    kv = json.load(open(out + ".json"))["kv_cache"]
    assert kv["bytes_per_token"] == 1024 and kv["model"] == "custom", kv
    assert kv["policies"] == ["optimal", "lru"]
    entries = {(e["policy"], e["capacity_blocks"]): e for e in kv["entries"]}
    # Capacity 2, cold start. Optimal keeps {1,2}: 3 is always needed later than 2 (bypassed) and
    # 4 finds only protected blocks; requests 2, 4, 6 hit 2 blocks each, of 13 measured blocks.
    opt = entries[("optimal", 2)]
    assert opt["hit_tokens"] == 6 * 512, opt
    assert opt["measured_tokens"] == 13 * 512
    assert abs(opt["speedup"] - 1 / (1 - 6 / 13)) < 1e-12
    assert opt["underfilled"] is False
    big = entries[("optimal", 2048)]
    assert big["underfilled"] is True  # 4 distinct blocks never fill 2,048
    assert "kv cache · custom · 1 KiB/token" in p.stdout, p.stdout
    assert "not under memory pressure" in p.stdout and "1 GiB" in p.stdout.split("memory pressure")[1]

    # --policies without a model: rows at the token capacities, labelled in tokens.
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--policies", "fifo,lru,optimal",
            "--capacity-blocks", "1,2")
    kv = json.load(open(out + ".json"))["kv_cache"]
    assert kv["model"] is None and len(kv["entries"]) == 6
    assert "eviction policies" in p.stdout

    # --model-config.
    cfg = os.path.join(tmp, "config.json")
    json.dump({"num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1,
               "head_dim": 64}, open(cfg, "w"))
    run("profile", trace, "--format", "mooncake", "-o", out, "--model-config", cfg,
        "--cache-gib", "1")
    kv = json.load(open(out + ".json"))["kv_cache"]
    assert kv["bytes_per_token"] == 2 * 2 * 1 * 64 * 2, kv

    # Argument errors exit 2 with one line.
    for bad in (["--model", "nope"], ["--cache-gib", "1"], ["--policies", "arc"],
                ["--model", "glm-5.2", "--kv-bytes-per-token", "10"],
                ["--model", "glm-5.2", "--kv-precision", "int2"],
                ["--kv-bytes-per-token", "10", "--kv-precision", "fp8"],
                ["--model-config", os.path.join(tmp, "missing.json")]):
        p = run("profile", trace, "--format", "mooncake", "-o", out, *bad, expect=2)
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("llmtrafficlens: "), p.stderr

    # The public trace: 1 GiB of GLM-5.2 is 22 blocks, LRU 4.5%, ceiling 39.8%.
    conv = os.path.join(SHARED, "conversation_trace.jsonl") if SHARED else ""
    if not conv or not os.path.exists(conv):
        print("skipping the public-trace part: ../shared/data/conversation_trace.jsonl is absent")
        return 0
    p = run("profile", conv, "--format", "mooncake", "-o", out, "--kvcache-sim", "glm-5.2",
            "--cache-gib", "1,16")
    kv = json.load(open(out + ".json"))["kv_cache"]
    lru1 = [e for e in kv["entries"] if e["policy"] == "lru" and e["capacity_gib"] == 1][0]
    assert lru1["capacity_blocks"] == 22 and round(lru1["hit_rate"], 3) == 0.045, lru1
    assert round(kv["ceiling"]["hit_rate"], 3) == 0.398
    assert kv["policies"] == ["fifo", "lru", "optimal"]
    assert "kv cache · glm-5.2 · 93 KiB/token" in p.stdout and "ceiling 39.8%" in p.stdout
    assert "1 GiB  fifo  2.5% (1.0x) lru  4.5% (1.0x) optimal" in p.stdout, p.stdout
    return 0


if __name__ == "__main__":
    sys.exit(main())
