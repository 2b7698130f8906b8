"""aibrix-prefix (docs/FLEET.md "Named routers"): `--routes-out` on a generated LiteLLM log with
logged durations (startTime/endTime) compared with an independent implementation written here from
AIBrix's rules (vllm-project/aibrix@e3e10f9e: pkg/plugins/gateway/util.go parseChatMessages,
algorithms/prefix_cache.go, least_request.go, util.go, pkg/utils/prefixcacheindexer/hash.go,
pkg/utils/lrustore/lru_store.go): the message is the message contents joined with single spaces (a
string unquoted, any other content as its compact JSON, a missing one as ""); its UTF-8 bytes cut
into blocks of block_size bytes, a partial last block left out; one LRU of blocks for the whole
gateway (block_number entries, an entry = the pods its block was routed to and its last put time;
lookups do not refresh it), entries last put more than eviction_duration_mins ago dropped at each
eviction tick (the first request's time + k x eviction_interval_seconds); running requests = the
requests routed to a pod still in flight for their logged duration; if max - min running >
pod_running_request_imbalance_abs_count only the pods at the minimum are candidates; matching
walks the blocks keeping the candidates that hold each one, a holder's percent = (k + 1) x 100 //
blocks; the matched pods shuffled (Go's rand.Shuffle), stable-sorted by percent descending then
running ascending, the first with running <= mean + factor x the sample standard deviation of all
pods' running counts wins, else a pod drawn among those with the fewest running; every block put
for the chosen pod at routing time. The draws as the tool documents them: one SplitMix64 stream
from --seed, taken only when there is a choice. The index here is a dict over a trie of block
byte strings, not the tool's digests."""
import collections
import json
import math
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ltl_test_env as env  # noqa: E402
import router_logs  # noqa: E402
from router_logs import M64, f32, splitmix_finalizer  # noqa: E402



def message_of(body):
    """parseChatMessages: the routing context's message."""
    parts = []
    for m in body["messages"]:
        if "content" not in m:
            parts.append("")
        elif isinstance(m["content"], str):
            parts.append(m["content"])
        else:
            parts.append(json.dumps(m["content"], ensure_ascii=False, separators=(",", ":")))
    return " ".join(parts)


