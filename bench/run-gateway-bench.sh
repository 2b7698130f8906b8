#!/usr/bin/env bash
# Reproduces the gateway numbers in docs/PERFORMANCE.md: generates a gateway CSV of SIZE MB (default
# 1024) under /tmp (never in the repository), then in one script measures
#   1. the physical floor: cat FILE > /dev/null;
#   2. one thread, stage by stage (bench/gateway_rows_bench.cc): read, read+SipHash, read+rows;
#   3. `llmtrafficlens profile` end to end: wall and CPU MB/s, peak RSS, blocks.
# Usage: bench/run-gateway-bench.sh [SIZE_MB ...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
mkdir -p "$dir"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target llmtrafficlens gateway_rows_bench >/dev/null
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1 /proc/loadavg)"
for mb in "${@:-1024}"; do
  file="$dir/gateway-${mb}m.csv"
  [[ -f $file ]] || python3 bench/gen_gateway_csv.py "$file" --mb "$mb"
  bytes=$(stat -c %s "$file")
  echo "## $file: $((bytes / 1000000)) MB"
  s=$(date +%s.%N); cat "$file" > /dev/null; e=$(date +%s.%N)
  awk -v b="$bytes" -v s="$s" -v e="$e" 'BEGIN { printf "cat > /dev/null      %8.1f MB/s\n", b / 1e6 / (e - s) }'
  build/gateway_rows_bench "$file"
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" \
    build/llmtrafficlens profile "$file" -o "$dir/report" --salt-file "$dir/salt" -q >/dev/null
  read -r wall user sys rss < "$dir/time.txt"
  python3 - "$bytes" "$wall" "$user" "$sys" "$rss" "$dir/report.json" <<'PY'
import json, sys
b, wall, user, sys_, rss = int(sys.argv[1]), *map(float, sys.argv[2:6])
r = json.load(open(sys.argv[6]))
c = r["counts"]
print(f"profile end to end  {b / 1e6 / wall:8.1f} MB/s wall, {b / 1e6 / (user + sys_):8.1f} MB/s CPU "
      f"({wall:.1f} s wall, {user + sys_:.1f} s CPU), peak RSS {rss / 1024:.0f} MiB")
print(f"  {c['requests']:,} requests, {c['block_accesses']:,} block accesses, "
      f"{c['distinct_blocks']:,} distinct blocks; "
      f"{rss * 1024 / c['distinct_blocks']:.0f} B per distinct block, "
      f"{rss * 1024 / c['block_accesses']:.1f} B per block access")
PY
done
