"""`profile --engine vllm` without --workers: the curve's single cache becomes vLLM v1's block pool
(docs/SEMANTICS.md "Engine KV pool"). The pool's hit tokens, waiting times and evictions are
compared with an independent implementation written here from the rules (not from the C++): a
pool of C blocks, a FIFO waiting queue blocked by its head, the leading run of cached full blocks
hit up to floor((input - 1) / B) blocks, hit blocks pinned by reference counts (a free one leaves
the free queue), ceil((input + output) / B) blocks reserved at admission from the free queue's head
(evicting what they cached), blocks freed at completion last block first to the queue's tail,
completions at an instant before admissions and arrivals, durations from the load model
(prefill queue), requests larger than the pool skipped. On a generated trace always; on the Mooncake
conversation trace at three pool sizes where requests wait when ../shared/data is present."""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from collections import OrderedDict, deque

BIN = os.environ["LTL_BINARY"]
SHARED = os.environ.get("LTL_SHARED_DATA", "")


def reference(rows, capacity, prefill_rate, decode_rate, bs=512, warmup=0.5, max_seqs=256):
    """rows: (time_s, input, output, hash_ids) in replay order. Returns the figures per pool."""
    free = OrderedDict((b, None) for b in range(capacity))  # the free queue: head first
    refs = [0] * capacity
    block_hash = [None] * capacity
    cached = {}  # hash -> blocks caching it, oldest first (a lookup takes the first)
    held = {}  # admission number -> its blocks in position order
    running = []  # (finish, admission number), kept sorted
    waiting = deque()
    state = {"prefill_free": -1e300, "admitted": 0, "evictions": 0, "hit": 0, "measured": 0,
             "too_large": 0, "max_running": 0}
    waits = []
    real = len(rows)
    first = int(real * warmup)

    def release(upto):
        while running and running[0][0] <= upto:
            _, a = running.pop(0)
            for b in reversed(held.pop(a)):
                refs[b] -= 1
                if refs[b] == 0:
                    free[b] = None

    def try_admit(now):
        while waiting:
            release(now)
            i = waiting[0]
            t0, inp, out, ids = rows[i]
            full = min(len(ids), inp // bs)
            cap = min(full, (inp - 1) // bs if inp > 0 else 0)
            hits = []
            for h in ids[:cap]:
                if h not in cached:
                    break
                hits.append(cached[h][0])
            need_total = math.ceil((inp + max(out, 0)) / bs)
            fresh = max(need_total - len(hits), 0)
            taken_from_free = sum(1 for b in hits if refs[b] == 0)
            if len(running) >= max_seqs or fresh + taken_from_free > len(free):
                if running and running[0][0] <= now:
                    continue
                return
            waiting.popleft()
            mine = []
            for b in hits:
                if refs[b] == 0:
                    del free[b]
                refs[b] += 1
                mine.append(b)
            for _ in range(fresh):
                b, _ = free.popitem(last=False)
                h = block_hash[b]
                if h is not None:
                    cached[h].remove(b)
                    if not cached[h]:
                        del cached[h]
                    block_hash[b] = None
                    state["evictions"] += 1
                refs[b] = 1
                mine.append(b)
            for pos in range(len(hits), full):
                block_hash[mine[pos]] = ids[pos]
                cached.setdefault(ids[pos], []).append(mine[pos])
            a = state["admitted"]
            state["admitted"] += 1
            held[a] = mine
            hit_tokens = min(len(hits) * bs, inp)
            prefill = (inp - hit_tokens) / prefill_rate
            decode = max(out, 0) / decode_rate
            start = max(now, state["prefill_free"])
            state["prefill_free"] = start + prefill
            running.append((start + prefill + decode, a))
            running.sort()
            state["max_running"] = max(state["max_running"], len(running))
            if i >= first:
                state["hit"] += hit_tokens
                state["measured"] += inp
                waits.append(now - t0)

    for i, (t0, inp, out, ids) in enumerate(rows):
        while running and running[0][0] <= t0:
            at = running[0][0]
            release(at)
            try_admit(at)
        if math.ceil((inp + max(out, 0)) / bs) > capacity:
            state["too_large"] += 1
            continue
        waiting.append(i)
        try_admit(t0)
    while waiting and running:
        at = running[0][0]
        release(at)
        try_admit(at)
    waits.sort()
    rank = lambda q: waits[max(1, math.ceil(q * len(waits))) - 1] if waits else 0.0
    return {"hit_tokens": state["hit"], "measured_tokens": state["measured"],
            "evictions": state["evictions"], "too_large": state["too_large"],
            "max_running": state["max_running"], "waiting_p50_s": rank(0.5),
            "waiting_p95_s": rank(0.95), "waited_requests": sum(1 for w in waits if w > 0)}


def load_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            rows.append((o["timestamp"] / 1000.0, o["input_length"], o["output_length"], o["hash_ids"]))
    rows.sort(key=lambda r: r[0])  # stable: ties keep file order
    return rows


def check(trace, tmp, sizes, want_waiting, prefill_rate=10000.0, decode_rate=50.0):
    out = os.path.join(tmp, os.path.basename(trace))
    p = subprocess.run([BIN, "profile", trace, "--format", "mooncake", "-q", "-o", out, "--engine", "vllm",
                        "--capacity-blocks", ",".join(map(str, sizes)),
                        "--prefill-rate", str(prefill_rate), "--decode-rate", str(decode_rate)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    report = json.load(open(out + ".json"))
    rows = load_rows(trace)
    for entry in report["curve"]:
        assert entry["engine"] == "vllm", entry
        ref = reference(rows, entry["capacity_blocks"], prefill_rate, decode_rate)
        for key in ("hit_tokens", "measured_tokens", "evictions", "too_large", "max_running",
                    "waited_requests"):
            assert entry[key] == ref[key], (trace, entry["capacity_blocks"], key, entry[key], ref[key])
        for key in ("waiting_p50_s", "waiting_p95_s"):
            assert abs(entry[key] - ref[key]) <= 1e-9 * max(1.0, ref[key]), (key, entry[key], ref[key])
        if want_waiting:
            assert ref["waited_requests"] > 0, (trace, entry["capacity_blocks"], "no request waited")
        print(f"{os.path.basename(trace)} {entry['capacity_blocks']} blocks: hit {entry['hit_tokens']} "
              f"of {entry['measured_tokens']}, waited {entry['waited_requests']}, p50 {entry['waiting_p50_s']:.3f} s, "
              f"p95 {entry['waiting_p95_s']:.3f} s, evictions {entry['evictions']}, too large {entry['too_large']}")
    return report


def generated(path):
    rng = random.Random(11)
    prefixes = [[rng.randrange(1 << 30) for _ in range(rng.randint(1, 6))] for _ in range(5)]
    with open(path, "w") as f:
        t = 0
        for _ in range(300):
            t += rng.choice([0, 0, 5, 40, 200])  # bursts: several requests at one instant
            ids = list(rng.choice(prefixes)) + [rng.randrange(1 << 30) for _ in range(rng.randint(0, 3))]
            inp = len(ids) * 512 - rng.choice([0, 0, 1, 300])
            f.write(json.dumps({"timestamp": t, "input_length": inp, "output_length": rng.choice([0, 8, 600]),
                                "hash_ids": ids}) + "\n")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "generated.jsonl")
        generated(gen)
        check(gen, tmp, [4, 12, 30, 100], False)
        trace = os.path.join(SHARED, "conversation_trace.jsonl")
        if not SHARED or not os.path.exists(trace):
            print("skipping the Mooncake conversation trace: ../shared/data/conversation_trace.jsonl is absent")
            return 0
        # 3.4 requests/s of 12K prompt tokens: at 100K tokens/s of prefill the engine keeps up, and the
        # pool's size decides the waiting (about 24 requests of ~24 blocks run at once).
        check(trace, tmp, [400, 700, 1500], True, prefill_rate=100000.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
