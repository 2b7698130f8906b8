"""llm-d-prefix (docs/FLEET.md "Named routers"): `--routes-out` on a generated LiteLLM log with
logged durations (startTime/endTime) compared with an independent implementation written here from
the llm-d inference scheduler's rules (llm-d/llm-d-inference-scheduler@520af478:
dataproducer/approximateprefix hashing.go, indexer.go, plugin.go; scheduling/scorer/prefix,
loadaware; picker/maxscore; requesthandling/types.go): the bytes hashed are Go's json.Marshal of
the messages parsed as llm-d's Message type — per message {"role":..., "content":...} in that order,
role left out when empty, every other field dropped, a string content as itself, a missing or null
one as "", a list as its blocks {"type","text" (left out when empty),"image_url":{"url"},
"input_audio":{"data","format"},"video_url":{"url"}} (inner fields left out when empty) — compact,
with Go's escaping (<, >, & as \\u003c \\u003e \\u0026, U+2028/9 escaped, \\b \\f \\n \\r \\t short,
other control bytes \\u00xx); cut into 64-byte chunks, the last one partial, the input first cut at
maxPrefixBlocksToMatch x 64 bytes, no chunks under 64 bytes; each pod an LRU of lruCapacityPerServer
chunks and one map chunk -> holders; PreRequest at routing time adds the chunks to the chosen pod's
LRU (evictions drop the pod from the evicted chunk's holders), then the pod to every chunk's
holders; a request's match walks its chunks while some pod holds the chunk, each holder counting
it; q = the pod's requests in flight for their logged duration; scores prefix = count / chunks (0
without chunks), load-aware = 0.5 at q = 0 else 0.5 x (1 - min(q, threshold) / threshold); weights
`estimate` prefix 1 + load-aware 1, `default` prefix 2; the pods shuffled (Fisher-Yates from the
last, with the tool's documented draws: one SplitMix64 stream from --seed, n - 1 draws a request)
and the first of the highest score wins. The index here keys chunks by their byte prefix (a trie),
not the tool's keyed digests. (`gie` adds kv-util, which reads the tool's in-flight token blocks:
unit-tested, not here.)"""
import collections
import json
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ltl_test_env as env  # noqa: E402
import router_logs  # noqa: E402
from router_logs import M64, f32, splitmix_finalizer  # noqa: E402

HEX = "0123456789abcdef"


def go_string(s):
    """encoding/json's string encoder with HTML escaping on."""
    out = ['"']
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
             "\t": "\\t"}
    for ch in s:
        o = ord(ch)
        if ch in short:
            out.append(short[ch])
        elif o < 0x20 or ch in "<>&":
            out.append("\\u00" + HEX[o >> 4] + HEX[o & 15])
        elif o in (0x2028, 0x2029):
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def go_fields(pairs):
    return "{" + ",".join(go_string(k) + ":" + v for k, v in pairs) + "}"


def go_inner(obj, names):
    obj = obj or {}
    return go_fields([(n, go_string(obj[n])) for n in names if obj.get(n)])


def user_input(messages):
    """json.Marshal(ChatCompletions.Messages) as llm-d parses them."""
    items = []
    for m in messages:
        pairs = []
        if m.get("role"):
            pairs.append(("role", go_string(m["role"])))
        c = m.get("content")
        if isinstance(c, list):
            blocks = []
            for b in c:
                bp = [("type", go_string(b.get("type") or ""))]
                if b.get("text"):
                    bp.append(("text", go_string(b["text"])))
                bp.append(("image_url", go_inner(b.get("image_url"), ["url"])))
                bp.append(("input_audio", go_inner(b.get("input_audio"), ["data", "format"])))
                bp.append(("video_url", go_inner(b.get("video_url"), ["url"])))
                blocks.append(go_fields(bp))
            pairs.append(("content", "[" + ",".join(blocks) + "]"))
        else:
            pairs.append(("content", go_string(c or "")))
        items.append(go_fields(pairs))
    return ("[" + ",".join(items) + "]").encode("utf-8")


def reference_routes(calls, workers, seed, config="estimate", lruCapacityPerServer=31250,
                     maxPrefixBlocksToMatch=256, threshold=128):
    trie = {}  # (parent node, chunk bytes) -> node: a chunk by its whole byte prefix
    lrus = [collections.OrderedDict() for _ in range(workers)]  # oldest first
    holders = {}  # node -> set of pods
    in_flight = []  # (finish, pod)
    state = [seed]
    out = []

    def below(n):
        state[0] = (state[0] + 0x9e3779b97f4a7c15) & M64
        return (splitmix_finalizer(state[0]) * n) >> 64

    for c in calls:
        now = c["t"]
        in_flight = [(f, w) for f, w in in_flight if f > now]
        q = [0] * workers
        for _, w in in_flight:
            q[w] += 1
        data = user_input(c["body"]["messages"])
        nodes = []
        if len(data) >= 64:
            data = data[:maxPrefixBlocksToMatch * 64]
            parent = None
            for i in range(0, len(data), 64):
                parent = trie.setdefault((parent, data[i:i + 64]), len(trie))
                nodes.append(parent)
        count = [0] * workers
        for node in nodes:
            hs = holders.get(node)
            if not hs:
                break
            for w in hs:
                count[w] += 1
        scores = []
        for w in range(workers):
            prefix = count[w] / len(nodes) if nodes else 0.0
            load = 0.5 if q[w] == 0 else 0.5 * (1.0 - min(q[w], threshold) / threshold)
            if config == "estimate":
                scores.append(0.0 + prefix * 1.0 + load * 1.0)
            else:
                scores.append(0.0 + prefix * 2.0)
        order = list(range(workers))
        for j in range(workers - 1, 0, -1):
            k = below(j + 1)
            order[j], order[k] = order[k], order[j]
        chosen = order[0]
        for w in order:
            if scores[w] > scores[chosen]:
                chosen = w
        lru = lrus[chosen]
        for node in nodes:
            if node in lru:
                lru.move_to_end(node)
                continue
            lru[node] = True
            if len(lru) > lruCapacityPerServer:
                old, _ = lru.popitem(last=False)
                hs = holders.get(old)
                if hs is not None:
                    hs.discard(chosen)
                    if not hs:
                        del holders[old]
        for node in nodes:
            holders.setdefault(node, set()).add(chosen)
        in_flight.append((now + f32(c["d"]), chosen))
        out.append(chosen)
    return out


