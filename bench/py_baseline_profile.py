#!/usr/bin/env python3
"""The baseline for bench/run-scale-bench.sh: the same profile as `llmtrafficlens profile`, written
the straightforward way with the Python standard library only, as a prototype would be.

Per row: csv module -> json.loads(request_json) -> render (tools JSON, then each message's role,
content and tool calls; reasoning left out) -> cut into 64-code-point chunks (4 code points per
token, 16-token blocks) -> chained keyed hash per chunk (hashlib.blake2b with a 16-byte key, 8-byte
digest: the standard library has no SipHash) -> ids. Then requests sorted by time and one LRU
replay per default capacity (16K..16M tokens + unbounded) with an OrderedDict, warm-up 0.5, hit =
leading run of cached blocks, blocks touched tail first: the method of peer simulators.

It is not byte-compatible with our renderer (the layouts differ in detail); it does the same kind
and amount of work per byte, which is what the ratio compares.

Usage: py_baseline_profile.py FILE.csv [--max-mb N]   (N: stop after N MB of rows, whole rows)
Prints one line of JSON: bytes, requests, block_accesses, seconds (CPU of this process), stages.
"""
import argparse
import collections
import csv
import hashlib
import json
import sys
import time

csv.field_size_limit(1 << 30)
BLOCK_TOKENS = 16
CHUNK = 4 * BLOCK_TOKENS
CAPACITY_TOKENS = [16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]
KEY = bytes(range(16))


def render(body):
    parts = []
    tools = body.get("tools") or body.get("functions")
    if tools:
        parts.append(json.dumps(tools))
    for m in body.get("messages", []):
        parts.append("<|" + str(m.get("role", "")) + "|>")
        if m.get("name"):
            parts.append(str(m["name"]))
        if m.get("tool_call_id"):
            parts.append(str(m["tool_call_id"]))
        c = m.get("content")
        if isinstance(c, str):
            parts.append(c)
        elif isinstance(c, list):
            for p in c:
                if isinstance(p, dict) and p.get("type") == "text":
                    parts.append(str(p.get("text", "")))
                else:
                    parts.append(json.dumps(p))
        if m.get("tool_calls"):
            parts.append(json.dumps(m["tool_calls"]))
    return "\n".join(parts)


def block_ids(text):
    ids = []
    prev = b""
    for i in range(0, len(text), CHUNK):
        chunk = text[i:i + CHUNK]
        data = prev + chunk.encode("utf-8")
        if len(chunk) < CHUNK:
            data += len(chunk).to_bytes(2, "little")
        prev = hashlib.blake2b(data, key=KEY, digest_size=8).digest()
        ids.append(int.from_bytes(prev, "little") & ((1 << 63) - 1))
    return ids


def lru_replay(requests, capacity_blocks, warmup=0.5):
    cache = collections.OrderedDict()
    first = int(len(requests) * warmup)
    hit = measured = 0
    for i, (tokens, ids) in enumerate(requests):
        if i >= first:
            k = 0
            while k < len(ids) and ids[k] in cache:
                k += 1
            hit += min(k * BLOCK_TOKENS, tokens)
            measured += tokens
        for b in reversed(ids):
            if b in cache:
                cache.move_to_end(b)
            else:
                cache[b] = None
                if len(cache) > capacity_blocks:
                    cache.popitem(last=False)
    return hit, measured


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--max-mb", type=float, default=0)
    a = ap.parse_args()
    limit = int(a.max_mb * 1e6) if a.max_mb else None
    c0 = time.process_time()
    rows = []
    nbytes = 0
    with open(a.file, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = [h.strip().lower() for h in next(reader)]
        ti, bi = header.index("starttime"), header.index("request_json")
        for row in reader:
            nbytes += sum(len(x) for x in row) + len(row) + 1  # close to the bytes read
            try:
                body = json.loads(row[bi])
            except ValueError:
                continue
            text = render(body)
            ids = block_ids(text)
            rows.append((row[ti], (len(text) + 3) // 4, ids))
            if limit and nbytes >= limit:
                break
    c1 = time.process_time()
    rows.sort(key=lambda r: r[0])
    requests = [(tokens, ids) for _, tokens, ids in rows]
    distinct = len({b for _, ids in requests for b in ids})
    results = {}
    for cap in CAPACITY_TOKENS + [None]:
        blocks = cap // BLOCK_TOKENS if cap else distinct
        results[str(cap or "unbounded")] = lru_replay(requests, blocks)
    c2 = time.process_time()
    print(json.dumps({
        "bytes": nbytes, "requests": len(requests),
        "block_accesses": sum(len(ids) for _, ids in requests), "distinct_blocks": distinct,
        "seconds": c2 - c0, "read_render_hash_seconds": c1 - c0, "replay_seconds": c2 - c1,
        "hit_rates": {k: (h / m if m else 0) for k, (h, m) in results.items()}}))


if __name__ == "__main__":
    sys.exit(main())
