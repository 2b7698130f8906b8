#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, in build-fuzz/) and runs each for a bounded
# time, two at a time, starting from the seed corpus in fuzz/corpus/<target>/. New inputs found go
# to build-fuzz/corpus/<target>/ (kept between local runs, never into the repository); a crash or a
# failed property is saved under build-fuzz/findings/ and makes the script exit 1.
# Usage: fuzz/run.sh SECONDS [TARGET...]     (default: every fuzz/*_fuzz.cc; "gateway_csv" and
#        "gateway_csv_fuzz" name the same target)
# Env: FUZZ_JOBS (targets run at once, default 2), FUZZ_BUILD_DIR (default build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
build=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${FUZZ_JOBS:-2}
targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi
targets=("${targets[@]/%_fuzz/}")
targets=("${targets[@]/%/_fuzz}")
# A build directory configured before keeps its data directory (the sanitizer test suite's
# vocabularies and oracles); configure.sh alone would reset it to build/data.
data=$(sed -n 's/^LTL_DATA_DIR:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
scripts/configure.sh sanitize "$build" ${data:+"$data"}
cmake --build "$build" -j"$jobs" --target "${targets[@]}"
mkdir -p "$build/findings" "$build/logs"

run_one() {
  local t=$1 name=${1%_fuzz}
  local seeds=fuzz/corpus/$name work=$build/corpus/$name log=$build/logs/$1.log
  mkdir -p "$work" "$seeds"
  # A target's dictionary, when it has one: fuzz/<target>.dict (libFuzzer's -dict format).
  local dict=()
  if [[ -f fuzz/$name.dict ]]; then dict=(-dict="fuzz/$name.dict"); fi
  # -max_len: bodies and CSV records of a few KiB exercise every path; -rss_limit_mb bounds memory.
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$build/$t" "$work" "$seeds" -max_total_time="$seconds" -max_len=16384 -timeout=20 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/findings/$name-" "${dict[@]}" \
      >"$log" 2>&1; then
    local execs rate cov
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' "$log" | tail -1)
    echo "fuzz $name: ${seconds}s, ${execs:-?} executions (${rate:-?} exec/s), coverage ${cov:-?}" \
      "edges, corpus $(ls "$work" | wc -l) inputs, no finding"
  else
    echo "fuzz $name: FINDING (see $log and $build/findings/)" >&2
    tail -40 "$log" >&2
    return 1
  fi
}

status=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if ((${#pids[@]} >= jobs)); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
