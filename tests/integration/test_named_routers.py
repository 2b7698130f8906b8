"""Named routers (docs/FLEET.md "Named routers"): `--routes-out` of vllm-router-prefix on a generated
chat log compared with an independent implementation written here from production-stack's rules
(vllm-project/production-stack@a6c01db0, routing_logic.py PrefixAwareRouter and
prefix/hashtrie.py): the prompt is the message contents joined with "\\n" (a list content's text
parts joined with " ", a null content left out, a missing one as ""), cut into 128-character chunks
(Python str indexing, the last one partial), a trie of chunks whose nodes hold the workers a prompt
through them was sent to, the longest walk while some worker holds the next chunk (the intersection
of holders), a draw among the holders (all workers at no match) — the draw as the tool documents
it: one SplitMix64 step per request from --seed, candidates in index order, index (draw x n) >> 64 —
and insertion at routing time, no eviction. The trie here is a dict of tuples of chunk strings, not
the tool's chained digests. Also: --routes-out's format for generic policies, --router-param's
errors, the QPS fallback of vllm-router-session, and hashed traces routed on block ids."""
import json
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ltl_test_env as env  # noqa: E402
import router_logs  # noqa: E402
from router_logs import M64, splitmix_finalizer  # noqa: E402


def prompt_of(body):
    """PrefixAwareRouter.route_request's prompt."""
    if "messages" in body:
        parts = []
        for m in body["messages"]:
            content = m.get("content", "")
            if isinstance(content, list):
                parts.append(" ".join(p.get("text", "") for p in content if p.get("type") == "text"))
            elif content is not None:
                parts.append(content)
        return "\n".join(parts)
    return body["prompt"]


def reference_routes(bodies, workers, seed, chunk=128):
    trie = {}  # path (tuple of chunk strings) -> set of workers
    state = seed
    out = []
    for body in bodies:
        text = prompt_of(body)
        chunks = [text[i:i + chunk] for i in range(0, len(text), chunk)]
        selected = set(range(workers))
        for k in range(len(chunks)):
            holders = trie.get(tuple(chunks[:k + 1]))
            if not holders or not (holders & selected):
                break
            selected = holders & selected
        state = (state + 0x9e3779b97f4a7c15) & M64
        draw = splitmix_finalizer(state)
        best = sorted(selected)
        w = best[(draw * len(best)) >> 64]
        out.append(w)
        for k in range(len(chunks)):
            trie.setdefault(tuple(chunks[:k + 1]), set()).add(w)
    return out


def generated_log(seed, conversations=60, turns=8):
    """Agentic-looking chat traffic: a few shared system prompts (some with non-ASCII text and
    characters outside the BMP), conversations resending their history, list contents, tool calls
    with null contents, the odd message without content, and one-off requests. Returns the
    bodies in time order."""
    bodies, _ = router_logs.chat_bodies(random.Random(seed), conversations, turns,
                                        "abcdefghijklmnopqrstuvwxyz éü中文🙂",
                                        lengths=router_logs.LONG_TURNS)
    return bodies


def csv_text(bodies, sessions=None):
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["ts", "request_json"] + (["session_id"] if sessions else []))
    for i, b in enumerate(bodies):
        row = [str(1753351200 + i), json.dumps(b, ensure_ascii=False)]
        if sessions:
            row.append(sessions[i])
        w.writerow(row)
    return buf.getvalue()


