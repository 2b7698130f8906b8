#!/usr/bin/env bash
# Reproduces the replay numbers in docs/PERFORMANCE.md: builds Release and runs replay_bench on the
# public traces (when ../shared/data is present) and a generated 50M-access trace.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target replay_bench >/dev/null
traces=()
for f in ../shared/data/conversation_trace.jsonl ../shared/data/synthetic_trace.jsonl; do
  [[ -f $f ]] && traces+=("$f")
done
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
/usr/bin/time -f "peak RSS %M KiB" build/replay_bench "$@" "${traces[@]}"
