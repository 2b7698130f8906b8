"""sglang-cache-aware (docs/FLEET.md "Named routers"): `--routes-out` on a generated LiteLLM
spend-logs file compared with an independent implementation written here from the SGLang model
gateway's rules (lightseekorg/smg@73da68ca, model_gateway/src/policies/cache_aware.rs,
crates/kv_index/src/string_tree.rs, crates/protocols/src/chat.rs), over Python strings with a real
character radix tree:
- the text: every non-empty content string, "text" part and assistant reasoning_content, in order,
  joined with single spaces;
- the load: the router's own in-flight requests per worker, each in flight from its startTime to its
  endTime (retired at or before the next arrival); the min-load worker by (load, requests routed to
  it so far, index); imbalanced when max - min > balance_abs_threshold and max >
  balance_rel_threshold x min: the min-load worker, its text inserted for it;
- else match_rate = matched / input characters; above cache_threshold the deepest matched node's
  tenant (a match ending inside an edge counts that child), else the min-load worker; the text
  inserted for the chosen worker; the node's tenant: its cached tenant (set when the node was made:
  a leaf's inserter, a split's from the lower part) while it still holds the node, else the lowest
  index (then cached); each match takes an epoch from a counter, each insert one more, and a match
  whose epoch is a multiple of 8 refreshes the tenant's time on that node;
- eviction before the first request at or after first + k x eviction_interval: per worker its
  least recently used leaves until it holds at most max_tree_size characters (ties: the node
  created first).
Also: the guard fired, routes spread over several workers, the report names the router."""
import datetime
import heapq
import json
import math
import os
import random
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(__file__))
import ltl_test_env as env  # noqa: E402
from router_logs import f32  # noqa: E402


def smg_text(body):
    """ChatCompletionRequest::extract_text_for_routing (chat.rs)."""
    pieces = []

    def content(c):
        if isinstance(c, str):
            pieces.append(c)
        elif isinstance(c, list):
            pieces.extend(p.get("text", "") for p in c if p.get("type") == "text")

    for m in body["messages"]:
        content(m.get("content"))
        if m.get("role") == "assistant" and isinstance(m.get("reasoning_content"), str):
            pieces.append(m["reasoning_content"])
    return " ".join(p for p in pieces if p)


class Node:
    def __init__(self, text, parent, serial):
        self.text = text
        self.parent = parent
        self.children = {}  # first character -> Node
        self.tenants = {}   # worker -> time
        self.cached = None
        self.serial = serial
        self.removed = False


def shared(a, b):
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    return k


class StringTree:
    def __init__(self):
        self.serial = 0
        self.root = Node("", None, 0)
        self.epoch = 0
        self.size = {}

    def node(self, text, parent):
        self.serial += 1
        return Node(text, parent, self.serial)

    def next_epoch(self):
        self.epoch += 1
        return self.epoch - 1

    def match(self, text):
        cur, deepest, matched, pos = self.root, None, 0, 0
        while pos < len(text):
            c = cur.children.get(text[pos])
            if c is None:
                break
            k = shared(text[pos:pos + len(c.text)], c.text)
            matched += k
            deepest = c
            if k < len(c.text):
                break
            pos += k
            cur = c
        epoch = self.next_epoch()
        if deepest is None:
            return matched, None
        if deepest.cached is not None and deepest.cached in deepest.tenants:
            tenant = deepest.cached
        else:
            tenant = min(deepest.tenants)
            deepest.cached = tenant
        if epoch % 8 == 0:
            deepest.tenants[tenant] = epoch
        return matched, tenant

    def insert(self, text, t):
        cur, pos = self.root, 0
        while pos < len(text):
            c = cur.children.get(text[pos])
            if c is None:
                leaf = self.node(text[pos:], cur)
                leaf.cached = t
                leaf.tenants[t] = self.next_epoch()
                self.size[t] = self.size.get(t, 0) + len(leaf.text)
                cur.children[text[pos]] = leaf
                return
            k = shared(text[pos:pos + len(c.text)], c.text)
            if k < len(c.text):
                up = self.node(c.text[:k], cur)
                up.tenants = dict(c.tenants)
                up.cached = c.cached
                c.text = c.text[k:]
                c.parent = up
                up.children[c.text[0]] = c
                cur.children[up.text[0]] = up
                c = up
            if t not in c.tenants:
                c.tenants[t] = 0
                self.size[t] = self.size.get(t, 0) + len(c.text)
            cur = c
            pos += k
        epoch = self.next_epoch()
        if cur is not self.root:
            cur.tenants[t] = epoch

    def nodes(self):
        stack = list(self.root.children.values())
        while stack:
            n = stack.pop()
            yield n
            stack.extend(n.children.values())

    def evict(self, max_size):
        def child_holds(n, t):
            return any(t in c.tenants for c in n.children.values())

        for t in sorted(self.size):
            if self.size[t] <= max_size:
                continue
            heap = [(n.tenants[t], n.serial, n) for n in self.nodes()
                    if t in n.tenants and not child_holds(n, t)]
            heapq.heapify(heap)
            while heap and self.size[t] > max_size:
                _, _, n = heapq.heappop(heap)
                if n.removed or t not in n.tenants or child_holds(n, t):
                    continue
                self.size[t] = max(0, self.size[t] - len(n.text))
                del n.tenants[t]
                parent = n.parent
                if not n.children and not n.tenants:
                    del parent.children[n.text[0]]
                    n.removed = True
                if parent is not self.root and t in parent.tenants and not child_holds(parent, t):
                    heapq.heappush(heap, (parent.tenants[t], parent.serial, parent))


