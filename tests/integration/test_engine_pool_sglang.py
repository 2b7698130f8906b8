"""`profile --engine sglang`: the curve's single cache (and each worker's) becomes SGLang's radix cache
as a KV pool shared with running requests (docs/SEMANTICS.md "Engine KV pool"). Hit tokens, waiting
times and evictions are compared with an independent implementation written here from the rules (not
from the C++): a pool of C blocks holding a tree of blocks (a block is a node under the block before
it) and the running requests' blocks outside the tree; a FIFO waiting queue blocked by its head; the
hit is the leading run of full prompt blocks found along the tree, at most floor((input - 1) / B);
the head is admitted when its new blocks, ceil((input + output) / B) - hit, fit the free blocks plus
the unlocked tree blocks off its own path; the hit path is stamped (an access clock, head first) and
locked; when fewer blocks are free than it needs, that many unlocked leaves are evicted, least
recently stamped first (a parent becomes a leaf when its last child goes); its remaining full prompt
blocks then enter the tree (or, already there, are stamped), locked; at completion the path is stamped
again, the output's full blocks are added under it as blocks of its own, everything else it held is
freed and the path unlocked. Durations from the load model (prefill queue); completions at an instant
before admissions and arrivals; requests larger than the pool skipped. On a generated trace always,
with round-robin workers too; on the Mooncake conversation trace at three pool sizes where requests
wait when ../shared/data is present."""
import heapq
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from collections import deque

BIN = os.environ["LTL_BINARY"]
SHARED = os.environ.get("LTL_SHARED_DATA", "")