class NamedRouters(unittest.TestCase):
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

    def test_vllm_router_prefix_matches_an_independent_implementation(self):
        bodies = generated_log(seed=11)
        self.assertGreater(len(bodies), 450)
        log = self.write("chat.csv", csv_text(bodies))
        routes = os.path.join(self.dir, "routes.jsonl")
        for workers, seed in ((4, 7), (8, 1)):
            r = env.run(["profile", log, "-o", os.path.join(self.dir, "rep"), "--workers",
                         str(workers), "--routing", "vllm-router-prefix", "--seed", str(seed),
                         "--per-worker-capacity-blocks", "64,unbounded", "--routes-out", routes])
            self.assertEqual(r.returncode, 0, r.stderr)
            got = self.routes(routes)
            self.assertEqual(len(got), 2 * len(bodies))
            expected = reference_routes(bodies, workers, seed)
            for cap in (64, None):
                mine = [x for x in got if x["per_worker_capacity_blocks"] == cap]
                self.assertEqual([x["request"] for x in mine], list(range(len(bodies))))
                self.assertTrue(all(x["policy"] == "vllm-router-prefix" for x in mine))
                same = sum(1 for x, w in zip(mine, expected) if x["worker"] == w)
                print(f"{workers} workers, seed {seed}: {same} of {len(bodies)} routes identical")
                self.assertGreaterEqual(same, 0.99 * len(bodies))
            # More than one worker used, and requests sharing history follow it.
            self.assertGreater(len(set(expected)), 1)
            with open(os.path.join(self.dir, "rep.json"), encoding="utf-8") as f:
                fleet = json.load(f)["fleet"]
            pol = fleet["policies"][0]
            self.assertEqual(pol["router"]["requests_without_text"], 0)
            self.assertEqual(pol["router"]["params"],
                             {"prefix_min_match_length": 0, "request_stats_window": 60})
            self.assertIn("production-stack@a6c01db0", pol["router"]["source"])
            self.assertIn("vllm-router-prefix: matches 128-character chunks", r.stdout)

    def test_routes_out_of_generic_policies(self):
        bodies = generated_log(seed=3, conversations=10, turns=3)
        log = self.write("chat.csv", csv_text(bodies))
        routes = os.path.join(self.dir, "routes.jsonl")
        r = env.run(["profile", log, "--workers", "3", "--routing", "round-robin,prefix-aware",
                     "--per-worker-capacity-blocks", "8,unbounded", "--routes-out", routes,
                     "-o", os.path.join(self.dir, "rep")])
        self.assertEqual(r.returncode, 0, r.stderr)
        got = self.routes(routes)
        n = len(bodies)
        self.assertEqual(len(got), 4 * n)
        rr = [x for x in got if x["policy"] == "round-robin"]
        self.assertEqual([x["worker"] for x in rr], [i % 3 for i in range(n)] * 2)
        self.assertEqual([x["per_worker_capacity_blocks"] for x in rr], [8] * n + [None] * n)
        pa = [x for x in got if x["policy"] == "prefix-aware"]
        self.assertEqual([x["request"] for x in pa], list(range(n)) * 2)
        self.assertTrue(all(0 <= x["worker"] < 3 for x in pa))
        self.assertEqual(set(got[0]), {"policy", "per_worker_capacity_blocks", "request", "worker"})
        # No temporary file left beside it.
        self.assertEqual(sorted(os.listdir(self.dir)),
                         ["chat.csv", "rep.html", "rep.json", "routes.jsonl"])
        self.assertIn("routes.jsonl", r.stdout.strip().splitlines()[-1])

    def test_router_param_errors_list_what_is_valid(self):
        log = self.write("chat.csv", csv_text(generated_log(seed=5, conversations=3, turns=2)))
        base = ["profile", log, "--workers", "2", "--routing", "vllm-router-prefix",
                "-o", os.path.join(self.dir, "rep")]
        r = env.run(base + ["--router-param", "llm-d.prefix_weight=2"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown router 'llm-d' (routers with parameters: "
                      "vllm-router-prefix (prefix_min_match_length, request_stats_window), "
                      "vllm-router-session (request_stats_window), dynamo-kv (", r.stderr)
        self.assertIn("sglang-cache-aware (cache_threshold, balance_abs_threshold, "
                      "balance_rel_threshold, eviction_interval, max_tree_size, tokens)", r.stderr)
        r = env.run(base + ["--router-param", "sglang-cache-aware.cache_threshold=0.5"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("sglang-cache-aware is not among --routing", r.stderr)
        r = env.run(base + ["--router-param", "vllm-router-prefix.chunk_size=64"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown parameter 'chunk_size' of vllm-router-prefix (valid: "
                      "prefix_min_match_length, request_stats_window)", r.stderr)
        r = env.run(base + ["--router-param", "vllm-router-session.request_stats_window=10"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("vllm-router-session is not among --routing", r.stderr)
        r = env.run(base + ["--router-param", "vllm-router-prefix.prefix_min_match_length=abc"])
        self.assertEqual(r.returncode, 2)
        r = env.run(["profile", log, "--routes-out", os.path.join(self.dir, "x.jsonl"),
                     "-o", os.path.join(self.dir, "rep")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--workers", r.stderr)
        r = env.run(base + ["--router-param", "vllm-router-prefix.prefix_min_match_length=100000",
                            "--router-param", "vllm-router-prefix.request_stats_window=5"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("vllm-router-prefix (prefix_min_match_length=100000, request_stats_window=5)",
                      r.stdout)

    def test_vllm_router_session_hashes_sessions_and_falls_back_to_lowest_qps(self):
        bodies = [{"messages": [{"role": "user", "content": f"q{i}"}]} for i in range(40)]
        sessions = [f"s{i % 5}" if i % 4 else "" for i in range(40)]
        log = self.write("s.csv", csv_text(bodies, sessions))
        routes = os.path.join(self.dir, "routes.jsonl")
        r = env.run(["profile", log, "--workers", "4", "--routing", "vllm-router-session",
                     "--per-worker-capacity-blocks", "unbounded", "--routes-out", routes,
                     "-o", os.path.join(self.dir, "rep")])
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [x["worker"] for x in self.routes(routes)]
        by_session = {}
        for i, s in enumerate(sessions):
            if s:
                by_session.setdefault(s, set()).add(got[i])
        self.assertTrue(all(len(ws) == 1 for ws in by_session.values()), by_session)
        self.assertIn("10 of 40 requests had no session id and were routed to the lowest-QPS "
                      "worker", r.stdout)
        # The lowest-QPS fallback, written again: a worker never sent a request first, else the
        # fewest sent in the last 60 s (times 1 s apart), ties to the lowest index.
        sent = [[] for _ in range(4)]
        for i, w in enumerate(got):
            if not sessions[i]:
                now = i
                never = [k for k in range(4) if not sent[k]]
                if never:
                    want = never[0]
                else:
                    counts = [sum(1 for t in sent[k] if t >= now - 60) for k in range(4)]
                    want = counts.index(min(counts))
                self.assertEqual(w, want, i)
            sent[w].append(i)

    def test_hashed_trace_routes_on_block_ids_and_says_so(self):
        lines = []
        for i in range(30):
            lines.append(json.dumps({"timestamp": i * 1000, "input_length": 1536,
                                     "output_length": 10, "hash_ids": [1, 2, 100 + i]}))
        trace = self.write("t.jsonl", "\n".join(lines) + "\n")
        r = env.run(["profile", trace, "--workers", "3", "--routing", "named",
                     "-o", os.path.join(self.dir, "rep")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("vllm-router-prefix: 30 of 30 requests have no prompt text (hashed trace or "
                      "shard): routed on their block ids", r.stdout)
        self.assertIn("no request carried a session id; all 30 routed to the lowest-QPS worker",
                      r.stdout)
        with open(os.path.join(self.dir, "rep.json"), encoding="utf-8") as f:
            pols = json.load(f)["fleet"]["policies"]
        self.assertEqual([p["policy"] for p in pols][:2],
                         ["vllm-router-prefix", "vllm-router-session"])
        self.assertEqual(pols[0]["router"]["requests_without_text"], 30)
        sglang = [p for p in pols if p["policy"] == "sglang-cache-aware"]
        self.assertEqual(sglang[0]["router"]["requests_without_text"], 30)


if __name__ == "__main__":
    unittest.main()