def reference_routes(reqs, workers, threshold=0.3, abs_t=64, rel_t=1.5, interval=120,
                     max_size=1 << 26):
    """reqs: (start s, end s, text) in arrival order -> (workers, guard choices)."""
    tree = StringTree()
    processed = [0] * workers
    running = []  # (finish, worker)
    out, guards = [], 0
    t0 = reqs[0][0]
    next_ev = t0 + interval
    for start, end, text in reqs:
        if interval > 0 and start >= next_ev:
            tree.evict(max_size)
            next_ev = t0 + interval * (math.floor((start - t0) / interval) + 1)
        running = [(f, w) for f, w in running if f > start]
        load = [0] * workers
        for _, w in running:
            load[w] += 1
        lo, hi = min(load), max(load)
        min_w = min(range(workers), key=lambda w: (load[w], processed[w], w))
        if hi - lo > abs_t and f32(hi) > f32(f32(lo) * f32(rel_t)):
            w = min_w
            guards += 1
        else:
            matched, tenant = tree.match(text)
            rate = f32(f32(matched) / f32(len(text))) if text else 0.0
            w = tenant if rate > f32(threshold) and tenant is not None else min_w
        tree.insert(text, w)
        processed[w] += 1
        running.append((end, w))
        out.append(w)
    return out, guards


