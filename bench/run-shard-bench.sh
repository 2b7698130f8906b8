#!/usr/bin/env bash
# Issue 20 (docs/PERFORMANCE.md, "Shards"): a generated gateway CSV of SIZE_MB (default 200; under
# $LTL_BENCH_DIR, default /tmp/ltl-bench, never in the repository) cut into N_FILES files at row
# boundaries (default 8), in one script on the same files:
#   baseline  `profile` of the whole file: wall time, peak RSS;
#   files     `profile f1 ... fN` (one process): wall, peak RSS; report must equal the baseline's
#             curve (checked);
#   shards    `hash-shard` of each file (wall, summed), shard bytes against log bytes, then
#             `profile *.ltlshard`: the replay's wall and peak RSS, and peak RSS per distinct
#             block and per request of the replay; report.json must equal the files run's (checked).
#   marginal  replay memory per distinct block without the process's fixed cost: two generated
#             Mooncake traces (hashed, so no hashing time), one with 4x the distinct blocks of the
#             other at the same requests per block, each hash-sharded and replayed; the peak-RSS
#             difference over the distinct-block difference.
# Ratios are against the baseline of the same run. Usage: bench/run-shard-bench.sh [SIZE_MB [N_FILES]]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${LTL_BENCH_DIR:-/tmp/ltl-bench}
mb=${1:-200}
n=${2:-8}
mkdir -p "$dir/shard-bench"
w=$dir/shard-bench
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target llmtrafficlens >/dev/null
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) · $(free -g | awk '/Mem:/ {print $2}') GiB · load $(cut -d' ' -f1-3 /proc/loadavg)"
file="$dir/gateway-${mb}m.csv"
[[ -f $file ]] || python3 bench/gen_gateway_csv.py "$file" --mb "$mb"
# Cut at row boundaries with Python's csv module (bodies hold newlines), each part with the header.
python3 - "$file" "$n" "$w" <<'PY'
import csv, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
csv.field_size_limit(1 << 30)
with open(src, newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f))
header, data = rows[0], rows[1:]
per = -(-len(data) // n)
for k in range(n):
    with open(f"{out}/part-{k:02d}.csv", "w", newline="", encoding="utf-8") as g:
        wr = csv.writer(g, lineterminator="\n")
        wr.writerow(header)
        wr.writerows(data[k * per:(k + 1) * per])
PY
salt="$w/salt"
timed() {  # timed NAME CMD...: appends "NAME wall rss_kb" to $w/times.txt
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$w/t.txt" "$@" >/dev/null
  echo "$name $(cat "$w/t.txt")" >> "$w/times.txt"
}
: > "$w/times.txt"
timed baseline build/llmtrafficlens profile "$file" -o "$w/base" --salt-file "$salt" -q
timed files build/llmtrafficlens profile "$w"/part-*.csv -o "$w/files" --salt-file "$salt" -q
for p in "$w"/part-*.csv; do
  timed "hash $(basename "$p")" build/llmtrafficlens hash-shard "$p" -o "${p%.csv}.ltlshard" \
    --salt-file "$salt" -q
done
timed replay build/llmtrafficlens profile "$w"/part-*.ltlshard -o "$w/replay" --salt-file "$salt" -q
python3 - "$w" "$file" <<'PY'
import glob, json, os, sys
w, src = sys.argv[1], sys.argv[2]
t = {}
for line in open(f"{w}/times.txt"):
    *name, wall, rss = line.split()
    t[" ".join(name)] = (float(wall), int(rss) * 1024)
base, files, replay = (json.load(open(f"{w}/{k}.json")) for k in ("base", "files", "replay"))
assert files["curve"] == base["curve"], "files run differs from the whole file"
assert open(f"{w}/replay.json", "rb").read() == open(f"{w}/files.json", "rb").read(), \
    "replay of the shards differs from the files run"
log_bytes = sum(os.path.getsize(p) for p in glob.glob(f"{w}/part-*.csv"))
shard_bytes = sum(os.path.getsize(p) for p in glob.glob(f"{w}/part-*.ltlshard"))
hash_wall = sum(v[0] for k, v in t.items() if k.startswith("hash "))
hash_rss = max(v[1] for k, v in t.items() if k.startswith("hash "))
c = replay["counts"]
bw, brss = t["baseline"]
print(f"log {os.path.getsize(src) / 1e6:.0f} MB in {len(glob.glob(f'{w}/part-*.csv'))} files; "
      f"{c['requests']:,} requests, {c['distinct_blocks']:,} distinct blocks, "
      f"{c['block_accesses']:,} block accesses")
print(f"baseline profile FILE      {bw:7.1f} s   peak RSS {brss / 2**20:7.0f} MiB")
fw, frss = t["files"]
print(f"profile FILE1..FILEn       {fw:7.1f} s   peak RSS {frss / 2**20:7.0f} MiB   "
      f"({fw / bw:.2f}x time, {frss / brss:.2f}x RSS of the baseline)")
print(f"hash-shard (sum, serial)   {hash_wall:7.1f} s   peak RSS {hash_rss / 2**20:7.0f} MiB   "
      f"shards {shard_bytes / 1e6:.1f} MB = {shard_bytes / log_bytes:.1%} of the log")
rw, rrss = t["replay"]
print(f"profile SHARD1..SHARDn     {rw:7.1f} s   peak RSS {rrss / 2**20:7.0f} MiB   "
      f"({rw / bw:.2f}x time, {rrss / brss:.2f}x RSS of the baseline)")
print(f"replay peak RSS per distinct block {rrss / c['distinct_blocks']:.0f} B "
      f"(everything held: records, trace, curves, per request {rrss / c['requests']:.0f} B)")
print("reports: files run == whole file (curve), replay == files run (byte for byte)")
PY

# Marginal replay memory per distinct block (hashed traces: 60 blocks per request, 2/3 of them
# resent from a shared prefix pool, so distinct blocks grow with requests).
for n in 50000 200000; do
  python3 - "$w/mc-$n.jsonl" "$n" <<'PY'
import json, random, sys
out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
with open(out, "w") as f:
    fresh = 10**9
    for i in range(n):
        head = [rng.randrange(n // 10 + 1) * 64 + k for k in range(40)]
        tail = list(range(fresh, fresh + 20))
        fresh += 20
        f.write(json.dumps({"timestamp": i * 10, "input_length": 60 * 512, "output_length": 10,
                            "hash_ids": head + tail}) + "\n")
PY
  build/llmtrafficlens hash-shard "$w/mc-$n.jsonl" -o "$w/mc-$n.ltlshard" -q
  timed "mc $n" build/llmtrafficlens profile "$w/mc-$n.ltlshard" -o "$w/mc-$n" -q
done
python3 - "$w" <<'PY'
import json, sys
w = sys.argv[1]
t = {}
for line in open(f"{w}/times.txt"):
    *name, wall, rss = line.split()
    t[" ".join(name)] = (float(wall), int(rss) * 1024)
small, big = (json.load(open(f"{w}/mc-{n}.json"))["counts"] for n in (50000, 200000))
rs, rb = t["mc 50000"][1], t["mc 200000"][1]
db = big["distinct_blocks"] - small["distinct_blocks"]
dr = big["requests"] - small["requests"]
print(f"mooncake replay: {small['distinct_blocks']:,} -> {big['distinct_blocks']:,} distinct blocks, "
      f"{small['requests']:,} -> {big['requests']:,} requests, peak RSS {rs / 2**20:.0f} -> "
      f"{rb / 2**20:.0f} MiB")
print(f"marginal replay memory: {(rb - rs) / db:.1f} B per distinct block "
      f"(requests included: {(rb - rs) / dr:.0f} B per request at "
      f"{db / dr:.1f} new distinct blocks per request)")
PY
