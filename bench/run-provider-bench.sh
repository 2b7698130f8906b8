#!/usr/bin/env bash
# What the provider prompt-cache model costs (issue 32: <= 10% over `profile` without it), measured
# in one script on the benchmark gateway CSV of SIZE MB (default 1024, generated under /tmp by
# bench/gen_gateway_csv.py): `profile` with --provider-cache none (the baseline), auto (the default:
# the hosted family most requests name, here one model in six), and openai (every request replayed
# by the openai model: the worst case). The three run in turn (so load changes hit all three),
# RUNS times, and the medians' ratios to the baseline are printed.
# Usage: bench/run-provider-bench.sh [SIZE_MB] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
mb=${1:-1024}
runs=${2:-3}
mkdir -p "$dir"
bin=${LTL_BIN:-build/llmtrafficlens}  # LTL_BIN: a binary built elsewhere (no build here then)
if [[ -z ${LTL_BIN:-} ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j2 --target llmtrafficlens >/dev/null
fi
file="$dir/gateway-${mb}m.csv"
[[ -f $file ]] || python3 bench/gen_gateway_csv.py "$file" --mb "$mb"
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1 /proc/loadavg) · $((  $(stat -c %s "$file") / 1000000 )) MB"
declare -A times
for ((i = 0; i < runs; i++)); do
  for mode in none auto openai; do
    s=$(date +%s.%N)
    "$bin" profile "$file" -o "$dir/provider-$mode" --salt-file "$dir/salt" -q \
      --provider-cache "$mode" >/dev/null
    e=$(date +%s.%N)
    times[$mode]+="$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }') "
  done
done
python3 - "${times[none]}" "${times[auto]}" "${times[openai]}" "$dir" <<'PY'
import json, statistics, sys
none, auto, openai = (sorted(map(float, a.split())) for a in sys.argv[1:4])
base = statistics.median(none)
for name, t in (("none", none), ("auto", auto), ("openai", openai)):
    m = statistics.median(t)
    r = json.load(open(f"{sys.argv[4]}/provider-{name}.json")).get("provider_cache", {})
    print(f"--provider-cache {name:7s} median {m:6.2f} s  ratio {m / base:5.3f}  "
          f"replayed {r.get('requests', 0)} requests  runs {' '.join(f'{x:.2f}' for x in t)}")
PY