def generated_calls(seed, conversations=40, turns=6):
    """Chat traffic: shared system prompts (non-ASCII, outside the BMP), conversations resending
    their history with assistant reasoning, list contents, empty and null contents, one-off
    requests, and bursts of long requests on one system prompt. Returns (start ms, duration ms,
    body) in time order: arrivals at ms = 3 (mod 10) after the first at 0 (mod 10), durations
    = 5 (mod 10), so no arrival meets a finish or an eviction time."""
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz éü中文🙂𝄞"

    def words(n):
        return " ".join("".join(rng.choice(alphabet) for _ in range(rng.randint(2, 9)))
                        for _ in range(n))

    systems = [words(rng.randint(30, 150)) for _ in range(4)]
    live = [[{"role": "system", "content": rng.choice(systems)},
             {"role": "user", "content": words(rng.randint(3, 50))}] for _ in range(conversations)]
    turn = [0] * conversations
    pending = list(range(conversations))
    bodies = []
    while pending:
        c = rng.choice(pending)
        msgs = live[c]
        bodies.append(("chat", {"model": "m", "messages": [dict(m) for m in msgs]}))
        if rng.random() < 0.06:
            bodies.append(("one", {"model": "m", "messages": [{"role": "user",
                                                               "content": words(6)}]}))
        if rng.random() < 0.015:  # a burst of long requests on one system prompt
            s = rng.choice(systems)
            for _ in range(rng.randint(12, 20)):
                bodies.append(("burst", {"model": "m", "messages": [
                    {"role": "system", "content": s},
                    {"role": "user", "content": words(rng.randint(2, 6))}]}))
        turn[c] += 1
        if turn[c] >= turns:
            pending.remove(c)
            continue
        kind = rng.random()
        if kind < 0.25:
            msgs.append({"role": "assistant", "content": words(rng.randint(3, 30)),
                         "reasoning_content": words(rng.randint(3, 20))})
        elif kind < 0.4:
            msgs.append({"role": "assistant", "content": None,
                         "tool_calls": [{"id": "t", "type": "function",
                                         "function": {"name": "f", "arguments": "{}"}}]})
            msgs.append({"role": "tool", "tool_call_id": "t", "content": words(rng.randint(5, 40))})
        elif kind < 0.5:
            msgs.append({"role": "assistant", "content": ""})
            msgs.append({"role": "user", "content": [{"type": "text", "text": words(8)},
                                                     {"type": "text", "text": ""},
                                                     {"type": "image_url",
                                                      "image_url": {"url": "http://x/y.png"}},
                                                     {"type": "text", "text": words(3)}]})
        else:
            msgs.append({"role": "assistant", "content": words(rng.randint(5, 40))})
        msgs.append({"role": "user", "content": words(rng.randint(3, 30))})
    calls = []
    ms = 0
    for i, (kind, body) in enumerate(bodies):
        if i > 0:
            ms = (ms // 10 + (rng.randint(1, 5) if kind == "burst" else rng.randint(20, 300))) * 10 + 3
        dur = rng.randint(500, 1500) * 10 + 5 if kind == "burst" else rng.randint(20, 900) * 10 + 5
        calls.append((ms, dur, body))
    return calls


BASE = 1753351200


def pg_time(ms):
    t = datetime.datetime.fromtimestamp(BASE + ms // 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (ms % 1000)


def spendlogs(calls):
    lines = []
    for ms, dur, body in calls:
        lines.append(json.dumps({"request_id": str(uuid.UUID(int=len(lines) + 1)),
                                 "startTime": pg_time(ms), "endTime": pg_time(ms + dur),
                                 "model": "m", "status": "success",
                                 "proxy_server_request": json.dumps(body, ensure_ascii=False)},
                                ensure_ascii=False))
    return "\n".join(lines) + "\n"


class SglangRouter(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()

    def run_routes(self, log, workers, params):
        routes = os.path.join(self.dir, "routes.jsonl")
        cmd = ["profile", log, "-o", os.path.join(self.dir, "rep"), "--workers", str(workers),
               "--routing", "sglang-cache-aware", "--per-worker-capacity-blocks", "64,unbounded",
               "--routes-out", routes]
        for k, v in params.items():
            cmd += ["--router-param", f"sglang-cache-aware.{k}={v}"]
        r = env.run(cmd)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(routes, encoding="utf-8") as f:
            got = [json.loads(line) for line in f]
        with open(os.path.join(self.dir, "rep.json"), encoding="utf-8") as f:
            pol = json.load(f)["fleet"]["policies"][0]
        return r, got, pol

    def test_matches_an_independent_implementation(self):
        calls = generated_calls(seed=7)
        self.assertGreater(len(calls), 250)
        log = os.path.join(self.dir, "spend.jsonl")
        with open(log, "w", encoding="utf-8") as f:
            f.write(spendlogs(calls))
        reqs = [(ms / 1000, (ms + dur) / 1000, smg_text(b)) for ms, dur, b in calls]
        cases = [(4, {"balance_abs_threshold": 3, "balance_rel_threshold": 1.5}),
                 (3, {"balance_abs_threshold": 2, "eviction_interval": 7, "max_tree_size": 1500}),
                 (8, {"cache_threshold": 0.5, "balance_abs_threshold": 4,
                      "balance_rel_threshold": 1.2})]
        for workers, params in cases:
            r, got, pol = self.run_routes(log, workers, params)
            ref = {"threshold": params.get("cache_threshold", 0.3),
                   "abs_t": params.get("balance_abs_threshold", 64),
                   "rel_t": params.get("balance_rel_threshold", 1.5),
                   "interval": params.get("eviction_interval", 120),
                   "max_size": params.get("max_tree_size", 1 << 26)}
            expected, guards = reference_routes(reqs, workers, **ref)
            self.assertEqual(len(got), 2 * len(calls))
            for cap in (64, None):
                mine = [x for x in got if x["per_worker_capacity_blocks"] == cap]
                self.assertEqual([x["request"] for x in mine], list(range(len(calls))))
                same = sum(1 for x, w in zip(mine, expected) if x["worker"] == w)
                print(f"{workers} workers {params}: {same} of {len(calls)} routes identical, "
                      f"{guards} guard choices")
                self.assertGreaterEqual(same, 0.99 * len(calls))
            self.assertGreater(guards, 0)
            self.assertGreater(len(set(expected)), 1)
            self.assertEqual(pol["router"]["requests_without_text"], 0)
            self.assertIn("smg@73da68ca", pol["router"]["source"])
            self.assertIn("sglang-cache-aware: matches characters", r.stdout)
            for p in pol["points"]:
                self.assertEqual(p["guard_triggers"], guards)

    def test_hashed_trace_routes_on_block_ids(self):
        lines = [json.dumps({"timestamp": i * 1000, "input_length": 1536, "output_length": 10,
                             "hash_ids": [1, 2, 100 + i]}) for i in range(20)]
        trace = os.path.join(self.dir, "t.jsonl")
        with open(trace, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        r, got, pol = self.run_routes(trace, 3, {})
        self.assertEqual(pol["router"]["requests_without_text"], 20)
        self.assertIn("sglang-cache-aware: 20 of 20 requests have no prompt text", r.stdout)
        # Blocks 1, 2 of 3 shared: match rate 2/3 > 0.3 after the first request, which went to
        # the min-load worker 0; every later one follows it.
        self.assertEqual({x["worker"] for x in got}, {0})


if __name__ == "__main__":
    unittest.main()
