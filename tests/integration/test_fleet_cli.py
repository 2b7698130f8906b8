"""The fleet options of `profile` on small hashed traces: report.json's fleet object, the session
fallback on a trace without conversations, the session routing on a Bailian trace with them, N = 1
against the single-cache curve, and one-line errors for bad fleet arguments."""
import json
import os
import unittest

import ltl_test_env as env


def mooncake_lines(n=40):
    # Requests sharing a 2-block prefix (bs 512); each adds one block of its own.
    lines = []
    for i in range(n):
        lines.append(json.dumps({"timestamp": i * 500, "input_length": 1536, "output_length": 10,
                                 "hash_ids": [1, 2, 100 + i]}))
    return "\n".join(lines) + "\n"


def bailian_lines():
    # Six conversations of four turns each, interleaved; every turn resends the history.
    lines = []
    chat = 1
    for c in range(6):
        hist = []
        parent = -1
        for k in range(4):
            hist += [1000 * (c + 1) + k]
            lines.append((c + 10.0 * k, json.dumps({
                "chat_id": chat, "parent_chat_id": parent, "timestamp": c + 10.0 * k,
                "input_length": 16 * len(hist), "output_length": 5, "type": "text",
                "turn": k + 1, "hash_ids": hist})))
            parent = chat
            chat += 1
    lines.sort(key=lambda x: x[0])
    return "\n".join(line for _, line in lines) + "\n"


