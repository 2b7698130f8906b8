#!/usr/bin/env bash
# Reproduces the tokenizer numbers in docs/PERFORMANCE.md: our tiktoken-compatible encoder vs
# OpenAI tiktoken's WASM build (npm, under node) on the same generated 10 MB corpora, one thread
# each, in this one script; then the per-segment cache on a conversation that resends its history.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target tokenizer_bench >/dev/null
scripts/fetch-vocab.sh build/data
tests/oracle/setup-node-oracle.sh build/node-oracle
export NODE_PATH="$PWD/build/node-oracle/node_modules"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
sys.path.insert(0, "tests/oracle")
import corpus
d = sys.argv[1]
open(f"{d}/mixed.bin", "wb").write(corpus.corpus(10_000_000, seed=7))
english = [(corpus.prose, 60), (corpus.code, 25), (corpus.json_text, 15)]
open(f"{d}/english-code.bin", "wb").write(corpus.corpus(10_000_000, seed=8, with_invalid=False, kinds=english))
PY
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1-3 /proc/loadavg)"
# Both encoders on the same single core (taskset), so node's helper threads (GC, WASM tier-up
# compilation) share it too: "one core" for both.
core=$(( $(nproc) - 1 ))
for corpus in english-code mixed; do
  for enc in cl100k_base o200k_base; do
    echo "## $corpus.bin"
    taskset -c "$core" node bench/tiktoken_wasm_bench.js "$enc" "$tmp/$corpus.bin"
    taskset -c "$core" build/tokenizer_bench --tokenizer "$enc" "$tmp/$corpus.bin"
  done
done
taskset -c "$core" build/tokenizer_bench --tokenizer cl100k_base --conversation "$tmp/english-code.bin"
