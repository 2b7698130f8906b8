"""Fleets on the public Mooncake conversation trace (8 workers, every routing policy): the bounds
are ordered as they must be — no policy above the ceiling, the pooled cache monotone in size and
reaching the ceiling when unbounded — session routing falls back to round-robin for every request
(the trace carries no conversations), and prefix-aware routing beats round-robin."""
import json
import os
import re
import unittest

import ltl_test_env as env

TRACE = env.shared("conversation_trace.jsonl")


class FleetConversationTrace(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(env.tempdir(), "report")
        r = env.run(["profile", TRACE, "--format", "mooncake", "-o", cls.out, "-q",
                     "--workers", "8", "--per-worker-capacity", "64K,256K,1M,4M,16M,unbounded"],
                    check=True)
        cls.stdout = r.stdout
        with open(cls.out + ".json") as f:
            cls.report = json.load(f)
        cls.fleet = cls.report["fleet"]

    def test_bounds_are_ordered(self):
        ceiling = self.fleet["ceiling"]["hit_tokens"]
        self.assertEqual(ceiling, self.report["ceiling"]["hit_tokens"])
        self.assertEqual(round(self.fleet["ceiling"]["hit_rate"] * 100, 1), 39.8)
        pooled = [c["pooled_hit_tokens"] for c in self.fleet["capacities"]]
        self.assertEqual(pooled, sorted(pooled))
        self.assertEqual(pooled[-1], ceiling)
        self.assertLess(pooled[0], ceiling)
        for p in self.fleet["policies"]:
            for q in p["points"]:
                self.assertLessEqual(q["hit_tokens"], ceiling, p["policy"])
                self.assertEqual(q["measured_tokens"], self.report["fleet"]["measured_tokens"])
                self.assertEqual(sum(q["requests_per_worker"]), self.fleet["measured_requests"])

    def test_cache_oblivious_policies_are_monotone_in_size(self):
        # Per-worker LRU is a stack algorithm, so a routing fixed in advance gains with size.
        for p in self.fleet["policies"]:
            if p["cache_aware"]:
                continue
            hits = [q["hit_tokens"] for q in p["points"]]
            self.assertEqual(hits, sorted(hits), p["policy"])

    def test_session_falls_back_for_every_request(self):
        by = {p["policy"]: p for p in self.fleet["policies"]}
        self.assertEqual(by["session"]["fallback_requests"], 12031)
        self.assertEqual(by["session"]["points"], by["round-robin"]["points"])
        self.assertIn("no request carried a session id", self.stdout)

    def test_prefix_aware_beats_round_robin(self):
        by = {p["policy"]: p for p in self.fleet["policies"]}
        for pa, rr in zip(by["prefix-aware"]["points"], by["round-robin"]["points"]):
            self.assertGreaterEqual(pa["hit_tokens"], rr["hit_tokens"])
        self.assertGreater(by["prefix-aware"]["points"][-1]["hit_rate"],
                           by["round-robin"]["points"][-1]["hit_rate"] + 0.1)

    def test_report_html_draws_every_policy_and_both_bounds(self):
        with open(self.out + ".html", encoding="utf-8") as f:
            page = f.read()
        chart = page[page.index('<svg id="fleet-chart"'):]
        chart = chart[:chart.index("</svg>")]
        names = re.findall(r'class="fleet-series" data-policy="([^"]+)" points="([^"]+)"', chart)
        self.assertEqual([n for n, _ in names], [p["policy"] for p in self.fleet["policies"]])
        for _, pts in names:
            self.assertEqual(len(pts.split()), len(self.fleet["capacities"]))
        self.assertEqual(chart.count('class="fleet-pooled"'), 1)
        self.assertEqual(chart.count('<line class="ceiling"'), 1)
        self.assertIn("ceiling 39.8%", chart)


if __name__ == "__main__":
    if TRACE is None:
        env.skip("../shared/data/conversation_trace.jsonl is absent")
    unittest.main()
