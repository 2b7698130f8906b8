#!/usr/bin/env bash
# Issue 34 item 2 (docs/PERFORMANCE.md "Dask"): tasks sized by bytes. One script run, on the files
# bench/run-dask-bench.sh makes (under $LTL_BENCH_DIR, default /tmp/ltl-bench; run it first):
#   one 1 GB file   the CLI `profile FILE`, then `python3 -m llmtrafficlens.dask --local 1` and
#                   `--local 2` with the default --piece-size (64 MiB: ~16 tasks), and `--local 2
#                   --piece-size file` (one task: the case before pieces);
#   16 files        the CLI, and `--local 2` with and without pieces (must not be worse);
#   the pre-pass    llmtrafficlens._core.plan_pieces (the driver's record-boundary scan) alone on
#                   the 1 GB file: its CPU and wall time, as a share of the map's.
# For each run: wall (a ratio to the CLI within this run only: the machine is shared), the CPU of
# the process tree (user + sys, /usr/bin/time), peak RSS, and from the driver's phase line the map
# time and its task count. Checks that every report.json equals its CLI's byte for byte.
# Usage: bench/run-dask-pieces.sh [SIZE_MB [N_FILES]]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
mb=${1:-1024}
n=${2:-16}
file="$dir/gateway-${mb}m.csv"
w16=$dir/dask-bench-${mb}m-$n
[[ -f $file && -f $w16/parts.done ]] || { echo "run bench/run-dask-bench.sh $mb $n first" >&2; exit 2; }
w=$dir/dask-pieces-${mb}m
mkdir -p "$w"
salt="$w16/salt"
parts=("$w16"/part-*.csv)
py=/usr/bin/python3
bin=${LTL_BIN:-build/llmtrafficlens}                # or a copy, to measure while building
export PYTHONPATH=${LTL_PYTHONPATH:-$PWD/build/python}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · load $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$file" "${parts[@]}" > /dev/null
: > "$w/times.txt"
timed() {  # timed NAME CMD...: "NAME wall user sys max_rss_kb" (the process tree)
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$w/t.txt" "$@" >/dev/null 2>"$w/$name.stderr"
  echo "$name $(cat "$w/t.txt")" >> "$w/times.txt"
}
timed cli1 "$bin" profile "$file" -o "$w/cli1" --salt-file "$salt" -q
timed one_local1 "$py" -m llmtrafficlens.dask --local 1 -o "$w/one_local1" --salt-file "$salt" "$file"
timed one_local2 "$py" -m llmtrafficlens.dask --local 2 -o "$w/one_local2" --salt-file "$salt" "$file"
timed one_local2_file "$py" -m llmtrafficlens.dask --local 2 --piece-size file -o "$w/one_local2_file" \
  --salt-file "$salt" "$file"
timed cli16 "$bin" profile "${parts[@]}" -o "$w/cli16" --salt-file "$salt" -q
timed many_local2 "$py" -m llmtrafficlens.dask --local 2 -o "$w/many_local2" --salt-file "$salt" \
  "${parts[@]}"
timed many_local2_file "$py" -m llmtrafficlens.dask --local 2 --piece-size file -o "$w/many_local2_file" \
  --salt-file "$salt" "${parts[@]}"
"$py" - "$file" "$salt" > "$w/prepass.txt" <<'PY'
import resource, sys, time
from llmtrafficlens import _core
path, salt = sys.argv[1], sys.argv[2]
_core.plan_pieces(path, 64 << 20, {"salt_file": salt})  # warm
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
pieces = _core.plan_pieces(path, 64 << 20, {"salt_file": salt})
r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(f"{len(pieces)} {cpu:.3f} {t1 - t0:.3f}")
PY
"$py" - "$w" "$file" <<'PY'
import os, re, sys
w, path = sys.argv[1], sys.argv[2]
t = {}
for line in open(f"{w}/times.txt"):
    name, wall, user, sys_, rss = line.split()
    t[name] = (float(wall), float(user) + float(sys_), int(rss) * 1024)
phase = re.compile(r"map (\d+\.\d+) s \((\d+) shards")
def same(a, b):
    return open(f"{w}/{a}.json", "rb").read() == open(f"{w}/{b}.json", "rb").read()
mb = os.path.getsize(path) / 1e6
print(f"{'run':<34} {'wall':>6} {'vs CLI':>7} {'CPU s':>6} {'RSS MiB':>8} {'map s':>6} {'tasks':>5}"
      f"  report")
for base, runs in (("cli1", ("one_local1", "one_local2", "one_local2_file")),
                   ("cli16", ("many_local2", "many_local2_file"))):
    bw, bc, br = t[base]
    print(f"{base:<34} {bw:6.1f} {1:7.2f}x {bc:6.1f} {br / 2**20:8.0f}")
    for k in runs:
        wall, cpu, rss = t[k]
        m = phase.search(open(f"{w}/{k}.stderr").read())
        assert m, f"no phase line in {w}/{k}.stderr"
        print(f"{k:<34} {wall:6.1f} {wall / bw:7.2f}x {cpu:6.1f} {rss / 2**20:8.0f} "
              f"{float(m[1]):6.1f} {int(m[2]):5d}  "
              f"{'identical' if same(k, base) else 'DIFFERS from ' + base}")
pieces, cpu, wall = open(f"{w}/prepass.txt").read().split()
map2 = float(phase.search(open(f"{w}/one_local2.stderr").read())[1])
print(f"pre-pass (record-boundary scan of the {mb:.0f} MB file, {pieces} pieces): CPU {float(cpu):.2f} s,"
      f" wall {float(wall):.2f} s = {float(wall) / map2:.0%} of the --local 2 map's wall")
PY