class FleetCli(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()

    def write(self, name, content):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write(content)
        return p

    def profile(self, args):
        out = os.path.join(self.dir, "report")
        r = env.run(["profile"] + args + ["-o", out, "-q"])
        report = None
        if os.path.exists(out + ".json"):
            with open(out + ".json") as f:
                report = json.load(f)
        return r, report

    def test_fleet_object_and_session_fallback(self):
        trace = self.write("t.jsonl", mooncake_lines())
        r, rep = self.profile([trace, "--workers", "4", "--per-worker-capacity",
                               "1K,2K,unbounded"])
        self.assertEqual(r.returncode, 0, r.stderr)
        fleet = rep["fleet"]
        self.assertEqual(fleet["workers"], 4)
        self.assertEqual([p["policy"] for p in fleet["policies"]],
                         ["round-robin", "random", "session", "prefix-hash", "prefix-aware",
                          "kv-cost", "least-loaded"])
        caps = fleet["capacities"]
        self.assertEqual([c["per_worker_capacity_blocks"] for c in caps], [2, 4, None])
        self.assertEqual([c["pooled_capacity_tokens"] for c in caps], [4096, 8192, None])
        self.assertTrue(caps[2]["unbounded"])
        self.assertEqual(caps[2]["pooled_hit_rate"], fleet["ceiling"]["hit_rate"])
        by = {p["policy"]: p for p in fleet["policies"]}
        # No conversations: session routes every request round-robin and says so.
        self.assertEqual(by["session"]["fallback_requests"], 40)
        self.assertEqual([p["hit_tokens"] for p in by["session"]["points"]],
                         [p["hit_tokens"] for p in by["round-robin"]["points"]])
        self.assertIn("session: no request carried a session id; all 40 routed round-robin",
                      r.stdout)
        # Round-robin: 20 measured requests spread 5 per worker; the shared prefix (2 blocks of
        # 512) hits on every measured request once warm, and nothing else ever repeats.
        rr = by["round-robin"]["points"][2]
        self.assertEqual(rr["requests_per_worker"], [5, 5, 5, 5])
        self.assertEqual(rr["requests_cv"], 0)
        self.assertEqual(rr["hit_tokens"], 20 * 1024)
        self.assertEqual(rr["measured_tokens"], 20 * 1536)
        self.assertIn("guard_triggers", by["prefix-aware"]["points"][0])
        self.assertIn("fleet of 4 workers", r.stdout)

    def test_one_worker_equals_the_single_cache_curve(self):
        trace = self.write("t.jsonl", mooncake_lines())
        r, rep = self.profile([trace, "--capacity-blocks", "1,2,3,50", "--workers", "1"])
        self.assertEqual(r.returncode, 0, r.stderr)
        single = [e["hit_tokens"] for e in rep["curve"]]
        for p in rep["fleet"]["policies"]:
            self.assertEqual([q["hit_tokens"] for q in p["points"]], single, p["policy"])

    def test_session_routing_keeps_conversations_whole(self):
        trace = self.write("b.jsonl", bailian_lines())
        r, rep = self.profile([trace, "--format", "bailian", "--warmup", "0", "--workers", "4",
                               "--per-worker-capacity", "unbounded", "--routing",
                               "session,round-robin"])
        self.assertEqual(r.returncode, 0, r.stderr)
        by = {p["policy"]: p for p in rep["fleet"]["policies"]}
        self.assertEqual(by["session"]["fallback_requests"], 0)
        # Every turn after the first hits its whole history: 6 conversations x (1+2+3) blocks.
        self.assertEqual(by["session"]["points"][0]["hit_tokens"], 6 * 6 * 16)
        self.assertEqual(by["session"]["points"][0]["hit_tokens"],
                         rep["ceiling"]["same_conv_tokens"])
        self.assertLess(by["round-robin"]["points"][0]["hit_tokens"],
                        by["session"]["points"][0]["hit_tokens"])

    def test_sizes_in_gib(self):
        # 64 KiB per token x 512-token blocks = 32 MiB per block: 1 GiB = 32 blocks,
        # 0.1 GiB = floor(3.2) = 3 blocks; pooled = 4 x per worker.
        trace = self.write("t.jsonl", mooncake_lines())
        r, rep = self.profile([trace, "--workers", "4", "--kv-bytes-per-token", "65536",
                               "--per-worker-capacity-gib", "0.1,1", "--routing", "round-robin"])
        self.assertEqual(r.returncode, 0, r.stderr)
        caps = rep["fleet"]["capacities"]
        self.assertEqual([c["per_worker_capacity_blocks"] for c in caps], [3, 32])
        self.assertEqual([c["pooled_capacity_blocks"] for c in caps], [12, 128])
        self.assertAlmostEqual(caps[1]["per_worker_capacity_gib"], 1.0)
        self.assertAlmostEqual(caps[1]["pooled_capacity_gib"], 4.0)
        self.assertEqual(rep["fleet"]["settings"]["kv_bytes_per_token"], 65536)
        self.assertIn("1 GiB", r.stdout)
        r, _ = self.profile([trace, "--workers", "4", "--per-worker-capacity-gib", "1"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--per-worker-capacity-gib needs the KV size per token", r.stderr)

    def test_bad_fleet_arguments(self):
        trace = self.write("t.jsonl", mooncake_lines())
        r, _ = self.profile([trace, "--workers", "2", "--routing", "round-robin,sticky"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--routing: unknown routing policy 'sticky'", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)
        r, _ = self.profile([trace, "--routing", "session"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--workers", r.stderr)
        r, _ = self.profile([trace, "--workers", "2", "--per-worker-capacity", "0"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--per-worker-capacity", r.stderr)
        r, _ = self.profile([trace, "--workers", "0"])
        self.assertEqual(r.returncode, 2)
        # Worker eviction policies: any registered one, by name; optimal needs the future, which a
        # cache-aware router decides as it goes.
        r, _ = self.profile([trace, "--workers", "2", "--worker-policy", "arc"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--worker-policy: unknown eviction policy 'arc' (registered: fifo, lru, "
                      "radix-lru, optimal, sieve)", r.stderr)
        r, _ = self.profile([trace, "--workers", "2", "--worker-policy", "optimal",
                             "--routing", "round-robin,prefix-aware"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("prefix-aware", r.stderr)
        r, _ = self.profile([trace, "--policies", "lru,arc"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("registered: fifo, lru, radix-lru, optimal, sieve", r.stderr)

    def test_worker_policy_is_reported_and_changes_the_workers(self):
        trace = self.write("t.jsonl", mooncake_lines())
        args = [trace, "--workers", "2", "--routing", "round-robin", "--per-worker-capacity-blocks",
                "2,3"]
        r, lru = self.profile(args)
        self.assertEqual(r.returncode, 0, r.stderr)
        r, fifo = self.profile(args + ["--worker-policy", "fifo"])
        self.assertEqual(r.returncode, 0, r.stderr)
        r, opt = self.profile(args + ["--worker-policy", "optimal"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(lru["fleet"]["settings"]["worker_policy"], "lru")
        self.assertEqual(fifo["fleet"]["settings"]["worker_policy"], "fifo")
        self.assertEqual(opt["fleet"]["settings"]["worker_policy"], "optimal")
        hits = [[p["hit_tokens"] for p in rep["fleet"]["policies"][0]["points"]]
                for rep in (lru, fifo, opt)]
        # Round-robin over 2 workers: each worker gets every other request, [1, 2, own] (512-token
        # blocks); the last 10 of each worker's 20 are measured. Worked by hand:
        # - LRU (tail-first) keeps {1, 2} at 2 blocks and {1, 2, last own} at 3: every measured
        #   request hits 1,024 tokens (20 x 1,024).
        # - FIFO at 2 blocks always holds {2, own} when the next request arrives: no hit. At 3 it
        #   alternates {1, 2, own} (hit 1,024) and {2, own, own'} (none): the worker's requests
        #   11, 13, ..., 19 hit, 5 each.
        # - optimal bypasses the private blocks and keeps {1, 2}: 20 x 1,024 at both sizes.
        self.assertEqual(hits, [[20480, 20480], [0, 10240], [20480, 20480]])


if __name__ == "__main__":
    unittest.main()
