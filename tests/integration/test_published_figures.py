"""The replay engine against the figures published for the Mooncake conversation trace (see
../shared/data/README.md): unbounded steady-state 39.8%, cold 37.4%, AIPerf analyze-trace
0.38425808746366197, and the kvcache simulator's LRU curve at 30, 1,937, 7,729 and 30,918 blocks."""
import json
import os
import unittest

import ltl_test_env as env

TRACE = env.shared("conversation_trace.jsonl")


class PublishedFigures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(env.tempdir(), "report")
        r = env.run(["profile", TRACE, "--format", "mooncake", "-o", cls.out,
                     "--capacity-blocks", "30,1937,7729,30918"], check=True)
        cls.stdout = r.stdout
        with open(cls.out + ".json") as f:
            cls.report = json.load(f)

    def test_ceilings(self):
        self.assertEqual(round(self.report["ceiling"]["hit_rate"] * 100, 1), 39.8)
        self.assertEqual(round(self.report["cold_ceiling"]["hit_rate"] * 100, 1), 37.4)
        self.assertIn("39.8%  <- ceiling", self.stdout)

    def test_aiperf_figure(self):
        self.assertAlmostEqual(self.report["aiperf_cache_hit_rate"], 0.38425808746366197,
                               delta=1e-12)

    def test_lru_curve_matches_kvcache_simulator(self):
        got = {e["capacity_blocks"]: round(e["hit_rate"] * 100, 1) for e in self.report["curve"]}
        self.assertEqual(got, {30: 4.5, 1937: 5.5, 7729: 17.9, 30918: 34.6})

    def test_counts(self):
        self.assertEqual(self.report["counts"]["requests"], 12031)
        self.assertEqual(self.report["counts"]["skipped"], 0)
        self.assertEqual(self.report["replay"]["block_size"], 512)
        self.assertIn("12,031 requests", self.stdout)
        self.assertIn("input p50 6,909 tok · output p50 350 tok", self.stdout)


if __name__ == "__main__":
    if TRACE is None:
        env.skip("../shared/data/conversation_trace.jsonl is absent")
    unittest.main()
