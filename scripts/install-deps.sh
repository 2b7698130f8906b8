#!/usr/bin/env bash
# Installs the Debian packages llmtrafficlens needs to build and test, when any is missing.
# Usage: scripts/install-deps.sh [--test | --python]   (--python adds what `pip install .` of the
# Python package needs: pybind11, python3-dev, setuptools, pip, wheel (scripts/install-python.sh);
# --test adds those and what the test suite needs: chromium, node, python3-jinja2 for the
# chat-template oracle, python3-distributed/pandas/numpy for the Python tests (python3-dask: the
# `dask scheduler` and `dask worker` commands the Dask test starts), postgresql for the server the
# PostgreSQL input test starts)
set -euo pipefail
pkgs=(build-essential cmake pkg-config python3 libsimdjson-dev libfmt-dev libcli11-dev
      nlohmann-json3-dev libzstd-dev zstd zlib1g-dev libssl-dev libpcre2-dev libgtest-dev
      libbenchmark-dev libabsl-dev libicu-dev libpq-dev)
python_pkgs=(pybind11-dev python3-pybind11 python3-dev python3-setuptools python3-pip python3-wheel)
if [[ "${1:-}" == "--python" ]]; then
  pkgs+=("${python_pkgs[@]}")
elif [[ "${1:-}" == "--test" ]]; then
  pkgs+=(clang libclang-rt-14-dev clang-tidy chromium python3-jinja2 postgresql "${python_pkgs[@]}"
        python3-distributed python3-dask python3-pandas python3-numpy)
  command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
  command -v npm >/dev/null 2>&1 || pkgs+=(npm)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
