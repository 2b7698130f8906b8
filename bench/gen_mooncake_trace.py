#!/usr/bin/env python3
"""Writes a generated Mooncake trace (JSONL) of agentic conversations for the trace-memory bench.

Each conversation shares a system prefix with its app and resends its whole history every turn, so
a request holds many ids but few new ones (as real agentic traces do). `--repeats R` writes the same
requests R times, later in time: distinct blocks stay fixed while requests and ids grow R-fold,
which separates what a reader holds per request from what the replay holds per distinct block.
Usage: gen_mooncake_trace.py OUT --conversations N --turns T [--repeats R] [--seed S]
"""
import argparse
import json
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--conversations", type=int, default=2000)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--apps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    block = 512
    next_id = 0

    def fresh(n):
        nonlocal next_id
        ids = list(range(next_id, next_id + n))
        next_id += n
        return ids

    apps = [fresh(rng.randint(4, 12)) for _ in range(a.apps)]
    requests = []  # (time_ms, ids, output)
    for c in range(a.conversations):
        history = list(apps[rng.randrange(a.apps)])
        t = rng.uniform(0, 3_600_000)
        for _ in range(a.turns):
            history += fresh(rng.randint(1, 4))  # the new user message or tool result
            requests.append((t, list(history), rng.randint(20, 400)))
            history += fresh(1)  # the response, resent next turn
            t += rng.uniform(2_000, 30_000)
    requests.sort(key=lambda r: r[0])
    span = 4_000_000
    with open(a.out, "w") as f:
        for k in range(a.repeats):
            for t, ids, out in requests:
                f.write(json.dumps({"timestamp": int(t + k * span), "input_length": len(ids) * block,
                                    "output_length": out, "hash_ids": ids}) + "\n")


if __name__ == "__main__":
    main()
