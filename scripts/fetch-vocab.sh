#!/usr/bin/env bash
# Produces the tokenizer vocabularies cl100k_base.tiktoken and o200k_base.tiktoken into DIR (default
# build/data) at set-up time. Source: the npm package tiktoken@1.0.22 (MIT), whose
# encoders/<name>.json hold the ranks as `bpe_ranks`, a compressed text ("! <first rank> <base64>
# <base64> ..." runs, or "<base64> <rank>" lines) converted here to the standard .tiktoken form.
# Each file is checked against the published SHA-256 before it is moved into place. The tool never
# downloads anything at run time, and vocabulary files are never committed.
set -euo pipefail
dir="${1:-build/data}"
mkdir -p "$dir"
declare -A sha=(
  [cl100k_base]=223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7
  [o200k_base]=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d
)
digest() { sha256sum "$1" | cut -d' ' -f1; }

missing=()
for name in "${!sha[@]}"; do
  f="$dir/$name.tiktoken"
  if [[ -f "$f" && "$(digest "$f")" == "${sha[$name]}" ]]; then continue; fi
  missing+=("$name")
done
((${#missing[@]} == 0)) && exit 0

if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-vocab: npm is needed to fetch the vocabularies (scripts/install-deps.sh --test installs it)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent tiktoken@1.0.22 >/dev/null)
tar xzf "$tmp/tiktoken-1.0.22.tgz" -C "$tmp" package/encoders
for name in "${missing[@]}"; do
  python3 - "$tmp/package/encoders/$name.json" "$tmp/$name.tiktoken" <<'PY'
import json, sys
ranks = json.load(open(sys.argv[1], encoding="utf-8"))["bpe_ranks"]
with open(sys.argv[2], "w", encoding="ascii", newline="\n") as out:
    for line in ranks.split("\n"):
        parts = line.split(" ")
        if not line:
            continue
        if parts[0] == "!":
            first = int(parts[1])
            for i, token in enumerate(parts[2:]):
                out.write(f"{token} {first + i}\n")
        else:
            out.write(line + "\n")
PY
  got=$(digest "$tmp/$name.tiktoken")
  if [[ "$got" != "${sha[$name]}" ]]; then
    echo "fetch-vocab: $name.tiktoken has SHA-256 $got, expected ${sha[$name]}" >&2
    exit 1
  fi
  mv "$tmp/$name.tiktoken" "$dir/$name.tiktoken.tmp"
  mv "$dir/$name.tiktoken.tmp" "$dir/$name.tiktoken"
  echo "fetch-vocab: installed $dir/$name.tiktoken" >&2
done
