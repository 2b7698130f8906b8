#!/usr/bin/env bash
# Issue 20 item 5 (docs/PERFORMANCE.md, "Hashed traces stream into the interner"): peak RSS of
# `profile` on generated Mooncake traces of one fixed set of distinct blocks whose requests are
# written REPEATS times (bench/gen_mooncake_trace.py), so what grows with the file is only what the
# reader and the replay hold per request. Each size is profiled by BINARY and, when given, by
# BASELINE (a build of an earlier commit) in the same script; the script prints peak RSS per size,
# the ratio BINARY / BASELINE, and the slope in bytes per added request (largest minus smallest).
# Usage: bench/run-trace-memory-bench.sh BINARY [BASELINE] [REPEATS (default "1 8 32")]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1
base=${2:-}
repeats=${3:-"1 8 32"}
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}/trace-memory
mkdir -p "$dir"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1-3 /proc/loadavg)"
rss() {  # rss BINARY TRACE: peak RSS in KiB of one profile run
  /usr/bin/time -f "%M" -o "$dir/t.txt" "$1" profile "$2" -o "$dir/out" -q >/dev/null
  cat "$dir/t.txt"
}
: > "$dir/rows.txt"
for r in $repeats; do
  trace=$dir/mc-r$r.jsonl
  [[ -f $trace ]] || python3 bench/gen_mooncake_trace.py "$trace" --repeats "$r"
  requests=$(wc -l < "$trace")
  new=$(rss "$bin" "$trace")
  old=$([[ -n $base ]] && rss "$base" "$trace" || echo 0)
  echo "$r $requests $(stat -c %s "$trace") $new $old" >> "$dir/rows.txt"
done
python3 - "$dir/rows.txt" <<'PY'
import sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1])]
print(f"{'repeats':>7} {'requests':>9} {'trace MB':>9} {'RSS MiB':>8} {'baseline':>9} {'ratio':>6}")
for r, n, size, new, old in rows:
    ratio = f"{new / old:.2f}" if old else "-"
    base = f"{old / 1024:.1f}" if old else "-"
    print(f"{r:>7} {n:>9,} {size / 1e6:>9.1f} {new / 1024:>8.1f} {base:>9} {ratio:>6}")
(r0, n0, _, a0, b0), (r1, n1, _, a1, b1) = rows[0], rows[-1]
if n1 > n0:
    line = f"slope: {(a1 - a0) * 1024 / (n1 - n0):.0f} B per added request"
    if b0:
        line += f" (baseline {(b1 - b0) * 1024 / (n1 - n0):.0f} B)"
    print(line)
PY
