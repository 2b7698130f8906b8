#!/usr/bin/env bash
# The README's second command: install dependencies, then build and run the whole test suite twice,
# once optimised and once under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
scripts/fetch-vocab.sh build/data || echo "tokenizer vocabularies unavailable: their tests will skip" >&2
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLTL_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
# Fuzzing: every libFuzzer target (fuzz/*_fuzz.cc, clang + ASan/UBSan, build-fuzz/) for 60 s.
fuzz/run.sh 60
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLTL_SANITIZE=ON -DLTL_WERROR=ON \
      -DLTL_BUILD_BENCH=OFF -DLTL_DATA_DIR="$PWD/build/data" >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j"$jobs")
