#!/usr/bin/env bash
# Issue 34 item 5 (docs/SCALE.md "Measured error"): the error of sampled curves against the exact
# curve on three traces, at R = 0.1 and 0.01, in one script run:
#   mooncake  ../shared/data/conversation_trace.jsonl (real chat traffic, 512-token blocks; skipped
#             when absent);
#   agentic   a generated gateway log (bench/gen_agentic_log.py --mb 200, 16-token blocks), at
#             R = 0.01 with three salt files (the sample of a gateway log depends on the salt);
#   scale     the generated 12M-access hashed trace of tests/integration/test_sampling_scale.py,
#             seeds 1..8 (eight independent traces).
# Per run: kept blocks, the largest |sampled - exact| in points over the capacities whose sampled
# cache holds >= 300 blocks, how many of them lie inside their stated error, the largest stated error there, the ceiling's difference and stated
# error, peak RSS (/usr/bin/time %M) and its ratio to the exact run's.
# Usage: bench/run-sampling-error.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}/sampling-error
mkdir -p "$dir"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$bin" "$dir" <<'PY'
import json, math, os, subprocess, sys
sys.path.insert(0, "tests/integration")
import test_sampling_scale as scale
binary, d = sys.argv[1], sys.argv[2]

def run(name, trace, caps, rate, extra=()):
    out = f"{d}/{name}"
    p = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "profile", trace, "-q", "-o", out,
                        "--capacity-blocks", ",".join(map(str, caps)), "--sample-rate", str(rate),
                        *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       check=True)
    return json.load(open(out + ".json")), int(p.stderr.split()[-1])

def compare(label, exact, sampled, rate):
    (e, erss), (s, srss) = exact, sampled
    ex = {r["capacity_blocks"]: r["hit_rate"] for r in e["curve"]}
    rows = [(abs(r["hit_rate"] - ex[r["capacity_blocks"]]) * 100, r["error_points"])
            for r in s["curve"] if math.ceil(r["capacity_blocks"] * rate) >= 300]
    diff = max((x for x, _ in rows), default=float("nan"))
    stated = max((y for _, y in rows), default=float("nan"))
    cdiff = (s["ceiling"]["hit_rate"] - e["ceiling"]["hit_rate"]) * 100
    inside = sum(1 for x, y in rows if x <= y)
    sm = s["sampling"]
    print(f"| {label} | {rate} | {sm['kept_blocks']:,} | {len(rows)} | {inside} | {diff:.2f} | {stated:.2f} "
          f"| {cdiff:+.2f} | {s['ceiling'].get('error_points', float('nan')):.2f} "
          f"| {srss / 1024:.0f} MiB | {srss / erss:.2f} |", flush=True)

print("| trace | rate | kept blocks | capacities checked | inside stated | max \\|diff\\| (points) | max stated "
      "| ceiling diff | ceiling stated | peak RSS | vs exact |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
mc = "../shared/data/conversation_trace.jsonl"
if os.path.exists(mc):
    caps = [4096 * 2**k for k in range(8)]
    ex = run("mc-1", mc, caps, 1)
    for r in (0.1, 0.01):
        compare("Mooncake conversation_trace (12,031 req)", ex, run(f"mc-{r}", mc, caps, r), r)
else:
    print("(Mooncake conversation trace absent: ../shared/data not here)")
log = f"{d}/agentic.jsonl"
if not os.path.exists(log):
    subprocess.run(["python3", "bench/gen_agentic_log.py", log, "--mb", "200"], check=True,
                   stdout=subprocess.DEVNULL)
caps = [4096 * 2**k for k in range(9)]
for salt in (1, 2, 3):
    sf = f"{d}/salt{salt}"  # created by the first run that names it (a new random key, 0600)
    ex = run(f"ag-1-{salt}", log, caps, 1, ("--salt-file", sf))
    rates = (0.1, 0.01) if salt == 1 else (0.01,)
    for r in rates:
        compare(f"generated agentic log, salt {salt}", ex,
                run(f"ag-{r}-{salt}", log, caps, r, ("--salt-file", sf)), r)
for seed in range(1, 9):
    trace = f"{d}/scale.jsonl"
    scale.generate(trace, seed=seed)
    caps, extra = scale.CAPACITIES, ("--block-size", "16")
    ex = run("sc-1", trace, caps, 1, extra)
    compare(f"12M-access generated, seed {seed}", ex, run("sc-0.01", trace, caps, 0.01, extra), 0.01)
os.remove(f"{d}/scale.jsonl")
PY
