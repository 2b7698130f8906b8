#!/usr/bin/env bash
# Reproduces the PostgreSQL input figures in docs/PERFORMANCE.md: a throw-away server with LiteLLM's
# LiteLLM_SpendLogs table, read by `profile postgresql://...`, by `psql \copy | profile -`, and as a
# CSV file on disk (the baseline), in one script (bench/pg_input_bench.py). Needs the Debian
# postgresql server package (scripts/install-deps.sh --test installs it).
# Usage: bench/run-postgres-bench.sh [N_CONVERSATIONS [TURNS]]   (default 2000 conversations x 10)
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target llmtrafficlens >/dev/null
/usr/bin/python3 bench/pg_input_bench.py build/llmtrafficlens "$@"
