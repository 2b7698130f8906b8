#!/usr/bin/env bash
# Configures a build directory for one of the README's commands, setting every option that command
# relies on, so a directory configured before by the other command (CMake keeps cached options)
# never builds or runs less than it should. .ci/run checks this: configured as `example` and then
# as `test`, a directory lists the whole suite.
# Usage: scripts/configure.sh example|test|sanitize BUILD_DIR [DATA_DIR]
#   example   Release; only the command-line tool (no tests, no benchmarks)
#   test      Release, -Werror, unit + integration tests, benchmarks, the Python module + its tests
#   sanitize  clang, ASan + UBSan + libFuzzer coverage: tests and fuzz targets, no benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/configure.sh example|test|sanitize BUILD_DIR [DATA_DIR]}
dir=${2:?usage: scripts/configure.sh example|test|sanitize BUILD_DIR [DATA_DIR]}
data=${3:-$PWD/build/data}
case "$mode" in
  example)
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DLTL_BUILD_TESTS=OFF -DLTL_BUILD_BENCH=OFF \
      -DLTL_BUILD_FUZZ=OFF -DLTL_SANITIZE=OFF -DLTL_BUILD_PYTHON=OFF >/dev/null ;;
  test)
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DLTL_WERROR=ON -DLTL_BUILD_TESTS=ON \
      -DLTL_BUILD_BENCH=ON -DLTL_BUILD_FUZZ=OFF -DLTL_SANITIZE=OFF -DLTL_BUILD_PYTHON=ON \
      -DLTL_DATA_DIR="$data" >/dev/null ;;
  sanitize)
    # Line tables are all ASan/UBSan reports and libFuzzer need for file:line stacks; full -g
    # debug info costs compile and link time in every pass of CI.
    CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLTL_WERROR=OFF \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
      -DLTL_BUILD_FUZZ=ON -DLTL_BUILD_TESTS=ON -DLTL_BUILD_BENCH=OFF -DLTL_SANITIZE=OFF \
      -DLTL_BUILD_PYTHON=OFF \
      -DLTL_DATA_DIR="$data" >/dev/null ;;
  *) echo "unknown mode '$mode' (example, test, sanitize)" >&2; exit 2 ;;
esac
