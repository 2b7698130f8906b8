"""Cache busters against the generator's truth (tests/integration/cache_buster_logs.py): each log
has ONE injected cause; the profile must name that cause as the top buster, place it in the right
segment (and, for the clock, at the right token), and its lost tokens must be within 2% of what
the generator computed with its own rendering, blocks and unbounded cache. The what-if ceiling
without the top cause must equal the profile of the generator's log without the cause."""
import json
import os
import unittest

import cache_buster_logs as gen
import ltl_test_env as env


class CacheBusters(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.salt = os.path.join(self.dir, "salt")

    def profile(self, name, rows, fixed=False, extra=(), sessions=True):
        path = os.path.join(self.dir, name + (".fixed" if fixed else "") + ".csv")
        gen.write_csv(path, rows, fixed=fixed, sessions=sessions)
        out = os.path.join(self.dir, name + ("-fixed" if fixed else ""))
        r = env.run(["profile", path, "-o", out, "--salt-file", self.salt, *extra])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out + ".json") as f:
            return json.load(f), r.stdout

    def diagnose(self, name):
        rows, extra = gen.scenario(name)
        truth = gen.truth(rows)
        rep, stdout = self.profile(name, rows)
        self.assertIn("cache_busters", rep)
        b = rep["cache_busters"]
        self.assertEqual(b["requests"], len(rows))
        return rows, extra, truth, rep, b, stdout

    def top(self, b):
        busters = [c for c in b["causes"] if not c["natural"]]
        self.assertTrue(busters, b)
        return busters[0]

    def assert_lost(self, cause, truth):
        self.assertGreater(truth["lost_tokens"], 0)
        self.assertLessEqual(abs(cause["lost_tokens"] - truth["lost_tokens"]),
                             0.02 * truth["lost_tokens"], (cause, truth))

    def test_clock_in_one_apps_system_prompt(self):
        rows, extra, truth, rep, b, stdout = self.diagnose("clock")
        c = self.top(b)
        self.assertEqual(c["cause"], "volatile_text")
        self.assertEqual(c["position"]["segment"], "system prompt")
        # The break is at the block holding the clock: at most one block (16 tokens) before it.
        clock_token = (extra["clock_char"]) // 4
        self.assertLessEqual(c["position"]["token_offset"], clock_token)
        self.assertGreaterEqual(c["position"]["token_offset"], clock_token - 16)
        self.assert_lost(c, truth)
        self.assertEqual(c["requests"], truth["injected"] - 1)  # the app's first request: none
        self.assertIn("Cache buster: a timestamp-like value", stdout)
        self.assertTrue(any("timestamp-like" in f for f in rep["findings"]))
        # What-if: the ceiling without the clock is the profile of the log without it.
        fixed, _ = self.profile("clock", rows, fixed=True)
        w = b["what_if"]
        self.assertEqual(w["top_cause"], "volatile_text")
        self.assertAlmostEqual(w["ceiling"], rep["ceiling"]["hit_rate"], places=9)
        self.assertAlmostEqual(w["ceiling_without_top"], fixed["ceiling"]["hit_rate"], delta=0.002)
        self.assertAlmostEqual(fixed["ceiling"]["hit_rate"], truth["fixed_ceiling"], delta=0.002)
        fb = fixed["cache_busters"]
        self.assertFalse([x for x in fb["causes"] if not x["natural"] and x["lost_tokens"] > 0],
                         fb)

    def test_clock_without_session_ids(self):
        """Issue 35, item 21: most API traffic carries no session id, and a clock in the system
        prompt changes every request's first message. Conversations are inferred from the resent
        history with the system prompt's volatile words masked, so the same log without its
        x-session-id column is diagnosed as with it: the same cause, requests and lost tokens,
        and the same what-if ceiling (against the generator's truth, not against the run with
        sessions)."""
        rows, extra = gen.scenario("clock")
        truth = gen.truth(rows)
        rep, stdout = self.profile("clock-nosession", rows, sessions=False)
        self.assertEqual(rep["gateway"]["session_identifiers"]["share"], 0.0)
        b = rep["cache_busters"]
        self.assertEqual(b["requests"], len(rows))
        c = self.top(b)
        self.assertEqual(c["cause"], "volatile_text")
        self.assertEqual(c["position"]["segment"], "system prompt")
        clock_token = (extra["clock_char"]) // 4
        self.assertLessEqual(c["position"]["token_offset"], clock_token)
        self.assertGreaterEqual(c["position"]["token_offset"], clock_token - 16)
        self.assert_lost(c, truth)
        self.assertEqual(c["requests"], truth["injected"] - 1)
        self.assertIn("Cache buster: a timestamp-like value", stdout)
        fixed, _ = self.profile("clock-nosession", rows, fixed=True, sessions=False)
        self.assertAlmostEqual(b["what_if"]["ceiling_without_top"], fixed["ceiling"]["hit_rate"],
                               delta=0.002)
        # The conversations are the generator's: 36, each one app's turns.
        self.assertEqual(rep["gateway"]["conversations"]["total"],
                         len({r["session"] for r in rows}), rep["gateway"])

    def test_tool_arrays_reordered(self):
        rows, _, truth, rep, b, _ = self.diagnose("tools")
        c = self.top(b)
        self.assertEqual(c["cause"], "tools_reordered")
        self.assertEqual(c["position"]["segment"], "tools")
        self.assertEqual(c["requests"], truth["injected"])
        self.assertEqual(c["conversations"], truth["injected"])
        self.assert_lost(c, truth)

    def test_history_summarised_mid_conversation(self):
        rows, _, truth, rep, b, _ = self.diagnose("compaction")
        c = self.top(b)
        self.assertEqual(c["cause"], "history_rewritten")
        self.assertEqual(c["position"]["segment"], "message (user)")
        self.assertEqual(c["requests"], truth["injected"])
        self.assert_lost(c, truth)

    def test_reasoning_echoed_then_dropped(self):
        rows, _, truth, rep, b, _ = self.diagnose("reasoning")
        c = self.top(b)
        self.assertEqual(c["cause"], "reasoning_stripped")
        self.assertEqual(c["position"]["segment"], "reasoning")
        self.assertEqual(c["requests"], truth["injected"])
        self.assert_lost(c, truth)

    def test_model_switch(self):
        rows, _, truth, rep, b, _ = self.diagnose("model")
        c = self.top(b)
        self.assertEqual(c["cause"], "model_switched")
        self.assertEqual(c["position"]["segment"], "framing")
        self.assertEqual(c["position"]["token_offset"], 0)
        self.assertEqual(c["requests"], truth["injected"])
        self.assert_lost(c, truth)

    def test_cache_control_moved_each_turn_costs_nothing(self):
        rows, _, truth, rep, b, _ = self.diagnose("cache_control")
        self.assertEqual(truth["lost_tokens"], 0)
        moved = [c for c in b["causes"] if c["cause"] == "cache_control_moved"]
        self.assertEqual(len(moved), 1, b)
        self.assertEqual(moved[0]["requests"], truth["injected"])
        self.assertEqual(moved[0]["lost_tokens"], 0)
        self.assertEqual(moved[0]["position"]["segment"], "message (user)")
        self.assertFalse([x for x in b["causes"] if not x["natural"] and x["lost_tokens"] > 0], b)
        self.assertIsNone(b["what_if"]["top_cause"])

    def test_reuse_of_the_continued_request_changes_nothing(self):
        # A continued request takes its prefix's blocks and segment digests from the request it
        # continues (the default); without that (--no-prompt-reuse) every report is the same,
        # byte for byte, for every scenario (clock, tools, compaction, reasoning, model switch).
        for name in ["clock", "tools", "compaction", "reasoning", "model", "cache_control"]:
            rows, _ = gen.scenario(name)
            path = os.path.join(self.dir, name + "-reuse.csv")
            gen.write_csv(path, rows)
            reports = []
            for flag in [[], ["--no-prompt-reuse"]]:
                out = os.path.join(self.dir, name + ("-plain" if flag else "-reused"))
                r = env.run(["profile", path, "-q", "-o", out, "--salt-file", self.salt, *flag])
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(out + ".json", "rb") as f:
                    reports.append(f.read())
            self.assertIn(b'"cache_busters"', reports[0])
            self.assertEqual(reports[0], reports[1], name)

    def test_clock_with_a_real_chat_template_and_tokenizer(self):
        # Positions come from the template's own segment map; blocks are cl100k token blocks.
        template = env.shared("chat-templates/Qwen-Qwen3-0.6B.jinja")
        if not template:
            env.skip("../shared/data/chat-templates/Qwen-Qwen3-0.6B.jinja is absent")
        if not os.path.exists(os.path.join(env.DATA_DIR, "cl100k_base.tiktoken")):
            env.skip(f"cl100k_base.tiktoken is not in {env.DATA_DIR} (scripts/fetch-vocab.sh)")
        exact = ["--chat-template", template, "--tokenizer", "cl100k_base", "--data-dir",
                 env.DATA_DIR]
        rows, _ = gen.scenario("clock")
        rep, _ = self.profile("clock-template", rows, extra=exact)
        self.assertIn("chat template", json.dumps(rep["gateway"]["templates"]))
        b = rep["cache_busters"]
        c = self.top(b)
        self.assertEqual(c["cause"], "volatile_text")
        self.assertEqual(c["position"]["segment"], "system prompt")
        self.assertGreater(c["lost_tokens"], 0)
        fixed, _ = self.profile("clock-template", rows, fixed=True, extra=exact)
        self.assertAlmostEqual(b["what_if"]["ceiling_without_top"], fixed["ceiling"]["hit_rate"],
                               delta=0.01)


if __name__ == "__main__":
    unittest.main()
