#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy, every finding an error) on the C++ sources changed since
# the merge base with main; on main itself (a clean CI clone), on those the last commit changed.
# Needs a configured build directory for compile_commands.json.
# Usage: scripts/clang-tidy-changed.sh [BUILD_DIR]   (default build; env LTL_TIDY_BASE=REF overrides
# the base, LTL_TIDY_ALL=1 checks everything)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[[ -f "$build/compile_commands.json" ]] || { echo "no $build/compile_commands.json" >&2; exit 2; }
command -v clang-tidy >/dev/null || { echo "clang-tidy is not installed" >&2; exit 2; }

files=()
base=""
if [[ -z "${LTL_TIDY_ALL:-}" ]]; then
  base=${LTL_TIDY_BASE:-$(git merge-base HEAD main 2>/dev/null || true)}
  if [[ "$base" == "$(git rev-parse HEAD 2>/dev/null)" ]]; then  # on main itself: the last commit
    base=$(git rev-parse -q --verify HEAD~1 2>/dev/null || true)
  fi
fi
if [[ -n "$base" ]]; then
  mapfile -t files < <({ git diff --name-only --diff-filter=d "$base" -- 'src/*.cc' 'fuzz/*.cc' \
                         'tests/unit/*.cc' 'bench/*.cc'; git ls-files --others --exclude-standard \
                         -- 'src/*.cc' 'fuzz/*.cc' 'tests/unit/*.cc' 'bench/*.cc'; } | sort -u)
  echo "clang-tidy: ${#files[@]} file(s) changed since $(git rev-parse --short "$base")"
else
  mapfile -t files < <(git ls-files 'src/*.cc' 'tests/unit/*.cc' 'bench/*.cc')
  echo "clang-tidy: no base commit; checking all ${#files[@]} files"
fi
# Only files the build knows (fuzz targets are in the fuzz build's database, not this one).
known=()
for f in "${files[@]}"; do
  grep -q "\"file\": \"$PWD/$f\"" "$build/compile_commands.json" && known+=("$f")
done
((${#known[@]})) || { echo "clang-tidy: nothing to check"; exit 0; }
printf '%s\n' "${known[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet \
  --extra-arg=-Wno-unknown-warning-option 2> >(grep -v "warnings generated" >&2)
echo "clang-tidy: ${#known[@]} file(s) clean"
