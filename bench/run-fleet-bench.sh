#!/usr/bin/env bash
# Reproduces the fleet numbers in docs/FLEET.md: builds Release and runs fleet_bench on the public
# conversation trace (when ../shared/data is present) and a generated agentic trace.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target fleet_bench >/dev/null
traces=()
for f in ../shared/data/conversation_trace.jsonl; do
  [[ -f $f ]] && traces+=("$f")
done
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
/usr/bin/time -f "peak RSS %M KiB" build/fleet_bench "$@" "${traces[@]}"
