#!/usr/bin/env bash
# Issue 20 (docs/PERFORMANCE.md, "Dask"): a generated gateway CSV of SIZE_MB (default 1024; under
# $LTL_BENCH_DIR, default /tmp/ltl-bench, never in the repository) cut into N_FILES files at row
# boundaries (default 16, each with the header), then in one script on the same files:
#   baseline  the single-process CLI `profile f1 ... fN`: wall, peak RSS;
#   dask 1    `python3 -m llmtrafficlens.dask --local 1` (Debian's python3, the package this build
#             assembled in build/python/, as the tests import it): wall, the driver's phase line
#             (map = hash-shard tasks until the last shard is back and merged on the driver;
#             merge+replay = the driver's work after it), the workers' and the driver's peak RSS;
#   dask 2    the same with --local 2.
# Checks that the three report.json files are identical byte for byte (same files, same salt, same
# options; else it compares them minus the run description, as the tests do, and says which).
# Prints wall, MB/s, the ratio to the baseline, the phase shares, memory, and the replay's memory
# per distinct block (the driver's RSS growth from before the map to its peak, over the report's
# distinct blocks; the driver also holds every shard). The load average is sampled every 5 s.
# Run it at normal priority, not under `nice`: at low priority on a loaded machine each runnable
# thread gets a share of the CPU, and the Dask runs have more threads than the CLI (PERFORMANCE.md).
# Usage: bench/run-dask-bench.sh [SIZE_MB [N_FILES]]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
mb=${1:-1024}
n=${2:-16}
w=$dir/dask-bench-${mb}m-$n
mkdir -p "$w"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLTL_BUILD_PYTHON=ON >/dev/null
cmake --build build -j2 --target llmtrafficlens ltl_python_package >/dev/null
py=/usr/bin/python3
file="$dir/gateway-${mb}m.csv"
[[ -f $file ]] || python3 bench/gen_gateway_csv.py "$file" --mb "$mb"
# Cut at row boundaries with Python's csv module (bodies hold newlines), streaming: a part ends
# once it holds its share of the source's bytes (measured on the rows as written).
if [[ ! -f $w/parts.done ]]; then
  rm -f "$w"/part-*.csv
  python3 - "$file" "$n" "$w" <<'PY'
import csv, io, os, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
csv.field_size_limit(1 << 30)
share = os.path.getsize(src) / n
with open(src, newline="", encoding="utf-8") as f:
    rows = csv.reader(f)
    header = next(rows)
    k, written, g, wr = -1, 0, None, None
    for row in rows:
        if g is None or (written >= share * (k + 1) and k + 1 < n):
            if g is not None:
                g.close()
            k += 1
            g = open(f"{out}/part-{k:02d}.csv", "w", newline="", encoding="utf-8")
            wr = csv.writer(g, lineterminator="\n")
            wr.writerow(header)
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(row)
        written += len(buf.getvalue().encode("utf-8"))
        g.write(buf.getvalue())
    g.close()
assert k + 1 == n, f"only {k + 1} parts"
PY
  touch "$w/parts.done"
fi
parts=("$w"/part-*.csv)
salt="$w/salt"
export PYTHONPATH=$PWD/build/python
(while :; do cut -d' ' -f1 /proc/loadavg >> "$w/load.txt"; sleep 5; done) &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT
: > "$w/load.txt"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · $(free -g | awk '/Mem:/ {print $2}') GiB · load $(cut -d' ' -f1-3 /proc/loadavg)"
timed() {  # timed NAME CMD...: "NAME wall max_rss_kb" to $w/times.txt (max over the process tree)
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$w/t.txt" "$@" >/dev/null 2>"$w/$name.stderr"
  echo "$name $(cat "$w/t.txt")" >> "$w/times.txt"
}
: > "$w/times.txt"
# Every run reads the files from the page cache: the first timed run must not be the one that
# reads them from disk (a cold first read made the CLI 2.3x slower than its rerun, 2026-12-07).
cat "${parts[@]}" > /dev/null
timed baseline build/llmtrafficlens profile "${parts[@]}" -o "$w/base" --salt-file "$salt" -q
timed dask1 "$py" -m llmtrafficlens.dask --local 1 -o "$w/dask1" --salt-file "$salt" "${parts[@]}"
timed dask2 "$py" -m llmtrafficlens.dask --local 2 -o "$w/dask2" --salt-file "$salt" "${parts[@]}"
kill "$sampler" 2>/dev/null || true
echo "# after: load $(cut -d' ' -f1-3 /proc/loadavg)"
"$py" - "$w" <<'PY'
import glob, json, os, re, statistics, sys
w = sys.argv[1]
t = {}
for line in open(f"{w}/times.txt"):
    name, wall, rss = line.split()
    t[name] = (float(wall), int(rss) * 1024)
