"""`profile --tiers`: a hand-computed three-tier split through the command line, the argument
errors (a tier or time-model flag without --tiers is refused, not ignored), and on the public Mooncake conversation trace (when ../shared/data has it) GLM-5.2 with
HBM + DRAM + SSD: every row's tier-1+2+3 total equals the flat LRU curve at the summed capacity,
replayed by a second, tier-less run (`--capacity-blocks`)."""
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
    # Mooncake blocks of 512 tokens. Tail-first: after R0 = [1,2,3] and R1 = [4] the LRU stack is
    # 4,1,2,3, so R2 = [1,2,3] finds block 1 at distance 1, 2 at 2, 3 at 3. Tiers of 2, 1 and 1
    # blocks (1K, 512 and 512 tokens) serve one block each.
    trace = os.path.join(tmp, "t.jsonl")
    with open(trace, "w") as f:
        for i, ids in enumerate([[1, 2, 3], [4], [1, 2, 3]]):
            f.write(json.dumps({"timestamp": i * 1000, "input_length": 512 * len(ids),
                                "output_length": 1, "hash_ids": ids}) + "\n")
    out = os.path.join(tmp, "r")
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--warmup", "0",
            "--tiers", "hbm=1K,dram=512,ssd=512")
    t = json.load(open(out + ".json"))["tiers"]
    assert [x["name"] for x in t["tiers"]] == ["hbm", "dram", "ssd"], t
    assert [x["capacity_blocks"] for x in t["tiers"]] == [2, 1, 1], t
    asked = [r for r in t["rows"] if r["asked"]]
    assert len(asked) == 1 and asked[0]["hit_tokens"] == [512, 512, 512], asked
    assert asked[0]["total_hit_tokens"] == asked[0]["flat_lru_hit_tokens"] == 1536
    assert t["measured_tokens"] == 7 * 512, t
    lead = {r["tiers_used"]: r for r in t["rows"] if r["kind"] == "leading"}
    assert lead[1]["hit_tokens"] == [512, 0, 0] and lead[2]["hit_tokens"] == [512, 512, 0], lead
    assert "tiers · exclusive LRU hierarchy" in p.stdout and "hbm + dram + ssd" in p.stdout, p.stdout
    assert 'id="tiers-table"' in open(out + ".html").read()

    # Errors: bytes without a model, bad syntax, a repeated name.
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--tiers", "hbm=80GiB", expect=2)
    assert "--tiers: tier 'hbm' is sized in bytes" in p.stderr, p.stderr
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--tiers", "hbm:80GiB", expect=2)
    assert "expected NAME=SIZE" in p.stderr, p.stderr
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--tiers", "a=1K,A=2K", expect=2)
    assert "given twice" in p.stderr, p.stderr
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--kv-bytes-per-token", "1024",
            "--tiers", "hbm=1MiB,dram=0.5MiB,ssd=2K")
    t = json.load(open(out + ".json"))["tiers"]
    assert [x["capacity_blocks"] for x in t["tiers"]] == [2, 1, 4], t  # 1 MiB = 2 blocks of 512 KiB

    # Time model: the bundled catalog's Llama 3.1 8B FLOPs; a tier name --tiers lacks is an error.
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--kv-bytes-per-token", "1024",
            "--tiers", "hbm=1MiB,dram=2MiB", "--compute-model", "llama-3.1-8b",
            "--tier-bandwidth", "dram=nvme-gen4", "--gpu", "b200", "--gpu-hour-price", "3")
    tm = json.load(open(out + ".json"))["tiers"]["time_model"]
    assert tm["gpu"].startswith("NVIDIA B200") and tm["peak_flops"] == 2250e12, tm
    assert tm["tier_bandwidth"][1] == {"bytes_per_s": 7e9, "source": "nvme-gen4"}, tm
    assert tm["active_params"] == 6979321856, tm
    assert "TTFT p50" in p.stdout and "per month at 3" in p.stdout, p.stdout
    html = open(out + ".html").read()
    assert 'id="tiers-stack"' in html and 'id="tiers-ttft"' in html and "model estimate" in html
    p = run("profile", trace, "--format", "mooncake", "-o", out, "--kv-bytes-per-token", "1024",
            "--tiers", "hbm=1MiB,dram=2MiB", "--compute-model", "llama-3.1-8b",
            "--tier-bandwidth", "ssd=7GB/s", expect=2)
    assert "no tier named 'ssd'" in p.stderr, p.stderr
    # A time-model or tier flag without --tiers would be ignored: it is refused by name instead.
    for flag, value in [("--gpu", "h200"), ("--mfu", "0.5"), ("--tier-mode", "inclusive"),
                        ("--gpu-hour-price", "2.5"), ("--compute-model", "llama-3.1-8b")]:
        p = run("profile", trace, "--format", "mooncake", "-o", out, flag, value, expect=2)
        assert flag in p.stderr and "--tiers" in p.stderr, (flag, p.stderr)

    public = os.path.join(SHARED, "conversation_trace.jsonl") if SHARED else ""
    if not public or not os.path.exists(public):
        print("SKIP public-trace check: conversation_trace.jsonl is absent from ../shared/data")
        return
    run("profile", public, "--format", "mooncake", "-o", out, "--model", "glm-5.2", "--tiers",
        "hbm=80GiB,dram=1TiB,ssd=8TiB", "-q")
    t = json.load(open(out + ".json"))["tiers"]
    # GLM-5.2 bf16: 95,232 B/token x 512 = 48,758,784 B per block.
    assert [x["capacity_blocks"] for x in t["tiers"]] == [
        80 * 2**30 // 48758784, 2**40 // 48758784, 8 * 2**40 // 48758784], t
    run("profile", public, "--format", "mooncake", "-o", out + "-incl", "--model", "glm-5.2",
        "--tiers", "hbm=80GiB,dram=1TiB,ssd=8TiB", "--tier-mode", "inclusive", "-q")
    incl = json.load(open(out + "-incl.json"))["tiers"]
    assert incl["mode"] == "inclusive" and t["mode"] == "exclusive"
    for r in t["rows"]:
        assert r["effective_capacity_blocks"] == sum(r["capacity_blocks"]), r
    for r in incl["rows"]:
        assert r["effective_capacity_blocks"] == max(r["capacity_blocks"]), r
    totals = sorted({r["effective_capacity_blocks"] for r in t["rows"] + incl["rows"]})
    run("profile", public, "--format", "mooncake", "-o", out + "-flat", "-q", "--capacity-blocks",
        ",".join(str(b) for b in totals))
    flat = {c["capacity_blocks"]: c["hit_tokens"] for c in json.load(open(out + "-flat.json"))["curve"]}
    for r in t["rows"] + incl["rows"]:
        assert r["total_hit_tokens"] == flat[r["effective_capacity_blocks"]], (r, flat)
        assert r["flat_lru_hit_tokens"] == r["total_hit_tokens"], r
    asked = [r for r in t["rows"] if r["asked"]][0]
    nc = t["time_model"]["no_cache"]["ttft_s"]
    h = asked["total_hit_rate"]
    assert asked["ttft_s"]["p50"] < nc["p50"] and 1 < asked["e2e_speedup"] < 1 / (1 - h), asked
    print("public trace, GLM-5.2 on H100 bf16 MFU 0.4: TTFT p50 %.3f -> %.3f s, p95 %.3f -> %.3f s,"
          " end-to-end %.2fx, %.1f GPU-hours saved per day" % (
              nc["p50"], asked["ttft_s"]["p50"], nc["p95"], asked["ttft_s"]["p95"],
              asked["e2e_speedup"], asked["gpu_hours_saved_per_day"]))
    print("public trace, GLM-5.2 hbm 80GiB + dram 1TiB + ssd 8TiB: hit rate by tier",
          [round(x, 4) for x in asked["hit_rate"]], "total", round(asked["total_hit_rate"], 4))


if __name__ == "__main__":
    main()
