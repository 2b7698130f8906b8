#!/usr/bin/env bash
# What a clean build costs at each given revision, measured in ways a loaded machine does not skew:
#   - preprocessed lines: every translation unit of the test build (`-E`, from
#     compile_commands.json) and their sum: what the compiler has to read, which is what "headers
#     include only what they use" changes;
#     (per-unit counts go to /tmp/ltl-build-cost-REV.json; bench/compare-build-cost.py A B sums
#     the units both revisions have);
#   - with --build: CPU seconds (user + sys) of a clean `cmake --build -j2` with ccache off, and
#     its wall time (which the load does skew).
# Each revision is checked out into a temporary worktree under /tmp (removed afterwards).
# Usage: bench/run-build-cost.sh [--build] REV...     e.g. bench/run-build-cost.sh 480fef9 main
set -euo pipefail
cd "$(dirname "$0")/.."
build=0
if [[ ${1:-} == --build ]]; then build=1; shift; fi
(($# > 0)) || { echo "usage: bench/run-build-cost.sh [--build] REV..." >&2; exit 2; }
echo "# $(date -u +%Y-%m-%d) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · load $(cut -d' ' -f1 /proc/loadavg)"
for rev in "$@"; do
  tree=$(mktemp -d /tmp/ltl-build-cost.XXXXXX)
  git worktree add -q --detach "$tree/src" "$rev"
  trap 'git worktree remove --force "$tree/src" 2>/dev/null; rm -rf "$tree"' EXIT
  cmake -S "$tree/src" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release -DLTL_BUILD_TESTS=ON \
    -DLTL_BUILD_BENCH=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CXX_COMPILER_LAUNCHER= \
    -DLTL_DATA_DIR="$tree/data" >/dev/null
  /usr/bin/python3 - "$tree/build/compile_commands.json" "$rev" <<'PY'
import json, shlex, subprocess, sys
entries = json.load(open(sys.argv[1]))
total, rows, skipped = 0, [], []
for e in entries:
    argv = shlex.split(e["command"]) if "command" in e else e["arguments"]
    argv = [a for a in argv if a != "ccache" and not a.endswith("/ccache")]
    # drop "-o OUT" and "-c", preprocess to stdout
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c":
            continue
        out.append(a)
    r = subprocess.run(out + ["-E", "-P"], cwd=e["directory"], capture_output=True)
    if r.returncode != 0:  # the build's backward-include probe, which must not compile
        skipped.append(e["file"].rsplit("/", 1)[-1])
        continue
    text = r.stdout
    n = text.count(b"\n")
    total += n
    rows.append((n, e["file"].split("/src/", 1)[-1] if "/src/" in e["file"] else e["file"]))
rows.sort(reverse=True)
# Per-unit counts for comparing the units two revisions share (bench/compare-build-cost.py).
json.dump({f: n for n, f in rows}, open(f"/tmp/ltl-build-cost-{sys.argv[2]}.json", "w"))
entries = [e for e in entries if e["file"].rsplit("/", 1)[-1] not in skipped]
print(f"{sys.argv[2]}: {len(entries)} translation units, {total:,} preprocessed lines "
      f"({total // len(entries):,} per unit); largest: " +
      ", ".join(f"{f.rsplit('/', 1)[-1]} {n:,}" for n, f in rows[:3]) +
      (f" (not preprocessing, as intended: {', '.join(skipped)})" if skipped else ""))
PY
  if ((build)); then
    /usr/bin/time -f "%e %U %S" -o "$tree/time" env CCACHE_DISABLE=1 \
      cmake --build "$tree/build" -j2 >/dev/null
    read -r wall user sys < "$tree/time"
    awk -v r="$rev" -v w="$wall" -v u="$user" -v s="$sys" \
      'BEGIN { printf "%s: clean -j2 build %.0f s CPU (user+sys), %.0f s wall\n", r, u + s, w }'
  fi
  git worktree remove --force "$tree/src"
  rm -rf "$tree"
  trap - EXIT
done