texts = {k: open(f"{w}/{k}.json", "rb").read() for k in ("base", "dask1", "dask2")}
if texts["dask1"] == texts["base"] and texts["dask2"] == texts["base"]:
    same = "identical byte for byte"
else:
    def comparable(raw):
        r = json.loads(raw)
        r.pop("run", None)
        r.get("input", {}).pop("files", None)
        return r
    reps = {k: comparable(v) for k, v in texts.items()}
    assert reps["dask1"] == reps["base"] and reps["dask2"] == reps["base"], \
        "a Dask report.json differs from the single-process profile's"
    same = "identical minus the run description (not byte for byte)"
counts = json.loads(texts["base"])["counts"]
log_bytes = sum(os.path.getsize(p) for p in glob.glob(f"{w}/part-*.csv"))
loads = [float(x) for x in open(f"{w}/load.txt").read().split()]
mb = log_bytes / 1e6
print(f"log {mb:.0f} MB in {len(glob.glob(f'{w}/part-*.csv'))} files; {counts['requests']:,} "
      f"requests, {counts['distinct_blocks']:,} distinct blocks, {counts['block_accesses']:,} "
      f"block accesses; load average during the runs {min(loads):.1f}-{max(loads):.1f} "
      f"(mean {statistics.mean(loads):.1f})")
bw, brss = t["baseline"]
print(f"{'run':<24} {'wall s':>7} {'MB/s':>6} {'vs base':>7}  {'map s':>7} {'merge+replay s':>14}"
      f" {'other s':>7}  memory")
print(f"{'profile f1..fN (CLI)':<24} {bw:7.1f} {mb / bw:6.1f} {1:7.2f}x  {'':>7} {'':>14} "
      f"{'':>7}  peak RSS {brss / 2**20:.0f} MiB")
phase = re.compile(r"map (\d+\.\d+) s \((\d+) shards, [\d.]+ MB, [\d.]+ MB/s; workers' peak RSS "
                   r"([\d, ?]+) MiB\), merge\+replay on the driver (\d+\.\d+) s \(driver RSS "
                   r"(\d+) MiB at the start, (\d+) MiB before it, peak (\d+) MiB\)")
for k, label in (("dask1", "dask --local 1"), ("dask2", "dask --local 2")):
    wall, tree_rss = t[k]
    err = open(f"{w}/{k}.stderr").read()
    m = phase.search(err)
    assert m, f"no phase line in {w}/{k}.stderr"
    map_s, replay_s = float(m[1]), float(m[4])
    other = wall - map_s - replay_s
    at_start, before, peak = int(m[5]), int(m[6]), int(m[7])
    print(f"{label:<24} {wall:7.1f} {mb / wall:6.1f} {wall / bw:7.2f}x  {map_s:7.1f} "
          f"{replay_s:14.1f} {other:7.1f}  workers' peak RSS {m[3]} MiB; driver RSS {before} MiB "
          f"before the replay, peak {peak} MiB")
    print(f"{'':<24} map {map_s / wall:.0%} of the wall ({mb / map_s:.1f} MB/s), merge+replay "
          f"{replay_s / wall:.0%}, cluster start/stop and imports {other / wall:.0%}; "
          f"map share of map+replay {map_s / (map_s + replay_s):.0%}")
    grow = (peak - at_start) * 2**20
    print(f"{'':<24} driver growth from the start of the map to its peak {grow / 2**20:.0f} MiB"
          f" = {grow / counts['distinct_blocks']:.0f} B per distinct block (shards held included)")
    print(f"{'':<24} driver peak / distinct blocks {peak * 2**20 / counts['distinct_blocks']:.0f} B "
          f"(Python, Dask scheduler and shards included)")
print(f"reports: the three report.json files are {same}")
PY
