#!/usr/bin/env bash
# The README's first command: install dependencies, build, and profile the bundled example log.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/configure.sh example build
cmake --build build -j"$(nproc)" --target llmtrafficlens
mkdir -p out
./build/llmtrafficlens profile examples/gateway.csv -o out/report "$@"
