"""Deterministic synthetic hashed traces for the report tests (standard library only).

bailian_trace() mimics a gateway's traffic in qwen-bailian format (16-token blocks): three shared
system prompts with skewed popularity (one of 16 tokens in most requests, one of 2,400 tokens in a
few), conversations whose every turn resends the history, Poisson-like arrivals over an hour.
"""
import json
import random


def bailian_trace(conversations=120, seed=7):
    rng = random.Random(seed)
    next_id = [10_000]

    def fresh(n):
        ids = list(range(next_id[0], next_id[0] + n))
        next_id[0] += n
        return ids

    # (blocks, weight): a short prompt most requests carry, a long one a few do, one in between.
    prompts = [(fresh(1), 0.70), (fresh(150), 0.10), (fresh(40), 0.20)]
    lines = []
    chat_id = 0
    t = 0.0
    for _ in range(conversations):
        r = rng.random()
        acc = 0.0
        for ids, w in prompts:
            acc += w
            if r <= acc:
                prefix = ids
                break
        history = list(prefix)
        parent = -1
        turns = 1 + int(rng.expovariate(0.6))
        conv_t = t
        for turn in range(1, turns + 1):
            history = history + fresh(1 + rng.randrange(6))
            tail = rng.randrange(1, 16)  # partial last block
            input_length = (len(history) - 1) * 16 + tail
            lines.append({"chat_id": chat_id, "parent_chat_id": parent, "timestamp": round(conv_t, 3),
                          "input_length": input_length, "output_length": rng.randrange(20, 900),
                          "type": "text", "turn": turn, "hash_ids": list(history)})
            parent = chat_id
            chat_id += 1
            conv_t += rng.uniform(2, 40)
        t += rng.expovariate(1 / 25.0)
    lines.sort(key=lambda d: d["timestamp"])
    return lines


def write_jsonl(path, records, extra_lines=()):
    with open(path, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec) + "\n")
        for line in extra_lines:
            f.write(line + "\n")
