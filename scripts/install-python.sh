#!/usr/bin/env bash
# Installs the Python package llmtrafficlens (pybind11 module over the C++ stage libraries, and
# llmtrafficlens.dask) into Debian's /usr/bin/python3, offline: builds the ltl_python target in
# BUILD_DIR (default build/; a directory configured before keeps its options, so after
# `scripts/configure.sh test build` nothing is compiled twice) and installs build/python/ with
# Debian's setuptools (/usr/local/lib/python3.X/dist-packages as root, ~/.local otherwise).
# Usage: scripts/install-python.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
py=/usr/bin/python3
if [[ ! -f "$dir/CMakeCache.txt" ]]; then
  scripts/configure.sh example "$dir"
fi
cmake -S . -B "$dir" -DLTL_BUILD_PYTHON=ON -DLTL_PYTHON="$py" >/dev/null
cmake --build "$dir" -j"$(nproc)" --target ltl_python_package
user=(); [[ $(id -u) -ne 0 ]] && user=(--user)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! (cd "$dir/python" &&
  "$py" setup.py -q build --build-base "$work/build" egg_info --egg-base "$work" \
    install "${user[@]}" --single-version-externally-managed --root=/) >"$work/log" 2>&1; then
  cat "$work/log" >&2
  exit 1
fi
# Prove the install from outside the source tree, with the interpreter it went into.
(cd / && "$py" -c 'import llmtrafficlens, llmtrafficlens.dask; print("installed llmtrafficlens",
  llmtrafficlens.__version__, "for", __import__("sys").executable, "at",
  __import__("os").path.dirname(llmtrafficlens.__file__))')