class Tree:
    """The radix tree of blocks with the pool's accounting."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.children = {}  # (parent node or None, block id) -> node
        self.parent, self.kids, self.locks, self.stamp, self.key = {}, {}, {}, {}, {}
        self.next_node = 0
        self.clock = 0
        self.outside = 0  # blocks running requests hold outside the tree
        self.evictions = 0
        self.leaves = []  # (stamp, node), checked when popped

    def free(self):
        return self.capacity - len(self.parent) - self.outside

    def evictable(self):
        return sum(1 for n in self.parent if self.locks[n] == 0)

    def touch(self, n):
        self.clock += 1
        self.stamp[n] = self.clock
        heapq.heappush(self.leaves, (self.clock, n))

    def add(self, parent, block):
        n = self.next_node
        self.next_node += 1
        self.parent[n], self.kids[n], self.locks[n], self.key[n] = parent, 0, 0, (parent, block)
        if block is not None:
            self.children[(parent, block)] = n
        if parent is not None:
            self.kids[parent] += 1
        self.touch(n)
        return n

    def evict(self, count):
        done = 0
        while done < count and self.leaves:
            t, n = heapq.heappop(self.leaves)
            if n not in self.parent or self.kids[n] or self.locks[n] or self.stamp[n] != t:
                continue
            p = self.parent.pop(n)
            self.children.pop(self.key[n], None)
            if p is not None:
                self.kids[p] -= 1
                if self.kids[p] == 0:
                    heapq.heappush(self.leaves, (self.stamp[p], p))
            self.evictions += 1
            done += 1

    def unlock(self, n):
        self.locks[n] -= 1
        if self.locks[n] == 0 and self.kids[n] == 0:
            heapq.heappush(self.leaves, (self.stamp[n], n))


def reference(rows, capacity, prefill_rate, decode_rate, bs=512, warmup=0.5, max_seqs=256, measured=None):
    """rows: (time_s, input, output, hash_ids) in replay order; measured[i]: row i is measured (default:
    those after the warm-up share). Returns the figures per pool."""
    tree = Tree(capacity)
    held = {}  # admission number -> (path, blocks outside the tree, output blocks)
    running = []  # (finish, admission number), kept sorted
    waiting = deque()
    state = {"prefill_free": -1e300, "admitted": 0, "hit": 0, "measured": 0, "too_large": 0,
             "max_running": 0}
    waits = []
    if measured is None:
        measured = [i >= int(len(rows) * warmup) for i in range(len(rows))]

    def release(upto):
        while running and running[0][0] <= upto:
            _, a = running.pop(0)
            path, outside, outputs = held.pop(a)
            for n in path:
                tree.touch(n)
            at = path[-1] if path else None
            for _ in range(outputs):
                at = tree.add(at, None)
            tree.outside -= outside
            for n in path:
                tree.unlock(n)

    def try_admit(now):
        while waiting:
            release(now)
            i = waiting[0]
            t0, inp, out, ids = rows[i]
            full = min(len(ids), inp // bs)
            cap = min(full, (inp - 1) // bs if inp > 0 else 0)
            path, at = [], None
            for b in ids[:cap]:
                if (at, b) not in tree.children:
                    break
                at = tree.children[(at, b)]
                path.append(at)
            need = max(math.ceil((inp + max(out, 0)) / bs) - len(path), 0)
            room = tree.free() + tree.evictable() - sum(1 for n in path if tree.locks[n] == 0)
            if len(running) >= max_seqs or need > room:
                if running and running[0][0] <= now:
                    continue
                return
            waiting.popleft()
            hit = len(path)
            for n in path:
                tree.touch(n)
            for n in path:
                tree.locks[n] += 1
            if tree.free() < need:
                tree.evict(need)
            tree.outside += need
            outside = need
            for b in ids[hit:full]:
                n = tree.children.get((at, b))
                if n is None:
                    n = tree.add(at, b)
                else:
                    tree.touch(n)
                tree.locks[n] += 1
                path.append(n)
                tree.outside -= 1
                outside -= 1
                at = n
            outputs = (inp + max(out, 0)) // bs - full
            a = state["admitted"]
            state["admitted"] += 1
            held[a] = (path, outside, max(outputs, 0))
            hit_tokens = min(hit * bs, inp)
            prefill = (inp - hit_tokens) / prefill_rate
            decode = max(out, 0) / decode_rate
            start = max(now, state["prefill_free"])
            state["prefill_free"] = start + prefill
            running.append((start + prefill + decode, a))
            running.sort()
            state["max_running"] = max(state["max_running"], len(running))
            if measured[i]:
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
            "evictions": tree.evictions, "too_large": state["too_large"],
            "max_running": state["max_running"], "waiting_p50_s": rank(0.5),
            "waiting_p95_s": rank(0.95), "waited_requests": sum(1 for w in waits if w > 0),
            "waits": waits}


def load_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            rows.append((o["timestamp"] / 1000.0, o["input_length"], o["output_length"], o["hash_ids"]))
    rows.sort(key=lambda r: r[0])  # stable: ties keep file order
    return rows


def profile(trace, out, extra):
    p = subprocess.run([BIN, "profile", trace, "--format", "mooncake", "-q", "-o", out, "--engine", "sglang"]
                       + extra, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.load(open(out + ".json"))


def check(trace, tmp, sizes, want_waiting, prefill_rate=10000.0, decode_rate=50.0):
    out = os.path.join(tmp, os.path.basename(trace))
    report = profile(trace, out, ["--capacity-blocks", ",".join(map(str, sizes)),
                                  "--prefill-rate", str(prefill_rate), "--decode-rate", str(decode_rate)])
    rows = load_rows(trace)
    for entry in report["curve"]:
        assert entry["engine"] == "sglang", entry
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


def check_round_robin(trace, tmp, per_worker, workers=2, prefill_rate=10000.0, decode_rate=50.0):
    """--workers N --policy round-robin: request k goes to worker k mod N and each worker replays its
    requests through its own pool (its own queue and prefill queue); the warm-up share is counted on
    the whole trace."""
    out = os.path.join(tmp, "rr-" + os.path.basename(trace))
    report = profile(trace, out, ["--workers", str(workers), "--routing", "round-robin",
                                  "--per-worker-capacity-blocks", str(per_worker),
                                  "--prefill-rate", str(prefill_rate), "--decode-rate", str(decode_rate)])
    assert report["fleet"]["settings"]["engine"] == "sglang", report["fleet"]["settings"]
    rows = load_rows(trace)
    first = int(len(rows) * 0.5)
    hit = measured = evictions = 0
    for w in range(workers):
        mine = [k for k in range(len(rows)) if k % workers == w]
        ref = reference([rows[k] for k in mine], per_worker, prefill_rate, decode_rate,
                        measured=[k >= first for k in mine])
        hit += ref["hit_tokens"]
        measured += ref["measured_tokens"]
        evictions += ref["evictions"]
    policy = next(p for p in report["fleet"]["policies"] if p["policy"] == "round-robin")
    point = policy["points"][0]
    assert point["hit_tokens"] == hit, (point["hit_tokens"], hit)
    assert point["measured_tokens"] == measured, (point["measured_tokens"], measured)
    assert point["evictions"] == evictions, (point["evictions"], evictions)
    print(f"round-robin x{workers} at {per_worker} blocks each: hit {hit} of {measured}, evictions {evictions}")


def generated(path):
    rng = random.Random(11)
    prefixes = [[rng.randrange(1 << 30) for _ in range(rng.randint(1, 6))] for _ in range(5)]
    with open(path, "w") as f:
        t = 0
        for _ in range(300):
            t += rng.choice([0, 0, 5, 40, 200])  # bursts: several requests at one instant
            ids = list(rng.choice(prefixes)) + [rng.randrange(1 << 30) for _ in range(rng.randint(0, 3))]
            inp = len(ids) * 512 - rng.choice([0, 0, 1, 300])
            f.write(json.dumps({"timestamp": t, "input_length": inp, "output_length": rng.choice([0, 8, 600, 1100]),
                                "hash_ids": ids}) + "\n")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "generated.jsonl")
        generated(gen)
        check(gen, tmp, [4, 12, 30, 100], False)
        check_round_robin(gen, tmp, 12)
        trace = os.path.join(SHARED, "conversation_trace.jsonl")
        if not SHARED or not os.path.exists(trace):
            print("skipping the Mooncake conversation trace: ../shared/data/conversation_trace.jsonl is absent")
            return 0
        # As for --engine vllm (test_engine_pool.py): at 100K tokens/s of prefill the pool's size
        # decides the waiting.
        check(trace, tmp, [400, 700, 1500], True, prefill_rate=100000.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