def generated_calls(seed, conversations=60, turns=7):
    """Chat traffic: shared system prompts with text Go escapes (<, >, &, U+2028, control bytes)
    and non-ASCII text (chunks split characters), conversations resending their history, list
    contents with image blocks, tool calls with null contents, messages without content (the tool
    skips rows with a message without a role: an empty role is unit-tested),
    short one-off requests (under one chunk); calls a quarter second apart, durations of 1 to 60 s
    so queues build up, quiet stretches between bursts."""
    rng = random.Random(seed)
    bodies, _ = router_logs.chat_bodies(rng, conversations, turns,
                                        "abcdefghijklmnopqrstuvwxyz <>&éü中文🙂\u2028\x01\t\n\"",
                                        image_url="http://x/y.png?a&b")
    return router_logs.bursty_calls(rng, bodies, burst=50, quiet_s=[5, 30, 90],
                                    duration=lambda body: 0.25 * rng.randint(4, 240))


class LlmdPrefix(unittest.TestCase):
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
        calls = generated_calls(seed=33)
        self.assertGreater(len(calls), 350)
        log = self.write("payload.jsonl", router_logs.litellm_payload_jsonl(calls))
        routes = os.path.join(self.dir, "routes.jsonl")
        runs = [(4, 7, {}), (8, 1, {"config": "default"}),
                (4, 3, {"lruCapacityPerServer": 300, "maxPrefixBlocksToMatch": 8,
                        "threshold": 4})]
        for workers, seed, params in runs:
            args = ["profile", log, "-o", os.path.join(self.dir, "rep"), "--workers",
                    str(workers), "--routing", "llm-d-prefix", "--seed", str(seed),
                    "--per-worker-capacity-blocks", "64,unbounded", "--routes-out", routes]
            for k, v in params.items():
                args += ["--router-param", f"llm-d-prefix.{k}={v}"]
            r = env.run(args)
            self.assertEqual(r.returncode, 0, r.stderr)
            got = self.routes(routes)
            self.assertEqual(len(got), 2 * len(calls))
            expected = reference_routes(calls, workers, seed, **params)
            for cap in (64, None):
                mine = [x for x in got if x["per_worker_capacity_blocks"] == cap]
                self.assertEqual([x["request"] for x in mine], list(range(len(calls))))
                self.assertTrue(all(x["policy"] == "llm-d-prefix" for x in mine))
                same = sum(1 for x, w in zip(mine, expected) if x["worker"] == w)
                print(f"{workers} workers, seed {seed}, {params}: {same} of {len(calls)} routes "
                      f"identical")
                self.assertGreaterEqual(same, 0.99 * len(calls))
            self.assertGreater(len(set(expected)), 1)
            with open(os.path.join(self.dir, "rep.json"), encoding="utf-8") as f:
                pol = json.load(f)["fleet"]["policies"][0]
            self.assertEqual(pol["router"]["requests_without_text"], 0)
            self.assertIn("llm-d-inference-scheduler@520af478", pol["router"]["source"])

    def test_hashed_trace_routes_on_block_ids_and_says_so(self):
        lines = [json.dumps({"timestamp": i * 1000, "input_length": 1536, "output_length": 10,
                             "hash_ids": [1, 2, 100 + i]}) for i in range(30)]
        trace = self.write("t.jsonl", "\n".join(lines) + "\n")
        routes = os.path.join(self.dir, "routes.jsonl")
        r = env.run(["profile", trace, "--workers", "3", "--routing", "llm-d-prefix",
                     "--per-worker-capacity-blocks", "unbounded", "--routes-out", routes,
                     "-o", os.path.join(self.dir, "rep")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("llm-d-prefix: 30 of 30 requests have no prompt text", r.stdout)
        # One request in flight at a time: the first goes to a shuffled pod, every later one
        # matches blocks 1, 2 there (2/3 + 0.5 against 0.5).
        got = [x["worker"] for x in self.routes(routes)]
        self.assertEqual(len(set(got)), 1, got)

    def test_config_names(self):
        trace = self.write("t.jsonl", json.dumps({"timestamp": 0, "input_length": 16,
                                                  "output_length": 1, "hash_ids": [1]}) + "\n")
        r = env.run(["profile", trace, "--workers", "2", "--routing", "llm-d-prefix",
                     "--router-param", "llm-d-prefix.config=precise", "-o",
                     os.path.join(self.dir, "rep")])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("estimate, default, gie", r.stderr)


if __name__ == "__main__":
    unittest.main()
