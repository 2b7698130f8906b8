#!/usr/bin/env bash
# Issue 34 item 1 (docs/PERFORMANCE.md, "Sampled curves"): peak RSS, wall time and the curve's error
# of `profile --sample-rate R` at R = 1, 0.1, 0.01 on one generated Mooncake trace of agentic
# conversations (bench/gen_mooncake_trace.py), all in one script run so the ratios are comparable.
# Per rate: peak RSS (/usr/bin/time %M), wall, kept distinct blocks, and the largest difference in
# points between the sampled and the exact (R = 1) curve over the listed capacities whose sampled
# cache holds >= 300 blocks, next to the largest error the report states there.
# Usage: bench/run-sampling-bench.sh BINARY [CONVERSATIONS (default 20000)] [TURNS (default 20)]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1
convs=${2:-20000}
turns=${3:-20}
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}/sampling
mkdir -p "$dir"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1-3 /proc/loadavg)"
trace=$dir/mc-c$convs-t$turns.jsonl
[[ -f $trace ]] || python3 bench/gen_mooncake_trace.py "$trace" --conversations "$convs" --turns "$turns"
caps=1K,4K,16K,64K,256K,1M
: > "$dir/rows.txt"
for r in 1 0.1 0.01; do
  /usr/bin/time -f "%M %e" -o "$dir/t.txt" "$bin" profile "$trace" -q -o "$dir/r$r" \
    --capacity-blocks "$caps" --sample-rate "$r" >/dev/null
  echo "$r $(cat "$dir/t.txt")" >> "$dir/rows.txt"
done
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
rows = [l.split() for l in open(f"{d}/rows.txt")]
exact = json.load(open(f"{d}/r1.json"))
ex = {c["capacity_blocks"]: c["hit_rate"] for c in exact["curve"]}
print(f"trace: {exact['counts']['requests']:,} requests, {exact['counts']['block_accesses']:,} "
      f"block accesses, {exact['counts']['distinct_blocks']:,} distinct blocks")
print(f"{'rate':>5} {'RSS MiB':>8} {'vs R=1':>7} {'wall s':>7} {'vs R=1':>7} {'kept blocks':>12} "
      f"{'max |diff| pts':>15} {'max stated pts':>15} {'ceiling diff':>13}")
rss0, wall0 = float(rows[0][1]), float(rows[0][2])
for r, rss, wall in rows:
    rep = json.load(open(f"{d}/r{r}.json"))
    s = rep.get("sampling", {})
    rate = float(r)
    diffs = [abs(c["hit_rate"] - ex[c["capacity_blocks"]]) * 100 for c in rep["curve"]
             if c["capacity_blocks"] * rate >= 300]
    stated = [c.get("error_points", 0) for c in rep["curve"] if c["capacity_blocks"] * rate >= 300]
    kept = s.get("kept_blocks", exact["counts"]["distinct_blocks"])
    ceil = abs(rep["ceiling"]["hit_rate"] - exact["ceiling"]["hit_rate"]) * 100
    print(f"{r:>5} {float(rss) / 1024:>8.1f} {float(rss) / rss0:>7.2f} {float(wall):>7.2f} "
          f"{float(wall) / wall0:>7.2f} {kept:>12,} {max(diffs, default=0):>15.2f} "
          f"{max(stated, default=0):>15.2f} {ceil:>13.2f}")
PY
