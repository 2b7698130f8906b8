"""dynamo-kv (NVIDIA Dynamo's KV router, docs/FLEET.md "Named routers"): `--routes-out` on a
generated hashed trace compared with an independent implementation written here from the
documented rules (ai-dynamo/dynamo@01690d42 lib/kv-router/src/scheduling/selector.rs, config.rs
defaults, approx.rs's TTL index): logit = prefill_load_scale x max(0, (active prefill tokens +
isl) / block size - overlap_score_credit x overlap) + (active blocks + the request's blocks beyond
its leading run among them) + decode_active_request_weight x active requests over the request's
full blocks; the lowest wins, ties drawn as the tool documents it (one SplitMix64 step per request
from --seed, tied workers in index order, index (draw x n) >> 64; with router_temperature > 0 a
softmax draw). The overlap is the worker's
cached prefix (KV events; at unbounded capacity every block a worker was sent) or, with
use_kv_events=0, the blocks the router sent there in the last 120 s. Active load: a request's
prefill tokens (isl - overlap x block size) until its first token, its blocks and itself until
it finishes, with the fleet's load model (prefill queue at --prefill-rate, then output tokens at
--decode-rate) giving both times. The workers here are Python sets and dicts, not the tool's
classes. Also: every request routed once per capacity, and use_kv_events=0 changing routes where
turns come back after the TTL."""
import heapq
import math
import json
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ltl_test_env as env  # noqa: E402
from router_logs import M64, splitmix_finalizer  # noqa: E402

BS = 512  # Mooncake traces


def generated_trace(seed, conversations=40, gap_s=(2, 40)):
    """Multi-turn conversations over a few shared system prompts (hash ids), each turn resending
    its history plus new blocks, some with a partial last block; turns gap_s seconds apart."""
    rng = random.Random(seed)
    systems = [[1000 * (s + 1) + j for j in range(rng.randint(2, 6))] for s in range(4)]
    next_id = 1 << 20
    reqs = []
    for _ in range(conversations):
        hist = list(rng.choice(systems))
        t = rng.uniform(0, 300)
        for _ in range(rng.randint(1, 6)):
            for _ in range(rng.randint(1, 4)):
                hist.append(next_id)
                next_id += 1
            tail = rng.choice([0, 0, 100, 511])
            reqs.append({"timestamp": int(t * 1000), "input_length": len(hist) * BS - tail,
                         "output_length": rng.randint(10, 400), "hash_ids": list(hist)})
            t += rng.uniform(*gap_s)
    reqs.sort(key=lambda r: r["timestamp"])  # stable: file order breaks ties, as the tool does
    return reqs


def pick(logits, temperature, draw):
    """Temperature 0: the minimum, ties tied[(draw x n) >> 64] in index order. Above 0: p ∝
    exp(-(logit - min) / ((max - min) x T)) (uniform when all are equal), u = (draw >> 11) / 2^53
    against the cumulative probabilities in index order."""
    lo, hi = min(logits), max(logits)
    if temperature == 0:
        tied = [w for w, x in enumerate(logits) if x == lo]
        return tied[(draw * len(tied)) >> 64]
    if lo == hi:
        p = [1.0 / len(logits)] * len(logits)
    else:
        scale = -1.0 / ((hi - lo) * temperature)
        p = [math.exp(x * scale - lo * scale) for x in logits]
    total = sum(p)
    u = (draw >> 11) * 2.0 ** -53
    cumulative = 0.0
    for w, x in enumerate(p):
        cumulative += x / total
        if u <= cumulative:
            return w
    return len(p) - 1


