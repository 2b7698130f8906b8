"""Absurd request times (issue 17, item 1): zero, 1e18/1e25, years 0001 and 9999, microseconds among
milliseconds, in every input format. profile and export apply the same rule (ingest/time_check.h):
the time is treated as missing, counted, and named; nothing allocates per second of a fake span
(these inputs used to abort with bad_alloc or take gigabytes)."""
import json
import os
import tempfile
import unittest

import ltl_test_env as env


def mooncake(ts, ids):
    return json.dumps({"timestamp": ts, "input_length": 512 * len(ids), "output_length": 4,
                       "hash_ids": ids})


def gateway(ts, text):
    return json.dumps({"timestamp": ts, "request": {"model": "gpt-4o", "messages": [
        {"role": "user", "content": text}]}})


def bailian(chat, ts, ids):
    return json.dumps({"chat_id": chat, "parent_chat_id": -1, "timestamp": ts,
                       "input_length": 16 * len(ids), "output_length": 1, "type": "text",
                       "turn": 1, "hash_ids": ids})


CASES = {
    # name: (lines, implausible count, first implausible line)
    "mooncake_1e18": ([mooncake(0, [1, 2]), mooncake(1000, [1, 3]), mooncake(10**18, [1, 2])], 1, 3),
    "mooncake_us_among_ms": ([mooncake(0, [1]), mooncake(1.7e15, [1, 2]),
                              mooncake(1.7e15 + 5, [1, 3]), mooncake(1.7e15 + 9, [1, 4])], 1, 1),
    "gateway_zero_and_1e25": ([gateway(0, "a"), gateway(1.76e9, "b"), gateway(1.76e9 + 4, "c"),
                               gateway(1e25, "d")], 2, 1),
    "gateway_years_0001_9999": ([gateway("2025-06-01T00:00:00Z", "a"),
                                 gateway("0001-01-01T00:00:00Z", "b"),
                                 gateway("2025-06-01T00:00:09Z", "c"),
                                 gateway("9999-12-31T00:00:00Z", "d")], 2, 2),
    "bailian_1e14": ([bailian(1, 0, [1, 2]), bailian(2, 5, [1, 3]), bailian(3, 1e14, [1, 4])], 1, 3),
}


class HostileTimes(unittest.TestCase):
    def test_profile_drops_counts_and_names_implausible_times(self):
        with tempfile.TemporaryDirectory() as d:
            salt = os.path.join(d, "salt")
            for name, (lines, n_bad, first) in CASES.items():
                with self.subTest(name):
                    path = os.path.join(d, name + ".jsonl")
                    with open(path, "w") as f:
                        f.write("\n".join(lines) + "\n")
                    out = os.path.join(d, name)
                    r = env.run(["profile", path, "-o", out, "--salt-file", salt])
                    self.assertEqual(r.returncode, 0, r.stderr)
                    with open(out + ".json") as f:
                        rep = json.load(f)
                    times = rep["input"]["times"]
                    self.assertEqual(times["implausible"], n_bad)
                    self.assertEqual(times["first_implausible_line"], first)
                    self.assertGreaterEqual(times["untimed"], n_bad)
                    self.assertTrue(any("implausible" in s for s in rep["findings"]))
                    # Every request is still replayed; the span is the plausible requests' one.
                    self.assertEqual(rep["counts"]["requests"], len(lines))
                    self.assertLess(rep["distributions"]["duration_s"], 86400 * 365)
                    self.assertLess(os.path.getsize(out + ".html"), 2_000_000)

    def test_export_applies_the_same_rule_and_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            salt = os.path.join(d, "salt")
            lines, n_bad, first = CASES["gateway_zero_and_1e25"]
            path = os.path.join(d, "g.jsonl")
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            out = os.path.join(d, "g.mooncake.jsonl")
            r = env.run(["export", path, "--to", "mooncake", "-o", out, "--salt-file", salt])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"{n_bad} request times are implausible (first at line/record {first})",
                          r.stderr)
            with open(out) as f:
                stamps = [json.loads(l)["timestamp"] for l in f]
            # The dropped times took their neighbours': the trace spans the plausible 4 s.
            self.assertEqual(stamps, sorted(stamps))
            self.assertLessEqual(stamps[-1] - stamps[0], 4000)


if __name__ == "__main__":
    unittest.main()
