#!/usr/bin/env bash
# The README's first command: install dependencies, build, and profile the bundled example log.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLTL_BUILD_TESTS=OFF -DLTL_BUILD_BENCH=OFF >/dev/null
cmake --build build -j"$(nproc)" --target llmtrafficlens
mkdir -p out
./build/llmtrafficlens profile examples/gateway.csv -o out/report "$@"
