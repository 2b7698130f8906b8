#!/usr/bin/env bash
# Throughput of two llmtrafficlens binaries on the same 1 GB gateway CSV (bench/gen_gateway_csv.py),
# runs interleaved (base, new, base, new, ...) so machine load hits both alike; prints each run's
# wall and CPU MB/s and the ratio of the medians (new / base). Used for the before/after figures
# of the ingest-stage change in docs/PERFORMANCE.md.
# Usage: bench/run-ingest-compare.sh BASE_BINARY NEW_BINARY [RUNS=3] [SIZE_MB=1024]
set -euo pipefail
base=$1 new=$2 runs=${3:-3} mb=${4:-1024}
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
mkdir -p "$dir"
file="$dir/gateway-${mb}m.csv"
[[ -f $file ]] || python3 "$(dirname "$0")/gen_gateway_csv.py" "$file" --mb "$mb"
bytes=$(stat -c %s "$file")
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1 /proc/loadavg)"
for i in $(seq "$runs"); do
  for which in base new; do
    bin=$base; [[ $which == new ]] && bin=$new
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" \
      "$bin" profile "$file" -o "$dir/cmp-$which" --salt-file "$dir/salt" -q >/dev/null
    read -r wall user sys rss < "$dir/time.txt"
    awk -v w="$which" -v b="$bytes" -v wall="$wall" -v cpu="$(echo "$user + $sys" | bc)" -v rss="$rss" \
      'BEGIN { printf "%-4s %8.1f MB/s wall %8.1f MB/s CPU  (%.1f s, %.1f s CPU, %d MiB)\n", w, b/1e6/wall, b/1e6/cpu, wall, cpu, rss/1024 }' \
      | tee -a "$dir/cmp.log"
  done
done
python3 - "$dir/cmp.log" "$runs" <<'PY'
import statistics, sys
lines = open(sys.argv[1]).read().split("\n")[-2 * int(sys.argv[2]) - 1:]
vals = {"base": [], "new": []}
for l in lines:
    p = l.split()
    if len(p) > 4 and p[0] in vals:
        vals[p[0]].append((float(p[1]), float(p[4])))
for k in (0, 1):
    b = statistics.median(v[k] for v in vals["base"])
    n = statistics.median(v[k] for v in vals["new"])
    print(f"median {'wall' if k == 0 else 'CPU '} MB/s: base {b:.1f}, new {n:.1f}, new/base {n / b:.3f}")
PY
python3 - "$dir/cmp-base.json" "$dir/cmp-new.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("requests", "distinct_blocks", "block_accesses"):
    assert a["counts"][k] == b["counts"][k], (k, a["counts"][k], b["counts"][k])
assert a["ceiling"] == b["ceiling"]
print(f"same result: {a['counts']['requests']:,} requests, ceiling {a['ceiling']['hit_rate']:.4f}")
PY
