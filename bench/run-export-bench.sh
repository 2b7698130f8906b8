#!/usr/bin/env bash
# Reproduces the export numbers in docs/PERFORMANCE.md: builds Release and runs export_bench on the
# public traces (when ../shared/data is present), a generated gateway CSV, examples/gateway.csv (when
# present) and a generated bailian trace (--mb, default 200).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target export_bench >/dev/null
traces=()
for f in ../shared/data/conversation_trace.jsonl ../shared/data/synthetic_trace.jsonl; do
  [[ -f $f ]] && traces+=("$f")
done
# A generated gateway CSV (OpenAI bodies, tools, usage on some rows) of about 60 MB.
gw=$(mktemp -d)/gateway.csv
python3 -c "import sys; sys.path.insert(0, 'tests/integration'); import export_fixtures as fx; fx.write_gateway_csv('$gw', 3, 15000)"
traces+=("$gw")
[[ -f examples/gateway.csv ]] && traces+=(examples/gateway.csv)
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
/usr/bin/time -f "peak RSS %M KiB" build/export_bench "$@" "${traces[@]}"
rm -r "$(dirname "$gw")"
