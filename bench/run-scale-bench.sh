#!/usr/bin/env bash
# Issue 10's numbers (docs/PERFORMANCE.md, "Scale"): for generated gateway CSVs of each SIZE_MB
# (default 1024 and 5120; written under $LTL_BENCH_DIR, default /tmp/ltl-bench, never in the
# repository), in one script on the same file:
#   1. physical limits: `cat FILE > /dev/null`; one thread reading CSV records, and reading +
#      bare SipHash-2-4 over every request byte (bench/gateway_rows_bench.cc, first size only);
#   2. `llmtrafficlens profile FILE` with default options: wall and CPU MB/s, requests/s, block
#      accesses/s, peak RSS, bytes per distinct block;
#   3. the Python-standard-library baseline (bench/py_baseline_profile.py) on the file's first
#      PY_MB MB (default 100; it would take many minutes on gigabytes): the ratio is per MB;
# then on the public traces (../shared/data) the one-pass LRU curve against one per-capacity C++
# replay loop per capacity (bench/replay_bench.cc, thread CPU time).
# Usage: bench/run-scale-bench.sh [SIZE_MB ...]    Delete the generated files afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
py_mb=${PY_MB:-100}
mkdir -p "$dir"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target llmtrafficlens gateway_rows_bench replay_bench >/dev/null
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · $(free -g | awk '/Mem:/ {print $2}') GiB · load $(cut -d' ' -f1-3 /proc/loadavg)"
first=1
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1024 5120)
for mb in "${sizes[@]}"; do
  file="$dir/gateway-${mb}m.csv"
  [[ -f $file ]] || python3 bench/gen_gateway_csv.py "$file" --mb "$mb"
  bytes=$(stat -c %s "$file")
  echo "## $file: $((bytes / 1000000)) MB · load $(cut -d' ' -f1 /proc/loadavg)"
  s=$(date +%s.%N); cat "$file" > /dev/null; e=$(date +%s.%N)
  awk -v b="$bytes" -v s="$s" -v e="$e" 'BEGIN { printf "cat > /dev/null            %8.0f MB/s wall\n", b / 1e6 / (e - s) }'
  if [[ $first == 1 ]]; then build/gateway_rows_bench "$file"; first=0; fi
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" \
    build/llmtrafficlens profile "$file" -o "$dir/report" --salt-file "$dir/salt" -q >/dev/null
  read -r wall user sys rss < "$dir/time.txt"
  py=$(python3 bench/py_baseline_profile.py "$file" --max-mb "$py_mb")
  python3 - "$bytes" "$wall" "$user" "$sys" "$rss" "$dir/report.json" "$py" <<'PY'
import json, sys
b, wall, user, sys_, rss = int(sys.argv[1]), *map(float, sys.argv[2:6])
c = json.load(open(sys.argv[6]))["counts"]
py = json.loads(sys.argv[7])
cpu = user + sys_
print(f"profile (default options)  {b / 1e6 / wall:8.0f} MB/s wall, {b / 1e6 / cpu:6.0f} MB/s per CPU-second "
      f"({wall:.1f} s wall, {cpu:.1f} s CPU), peak RSS {rss / 1024:.0f} MiB")
print(f"  {c['requests'] / wall:,.0f} requests/s, {c['block_accesses'] / wall / 1e6:.1f}M block accesses/s (wall); "
      f"{c['requests']:,} requests, {c['block_accesses']:,} accesses, {c['distinct_blocks']:,} distinct blocks")
print(f"  peak RSS per distinct block {rss * 1024 / c['distinct_blocks']:.0f} B, "
      f"per block access {rss * 1024 / c['block_accesses']:.1f} B")
py_s_per_mb = py["seconds"] / (py["bytes"] / 1e6)
print(f"python baseline on the first {py['bytes'] / 1e6:.0f} MB: {py['bytes'] / 1e6 / py['seconds']:.1f} MB/s per CPU-second "
      f"({py['seconds']:.1f} s CPU: {py['read_render_hash_seconds']:.1f} read+render+hash, {py['replay_seconds']:.1f} replay; "
      f"{py['requests']:,} requests)")
print(f"  ratio per MB: {py_s_per_mb / (wall / (b / 1e6)):.1f}x (our wall), {py_s_per_mb / (cpu / (b / 1e6)):.1f}x (our CPU)")
PY
done
traces=()
for f in ../shared/data/conversation_trace.jsonl ../shared/data/synthetic_trace.jsonl; do
  [[ -f $f ]] && traces+=("$f")
done
echo "## one-pass LRU curve vs one per-capacity C++ replay per capacity (thread CPU, best of 3)"
build/replay_bench --accesses 30000000 "${traces[@]}"
