#!/usr/bin/env bash
# Reproduces docs/FLEET.md "Every router on vLLM pools, 8 workers": the Mooncake conversation trace
# (when ../shared/data is present) and a generated agentic gateway log (bench/gen_agentic_log.py,
# 20 MB, seed 11) under every routing policy, generic and named, at 8 workers whose pools are vLLM
# v1 block pools (--engine vllm), printed as Markdown tables (hit rate per per-worker pool size;
# load spread and waiting at the largest size; the ranking's winner per size).
# Usage: bench/run-fleet-routers.sh [BINARY]   (default build/llmtrafficlens)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/llmtrafficlens}
dir=${TMPDIR:-/tmp}/ltl-fleet-routers
mkdir -p "$dir"
log="$dir/agentic-20m.jsonl"
[[ -f $log ]] || python3 bench/gen_agentic_log.py "$log" --mb 20 --seed 11
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

table() {
  python3 - "$1" <<'PY'
import json, sys
fleet = json.load(open(sys.argv[1]))["fleet"]
caps = fleet["capacities"]
def size(c):
    if c["unbounded"]:
        return "unbounded"
    t = c["per_worker_capacity_tokens"]
    return f"{t // 2**20}M" if t % 2**20 == 0 else f"{t // 2**10}K"
print("| router | " + " | ".join(size(c) for c in caps) + " |")
print("|---" * (len(caps) + 1) + "|")
for p in fleet["policies"]:
    print(f"| {p['policy']} | " + " | ".join(f"{q['hit_rate']:.1%}" for q in p["points"]) + " |")
print("| **pooled** (one pool of 8 × size) | " +
      " | ".join(f"{c['pooled_hit_rate']:.1%}" for c in caps) + " |")
print(f"| **ceiling** | {fleet['ceiling']['hit_rate']:.1%} |" + " |" * (len(caps) - 1))
last = len(caps) - 1
while last > 0 and caps[last]["unbounded"]:
    last -= 1
print(f"\nAt {size(caps[last])} per worker:\n")
print("| router | requests CV | uncached prefill CV | wait p50 | wait p95 | evictions | too large |")
print("|---|---|---|---|---|---|---|")
for p in fleet["policies"]:
    q = p["points"][last]
    print(f"| {p['policy']} | {q['requests_cv']:.2f} | {q['uncached_prefill_tokens_cv']:.2f} | "
          f"{q.get('waiting_p50_s', 0):.2f} s | {q.get('waiting_p95_s', 0):.2f} s | "
          f"{q.get('evictions', 0):,} | {q.get('too_large_requests', 0):,} |")
print("\nBest by size (the ranking: hit rate, then requests CV, then wait p95): " + " · ".join(
    f"{size(r)}: {r['rows'][0]['label']}" for r in fleet["ranking"] if r["rows"]))
print(f"\nfleet simulated in {fleet['run_time_s']:.1f} s")
PY
}

run() {
  local name=$1
  shift
  /usr/bin/time -f "$name: %e s wall, peak RSS %M KiB" "$bin" profile "$@" --workers 8 \
    --engine vllm --routing all,named -q -o "$dir/$name" --salt-file "$dir/salt" >/dev/null
  echo "## $name"
  table "$dir/$name.json"
}

trace=../shared/data/conversation_trace.jsonl
if [[ -f $trace ]]; then
  run mooncake "$trace" --format mooncake --per-worker-capacity 64K,256K,1M,4M
fi
run agentic "$log" --per-worker-capacity 16K,64K,256K,1M
