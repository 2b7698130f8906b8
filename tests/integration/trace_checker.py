#!/usr/bin/env python3
"""Consumer-rule checker for exported traces (Python standard library only).

Applies, to every line of a Mooncake or bailian trace, the rules the replay tools enforce or rely
on (docs/EXPORT.md; read from AIPerf, SGLang bench_serving and kvcache-simulator sources):

mooncake (AIPerf mooncake_trace, SGLang --dataset-name mooncake, kvcache-simulator)
  - exactly the keys timestamp, input_length, output_length, hash_ids, block_size (AIPerf rejects
    a `type` key; input_length and hash_ids go together)
  - timestamp: integer milliseconds, non-decreasing (the simulator replays in file order)
  - input_length > 0 (simulator), output_length >= 0, integers
  - block_size: positive integer, the same on every line
bailian (AIPerf bailian_trace)
  - exactly chat_id, parent_chat_id, timestamp, input_length, output_length, type, turn, hash_ids
  - chat_id: integer, unique; parent_chat_id: -1 or the chat_id of an earlier line;
    turn: 1 for a root, parent's turn + 1 otherwise; type: text, image or file
  - timestamp: float seconds, non-decreasing
both
  - hash_ids: integers in [0, 2^63 - 1] (orjson turns larger ones into floats)
  - len(hash_ids) == ceil(input_length / block_size), i.e. the last block holds
    input_length - (len - 1) * block_size tokens, in (0, block_size] (AIPerf fails the load else)
  - a partial tail block's id is never a full block's id anywhere in the file, and always has the
    same token count (AIPerf caches a block's text by id, so reuse would make lengths drift)

Usage: trace_checker.py --format mooncake|bailian [--block-size N] FILE
"""

import argparse
import json
import math
import sys

MAX_ID = 2**63 - 1
MOONCAKE_KEYS = ("timestamp", "input_length", "output_length", "hash_ids", "block_size")
BAILIAN_KEYS = ("chat_id", "parent_chat_id", "timestamp", "input_length", "output_length", "type",
                "turn", "hash_ids")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v))


class CheckResult:
    def __init__(self):
        self.errors = []  # "LINE: problem"
        self.lines = 0
        self.block_size = None
        self.distinct_ids = 0
        self.tails = 0

    def error(self, line, msg):
        if len(self.errors) < 1000:
            self.errors.append(f"{line}: {msg}")

    @property
    def ok(self):
        return not self.errors and self.lines > 0


def check_trace(path, fmt, block_size=None):
    """Checks every line of `path`; `block_size` is required for bailian (AIPerf's is 16) and,
    for mooncake, checked against every line's block_size when given."""
    if fmt not in ("mooncake", "bailian"):
        raise ValueError(fmt)
    res = CheckResult()
    if fmt == "bailian" and block_size is None:
        block_size = 16
    role = {}  # id -> ("full", None) or ("tail", tokens)
    last_ts = None
    turn_of = {}  # chat_id -> turn
    with open(path, "rb") as f:
        for n, raw in enumerate(f, start=1):
            res.lines += 1
            if not raw.endswith(b"\n"):
                res.error(n, "line does not end with a newline")
            try:
                obj = json.loads(raw)
            except ValueError:
                res.error(n, "invalid JSON")
                continue
            if not isinstance(obj, dict):
                res.error(n, "not a JSON object")
                continue
            want = MOONCAKE_KEYS if fmt == "mooncake" else BAILIAN_KEYS
            if tuple(obj.keys()) != want:
                res.error(n, f"keys {list(obj.keys())} != {list(want)}")
                if any(k not in obj for k in want):
                    continue
            if fmt == "mooncake" and "type" in obj:
                res.error(n, "AIPerf mooncake_trace rejects a 'type' key")

            ts = obj["timestamp"]
            if fmt == "mooncake":
                if not _is_int(ts):
                    res.error(n, "timestamp is not an integer (ms)")
                    continue
            else:
                if not isinstance(ts, float) or not math.isfinite(ts):
                    res.error(n, "timestamp is not a float (seconds)")
                    continue
            if last_ts is not None and ts < last_ts:
                res.error(n, f"timestamp {ts} < previous {last_ts}")
            last_ts = ts

            L, out = obj["input_length"], obj["output_length"]
            if not _is_int(L) or L <= 0:
                res.error(n, "input_length is not a positive integer")
                continue
            if not _is_int(out) or out < 0:
                res.error(n, "output_length is not a non-negative integer")

            bs = block_size
            if fmt == "mooncake":
                bs_line = obj["block_size"]
                if not _is_int(bs_line) or bs_line <= 0:
                    res.error(n, "block_size is not a positive integer")
                    continue
                if block_size is not None and bs_line != block_size:
                    res.error(n, f"block_size {bs_line} != expected {block_size}")
                if res.block_size is not None and bs_line != res.block_size:
                    res.error(n, f"block_size {bs_line} differs from earlier lines")
                bs = bs_line
            res.block_size = bs

            ids = obj["hash_ids"]
            if not isinstance(ids, list) or not all(_is_int(i) for i in ids):
                res.error(n, "hash_ids is not a list of integers")
                continue
            if any(i < 0 or i > MAX_ID for i in ids):
                res.error(n, "hash id outside [0, 2^63-1]")
            if len(ids) != -(-L // bs):
                res.error(n, f"len(hash_ids) {len(ids)} != ceil({L} / {bs})")
                continue
            last_block = L - (len(ids) - 1) * bs
            if not 0 < last_block <= bs:
                res.error(n, f"last block holds {last_block} tokens, not in (0, {bs}]")
            for j, i in enumerate(ids):
                is_tail = j == len(ids) - 1 and last_block < bs
                r = ("tail", last_block) if is_tail else ("full", None)
                seen = role.setdefault(i, r)
                if seen != r:
                    res.error(n, f"hash id {i} is used as {r} here and as {seen} earlier")
            res.tails += last_block < bs

            if fmt == "bailian":
                cid, parent, turn, typ = (obj["chat_id"], obj["parent_chat_id"], obj["turn"],
                                          obj["type"])
                if not _is_int(cid) or cid in turn_of:
                    res.error(n, "chat_id is not a new integer")
                    continue
                if typ not in ("text", "image", "file"):
                    res.error(n, f"type {typ!r} is not text, image or file")
                if not _is_int(turn) or turn < 1:
                    res.error(n, "turn is not an integer >= 1")
                    continue
                if parent == -1:
                    if turn != 1:
                        res.error(n, f"root turn is {turn}, not 1")
                elif not _is_int(parent) or parent not in turn_of:
                    res.error(n, "parent_chat_id is not -1 or an earlier chat_id")
                elif turn != turn_of[parent] + 1:
                    res.error(n, f"turn {turn} != parent's turn {turn_of[parent]} + 1")
                turn_of[cid] = turn
    res.distinct_ids = len(role)
    return res


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--format", required=True, choices=["mooncake", "bailian"])
    ap.add_argument("--block-size", type=int)
    ap.add_argument("file")
    a = ap.parse_args(argv)
    res = check_trace(a.file, a.format, a.block_size)
    for e in res.errors:
        print(f"{a.file}:{e}")
    print(f"{a.file}: {res.lines} lines, block size {res.block_size}, {res.distinct_ids} distinct "
          f"ids, {res.tails} partial tails: {'ok' if res.ok else 'FAILED'}")
    return 0 if res.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
