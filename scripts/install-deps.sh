#!/usr/bin/env bash
# Installs the Debian packages llmtrafficlens needs to build and test, when any is missing.
# Usage: scripts/install-deps.sh [--test]   (--test adds what the test suite needs: chromium, node,
# python3-jinja2 for the chat-template oracle, pybind11/python3-dev/setuptools for the Python
# package (scripts/install-python.sh), python3-distributed/pandas/numpy for its tests,
# postgresql for the server the PostgreSQL input test starts)
set -euo pipefail
pkgs=(build-essential cmake pkg-config python3 libsimdjson-dev libfmt-dev libcli11-dev
      nlohmann-json3-dev libzstd-dev zstd zlib1g-dev libssl-dev libpcre2-dev libgtest-dev
      libbenchmark-dev libabsl-dev libicu-dev libpq-dev)
if [[ "${1:-}" == "--test" ]]; then
  pkgs+=(clang libclang-rt-14-dev clang-tidy chromium python3-jinja2 postgresql
        pybind11-dev python3-pybind11 python3-dev python3-setuptools python3-distributed
        python3-pandas python3-numpy)
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