def reference_routes(reqs, workers, seed, events=True, credit=1.0, scale=1.0, weight=0.0,
                     ttl=120.0, temperature=0.0, prefill_rate=10000.0, decode_rate=50.0):
    caches = [set() for _ in range(workers)]  # unbounded workers keep every block they were sent
    index = [{} for _ in range(workers)]  # use_kv_events=0: block -> expiry
    prefill_free = [0.0] * workers
    active_tokens = [0] * workers
    active_reqs = [0] * workers
    active_blocks = [{} for _ in range(workers)]  # block -> requests holding it
    pending = []
    state = seed
    out = []
    for k, r in enumerate(reqs):
        now = r["timestamp"] / 1000.0
        while pending and pending[0][0] <= now:
            _, _, kind, w, payload = heapq.heappop(pending)
            if kind == "first":
                active_tokens[w] -= payload
            else:
                active_reqs[w] -= 1
                for b in payload:
                    active_blocks[w][b] -= 1
                    if active_blocks[w][b] == 0:
                        del active_blocks[w][b]
        ids, isl = r["hash_ids"], r["input_length"]
        full = ids[:min(len(ids), isl // BS)]
        n = len(full)

        def lead(held):
            m = 0
            while m < len(ids) and held(ids[m]):
                m += 1
            return m

        match = [lead(lambda b, w=w: b in caches[w]) for w in range(workers)]
        overlap = []
        for w in range(workers):
            if not events:
                overlap.append(min(lead(lambda b, w=w: index[w].get(b, -1.0) > now), n))
            elif credit > 0:
                overlap.append(min(match[w], n))
            else:
                overlap.append(0)
        logits = []
        for w in range(workers):
            cached = overlap[w] * BS
            uncached = isl - min(cached, isl)
            raw = (active_tokens[w] + uncached + cached) / BS
            prefill = scale * max(0.0, raw - credit * overlap[w])
            shared = min(lead(lambda b, w=w: b in active_blocks[w]), n)
            logits.append(prefill + float(len(active_blocks[w]) + n - shared)
                          + weight * float(active_reqs[w]))
        state = (state + 0x9e3779b97f4a7c15) & M64
        draw = splitmix_finalizer(state)
        w = pick(logits, temperature, draw)
        out.append(w)
        if not events:
            for b in full:
                index[w][b] = now + ttl
        prefill_tokens = isl - min(overlap[w] * BS, isl)
        # The fleet: the worker's cache and the load model.
        hit = min(match[w] * BS, isl)
        caches[w].update(ids)
        start = max(now, prefill_free[w])
        first = start + (isl - hit) / prefill_rate
        prefill_free[w] = first
        finish = first + r["output_length"] / decode_rate
        active_tokens[w] += prefill_tokens
        active_reqs[w] += 1
        for b in full:
            active_blocks[w][b] = active_blocks[w].get(b, 0) + 1
        heapq.heappush(pending, (first, 2 * k, "first", w, prefill_tokens))
        heapq.heappush(pending, (finish, 2 * k + 1, "finish", w, full))
    return out


class DynamoRouter(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()

    def write(self, name, reqs):
        p = os.path.join(self.dir, name)
        with open(p, "w", encoding="utf-8") as f:
            for r in reqs:
                f.write(json.dumps(r) + "\n")
        return p

    def routes(self, args):
        path = os.path.join(self.dir, "routes.jsonl")
        r = env.run(args + ["--routes-out", path, "-o", os.path.join(self.dir, "rep")])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path, encoding="utf-8") as f:
            return r, [json.loads(line) for line in f]

    def check_against_reference(self, reqs, trace, workers, seed, params, **kw):
        args = ["profile", trace, "--workers", str(workers), "--routing", "dynamo-kv",
                "--seed", str(seed), "--per-worker-capacity-blocks", "16,unbounded"]
        for p in params:
            args += ["--router-param", "dynamo-kv." + p]
        r, got = self.routes(args)
        self.assertEqual(len(got), 2 * len(reqs))
        for cap in (16, None):
            mine = [x for x in got if x["per_worker_capacity_blocks"] == cap]
            self.assertEqual([x["request"] for x in mine], list(range(len(reqs))))
            self.assertTrue(all(x["policy"] == "dynamo-kv" and 0 <= x["worker"] < workers
                                for x in mine))
        mine = [x["worker"] for x in got if x["per_worker_capacity_blocks"] is None]
        expected = reference_routes(reqs, workers, seed, **kw)
        same = sum(1 for a, b in zip(mine, expected) if a == b)
        print(f"dynamo-kv {workers} workers, seed {seed}, {params}: {same} of {len(reqs)} routes "
              "identical")
        self.assertEqual(mine, expected)
        self.assertGreater(len(set(expected)), 1)
        return r, mine

    def test_matches_an_independent_implementation(self):
        reqs = generated_trace(seed=5)
        self.assertGreater(len(reqs), 100)
        trace = self.write("t.jsonl", reqs)
        r, _ = self.check_against_reference(reqs, trace, 4, 1, [])
        with open(os.path.join(self.dir, "rep.json"), encoding="utf-8") as f:
            pol = json.load(f)["fleet"]["policies"][0]
        self.assertIn("ai-dynamo/dynamo@01690d42", pol["router"]["source"])
        self.assertEqual(pol["router"]["params"],
                         {"prefill_load_scale": 1, "overlap_score_credit": 1,
                          "decode_active_request_weight": 0, "router_temperature": 0,
                          "use_kv_events": 1, "router_ttl_secs": 120})
        self.assertIn("dynamo-kv: matches the request's full token blocks", r.stdout)
        self.check_against_reference(reqs, trace, 3, 9,
                                     ["overlap_score_credit=0.5", "prefill_load_scale=2",
                                      "decode_active_request_weight=4"],
                                     credit=0.5, scale=2.0, weight=4.0)
        self.check_against_reference(reqs, trace, 4, 2, ["router_temperature=0.5"],
                                     temperature=0.5)

    def test_without_kv_events_the_ttl_index_changes_routes(self):
        # Turns 60 to 400 s apart: many come back after the router's 120 s TTL.
        reqs = generated_trace(seed=8, conversations=30, gap_s=(60, 400))
        trace = self.write("t.jsonl", reqs)
        _, with_events = self.check_against_reference(reqs, trace, 4, 3, [])
        _, without = self.check_against_reference(reqs, trace, 4, 3, ["use_kv_events=0"],
                                                  events=False)
        differ = sum(1 for a, b in zip(with_events, without) if a != b)
        print(f"use_kv_events=0 changed {differ} of {len(reqs)} routes")
        self.assertGreater(differ, 0)
        _, short = self.check_against_reference(reqs, trace, 4, 3,
                                                 ["use_kv_events=0", "router_ttl_secs=30"],
                                                 events=False, ttl=30.0)
        self.assertNotEqual(short, without)


if __name__ == "__main__":
    unittest.main()
