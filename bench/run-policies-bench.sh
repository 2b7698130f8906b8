#!/usr/bin/env bash
# Reproduces the eviction-policy numbers in docs/PERFORMANCE.md: builds Release and runs
# policies_bench (FIFO, LRU, optimal at the 13 default GiB budgets of glm-5.2) on the public
# conversation trace (when ../shared/data is present) and on a generated 20M-access trace.
# Each input runs in its own process so peak RSS belongs to that input alone.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target policies_bench >/dev/null
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
conv=../shared/data/conversation_trace.jsonl
if [[ -f $conv ]]; then
  /usr/bin/time -f "  process: %e s wall, peak RSS %M KiB" build/policies_bench "$@" "$conv"
else
  echo "skipping $conv (absent)"
fi
/usr/bin/time -f "  process: %e s wall, peak RSS %M KiB" build/policies_bench "$@" --accesses 20000000
# End to end: the CLI with and without the policy sweep on the public trace.
if [[ -f $conv ]]; then
  cmake --build build -j2 --target llmtrafficlens >/dev/null
  out=$(mktemp -d)
  /usr/bin/time -f "  profile (LRU curve only):            %e s wall, %U+%S s cpu, peak RSS %M KiB" \
    build/llmtrafficlens profile "$conv" --format mooncake -o "$out/a" -q >/dev/null
  /usr/bin/time -f "  profile --kvcache-sim glm-5.2 (x13): %e s wall, %U+%S s cpu, peak RSS %M KiB" \
    build/llmtrafficlens profile "$conv" --format mooncake -o "$out/b" -q --kvcache-sim glm-5.2 >/dev/null
  rm -rf "$out"
fi