def reference_routes(calls, workers, seed, block_size=4, block_number=200000,
                     eviction_duration_mins=20, eviction_interval_seconds=1,
                     pod_running_request_imbalance_abs_count=8, standard_deviation_factor=1):
    ttl = eviction_duration_mins * 60
    interval = eviction_interval_seconds
    imbalance = pod_running_request_imbalance_abs_count
    factor = standard_deviation_factor
    trie = {}     # (parent node, block bytes) -> node: a prefix of blocks, by its bytes
    store = collections.OrderedDict()  # node -> [set of pods, last put time]; oldest first
    in_flight = []  # (finish, pod)
    state = [seed]
    first = calls[0]["t"]
    out, guards = [], 0

    def below(n):
        state[0] = (state[0] + 0x9e3779b97f4a7c15) & M64
        return (splitmix_finalizer(state[0]) * n) >> 64

    for c in calls:
        now = c["t"]
        in_flight = [(f, w) for f, w in in_flight if f > now]
        running = [0] * workers
        for _, w in in_flight:
            running[w] += 1
        tick = first + math.floor((now - first) / interval) * interval
        while store and tick - next(iter(store.values()))[1] > ttl:
            store.popitem(last=False)
        data = message_of(c["body"]).encode("utf-8")
        nodes, parent = [], None
        for k in range(len(data) // block_size):
            parent = trie.setdefault((parent, data[k * block_size:(k + 1) * block_size]),
                                     len(trie))
            nodes.append(parent)
        lo, hi = min(running), max(running)
        imbalanced = hi - lo > imbalance
        guards += imbalanced
        cands = {w for w in range(workers) if not imbalanced or running[w] == lo}
        percent = {}
        for k, node in enumerate(nodes):
            entry = store.get(node)
            if entry is None or not (entry[0] & cands):
                break
            cands = entry[0] & cands
            for w in cands:
                percent[w] = (k + 1) * 100 // len(nodes)
        chosen = None
        matched = sorted(percent)
        if matched:
            for j in range(len(matched) - 1, 0, -1):
                k = below(j + 1)
                matched[j], matched[k] = matched[k], matched[j]
            matched.sort(key=lambda w: (-percent[w], running[w]))
            mean = sum(running) / workers
            sd = 0.0
            if workers > 1:
                squares = 0.0
                for x in running:
                    squares += (x - mean) * (x - mean)
                sd = math.sqrt(squares / (workers - 1))
            for w in matched:
                if running[w] <= mean + factor * sd:
                    chosen = w
                    break
        if chosen is None:
            ties = [w for w in range(workers) if running[w] == lo]
            chosen = ties[0] if len(ties) == 1 else ties[below(len(ties))]
        for node in nodes:
            if node in store:
                store[node][0].add(chosen)
                store[node][1] = now
                store.move_to_end(node)
            else:
                store[node] = [{chosen}, now]
                if len(store) > block_number:
                    store.popitem(last=False)
        in_flight.append((now + f32(c["d"]), chosen))
        out.append(chosen)
    return out, guards


def generated_calls(seed, conversations=70, turns=7):
    """Chat traffic in bursts: shared system prompts (with non-ASCII text, so blocks split
    characters), conversations resending their history, list contents, tool calls with null
    contents, messages without content, one-off requests; calls a quarter second apart inside a
    burst, one system prompt's conversations running for minutes and the rest for seconds (the
    imbalance rule trips), bursts of 40 separated by quiet stretches of seconds or about 20 minutes
    (entries expire). Times and durations are multiples of 1/4 s."""
    rng = random.Random(seed)
    bodies, systems = router_logs.chat_bodies(rng, conversations, turns,
                                              "abcdefghijklmnopqrstuvwxyz éü中文🙂")

    def duration(body):
        # The first system prompt's conversations run long (100 to 400 s), the rest 1 to 10 s: the
        # pods their prefix draws them to stay busy while the others drain.
        slow = body["messages"][0].get("content") == systems[0]
        return 0.25 * (rng.randint(400, 1600) if slow else rng.randint(4, 40))

    # quiet stretches: some entries outlive them, some not
    return router_logs.bursty_calls(rng, bodies, burst=40, quiet_s=[10, 15, 1100, 1300],
                                    duration=duration)


class AibrixPrefix(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()

    def write(self, name, text):
        p = os.path.join(self.dir, name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        return p

    def routes(self, path):
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def test_routes_match_an_independent_implementation(self):
        calls = generated_calls(seed=21)
        self.assertGreater(len(calls), 450)
        log = self.write("payload.jsonl", router_logs.litellm_payload_jsonl(calls))
        routes = os.path.join(self.dir, "routes.jsonl")
        runs = [(4, 7, {}), (8, 1, {"block_number": 3000}),
                (4, 3, {"block_size": 16, "pod_running_request_imbalance_abs_count": 3,
                        "standard_deviation_factor": 0, "eviction_duration_mins": 10})]
        total_guards = 0
        for workers, seed, params in runs:
            args = ["profile", log, "-o", os.path.join(self.dir, "rep"), "--workers",
                    str(workers), "--routing", "aibrix-prefix", "--seed", str(seed),
                    "--per-worker-capacity-blocks", "64,unbounded", "--routes-out", routes]
            for k, v in params.items():
                args += ["--router-param", f"aibrix-prefix.{k}={v}"]
            r = env.run(args)
            self.assertEqual(r.returncode, 0, r.stderr)
            got = self.routes(routes)
            self.assertEqual(len(got), 2 * len(calls))
            expected, guards = reference_routes(calls, workers, seed, **params)
            for cap in (64, None):
                mine = [x for x in got if x["per_worker_capacity_blocks"] == cap]
                self.assertEqual([x["request"] for x in mine], list(range(len(calls))))
                self.assertTrue(all(x["policy"] == "aibrix-prefix" for x in mine))
                same = sum(1 for x, w in zip(mine, expected) if x["worker"] == w)
                print(f"{workers} workers, seed {seed}, {params}: {same} of {len(calls)} routes "
                      f"identical; imbalance rule on {guards}")
                self.assertGreaterEqual(same, 0.99 * len(calls))
            total_guards += guards
            self.assertGreater(len(set(expected)), 1)
            with open(os.path.join(self.dir, "rep.json"), encoding="utf-8") as f:
                pol = json.load(f)["fleet"]["policies"][0]
            self.assertEqual(pol["router"]["requests_without_text"], 0)
            self.assertIn("aibrix@e3e10f9e", pol["router"]["source"])
            for k, v in params.items():
                self.assertEqual(pol["router"]["params"][k], v)
            # The view line names the block size the view was cut at (report and terminal).
            view = f"matches {params.get('block_size', 4)}-byte blocks of the message contents"
            self.assertIn(view, pol["router"]["view"])
            self.assertIn(f"aibrix-prefix: {view}", r.stdout)
        self.assertGreater(total_guards, 20)  # the imbalance rule was exercised

    def test_hashed_trace_routes_on_block_ids_and_says_so(self):
        lines = [json.dumps({"timestamp": i * 1000, "input_length": 1536, "output_length": 10,
                             "hash_ids": [1, 2, 100 + i]}) for i in range(30)]
        trace = self.write("t.jsonl", "\n".join(lines) + "\n")
        routes = os.path.join(self.dir, "routes.jsonl")
        r = env.run(["profile", trace, "--workers", "3", "--routing", "aibrix-prefix",
                     "--per-worker-capacity-blocks", "unbounded", "--routes-out", routes,
                     "-o", os.path.join(self.dir, "rep")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("aibrix-prefix: 30 of 30 requests have no prompt text", r.stdout)
        # One request in flight at a time (the load model's 0.35 s against 1 s apart): the first
        # goes to a drawn pod, every later one matches blocks 1, 2 on it.
        got = [x["worker"] for x in self.routes(routes)]
        self.assertEqual(len(set(got)), 1, got)


if __name__ == "__main__":
    unittest.main()
