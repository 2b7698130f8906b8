#!/usr/bin/env bash
# Installs the Python package llmtrafficlens into Debian's /usr/bin/python3, offline. First the
# Debian packages its build needs (scripts/install-deps.sh --python: cmake, the compiler and the
# libraries, pybind11, python3-dev, setuptools, pip, wheel), so it works on a machine where only
# scripts/run-example.sh ran; then exactly `pip install --no-deps --no-build-isolation --no-index .`
# (pyproject.toml: setup.py's build step builds the module with CMake in BUILD_DIR, default build/;
# a directory configured before keeps its options, so after `scripts/configure.sh test build`
# nothing is compiled twice). As root into /usr/local/lib/python3.X/dist-packages, else ~/.local.
# Usage: scripts/install-python.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-build}")
py=/usr/bin/python3
scripts/install-deps.sh --python
args=(--no-deps --no-build-isolation --no-index)
[[ $(id -u) -ne 0 ]] && args+=(--user)
# Debian marks its python3 as managed by apt (PEP 668, EXTERNALLY-MANAGED): pip then refuses any
# install outside a virtual environment. This package depends on nothing and goes where apt never
# writes (/usr/local or ~/.local), which is the case the marker's own advice leaves open.
if [[ -f "$("$py" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')/EXTERNALLY-MANAGED" ]]; then
  args+=(--break-system-packages)
fi
LTL_CMAKE_BUILD_DIR="$dir" "$py" -m pip install "${args[@]}" .
# Prove the install from outside the source tree, with the interpreter it went into.
(cd / && "$py" -c 'import llmtrafficlens, llmtrafficlens.dask; print("installed llmtrafficlens",
  llmtrafficlens.__version__, "for", __import__("sys").executable, "at",
  __import__("os").path.dirname(llmtrafficlens.__file__))')
