"""The command line on hashed traces: format detection, stdin and compressed input, default and
explicit capacities, warm-up, exit codes, one-line errors and skipped-row accounting."""
import gzip
import json
import os
import unittest

import ltl_test_env as env


def mooncake_lines():
    # Ten requests sharing a 2-block prefix (bs 512); each adds one block of its own.
    lines = []
    for i in range(10):
        lines.append(json.dumps({"timestamp": i * 1000, "input_length": 1536, "output_length": 10,
                                 "hash_ids": [1, 2, 100 + i]}))
    return "\n".join(lines) + "\n"


class CliBasics(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()

    def path(self, name, content, binary=False):
        p = os.path.join(self.dir, name)
        with open(p, "wb" if binary else "w") as f:
            f.write(content)
        return p

    def profile(self, args, **kw):
        return env.run(["profile"] + args + ["-o", os.path.join(self.dir, "r")], **kw)

    def report(self):
        with open(os.path.join(self.dir, "r.json")) as f:
            return json.load(f)

    def test_version_and_help(self):
        r = env.run(["--version"])
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("llmtrafficlens "))
        r = env.run(["profile", "--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("--format", r.stdout)

    def test_hand_computed_rates(self):
        # Cold: request 0 misses; 1..9 hit 2 of 3 blocks -> 9 * 1024 / (10 * 1536).
        p = self.path("t.jsonl", mooncake_lines())
        r = self.profile([p, "--warmup", "0"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertEqual(rep["input"]["format"], "mooncake")
        self.assertEqual(rep["ceiling"]["hit_tokens"], 9 * 1024)
        self.assertEqual(rep["ceiling"]["measured_tokens"], 10 * 1536)
        # Steady state: floor(10 * 0.5) = 5 -> requests 5..9 measured, all hit 2 blocks.
        self.profile([p])
        rep = self.report()
        self.assertEqual(rep["counts"]["measured_requests"], 5)
        self.assertEqual(rep["ceiling"]["hit_tokens"], 5 * 1024)
        # Default capacities are 16K..16M tokens = 32..32768 blocks of 512.
        self.assertEqual([e["capacity_tokens"] for e in rep["curve"]],
                         [16384, 65536, 262144, 1 << 20, 4 << 20, 16 << 20])
        self.assertEqual(rep["curve"][0]["capacity_blocks"], 32)

    def test_capacity_one_block_keeps_only_the_head(self):
        # With 2 blocks of capacity, tail-first touching keeps the 2 shared head blocks.
        p = self.path("t.jsonl", mooncake_lines())
        self.profile([p, "--warmup", "0", "--capacity-blocks", "1,2"])
        rep = self.report()
        self.assertEqual([e["hit_tokens"] for e in rep["curve"]], [9 * 512, 9 * 1024])
        self.profile([p, "--warmup", "0", "--capacity-blocks", "2", "--evict-order", "head-first"])
        self.assertEqual(self.report()["curve"][0]["hit_tokens"], 0)

    def test_stdin_and_gzip(self):
        text = mooncake_lines()
        r = self.profile(["-", "--warmup", "0"], stdin=text.encode())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.report()["ceiling"]["hit_tokens"], 9 * 1024)
        gz = self.path("t.jsonl.gz", gzip.compress(text.encode()), binary=True)
        r = self.profile([gz, "--warmup", "0"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.report()["input"]["encoding"], "gzip")
        self.assertEqual(self.report()["ceiling"]["hit_tokens"], 9 * 1024)

    def test_unreadable_file_is_one_line_and_exit_2(self):
        missing = os.path.join(self.dir, "nope.jsonl")
        r = self.profile([missing])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertTrue(r.stderr.startswith(f"llmtrafficlens: {missing}: cannot open"), r.stderr)
        r = self.profile([self.dir])
        self.assertEqual(r.returncode, 2)
        self.assertIn("is a directory", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "r.json")))

    def test_bad_arguments_exit_2(self):
        p = self.path("t.jsonl", mooncake_lines())
        self.assertEqual(self.profile([p, "--format", "nonsense"]).returncode, 2)
        self.assertEqual(self.profile([p, "--capacity", "lots"]).returncode, 2)
        self.assertEqual(self.profile([p, "--warmup", "1.5"]).returncode, 2)

    def test_bad_lines_are_reported_counted_and_skipped(self):
        text = mooncake_lines() + '{"timestamp": 1, "input_length": 5, "hash_ids": [-4]}\nnot json\n'
        p = self.path("t.jsonl", text)
        r = self.profile([p, "--format", "mooncake"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"{p}:11: hash_ids holds a negative id", r.stderr)
        self.assertIn(f"{p}:12: invalid JSON", r.stderr)
        rep = self.report()
        self.assertEqual(rep["counts"]["skipped"], 2)
        self.assertEqual(rep["counts"]["skipped_by_reason"]["invalid JSON"]["first_lines"], [12])
        self.assertEqual(rep["counts"]["requests"], 10)

    def test_too_many_skipped_rows_exit_1(self):
        p = self.path("t.jsonl", mooncake_lines().splitlines()[0] + "\nx\ny\nz\n")
        r = self.profile([p, "--format", "mooncake"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("above --max-skip-share", r.stderr)
        self.assertEqual(self.profile([p, "--format", "mooncake", "--max-skip-share", "0.9"])
                         .returncode, 0)

    def test_bailian_split_is_printed(self):
        rows = []
        # Two conversations sharing a system block (id 1); each resends its own history.
        for conv, base in ((1, 100), (2, 200)):
            rows.append({"chat_id": conv * 10, "parent_chat_id": -1, "timestamp": conv,
                         "input_length": 32, "output_length": 1, "type": "text", "turn": 1,
                         "hash_ids": [1, base]})
            rows.append({"chat_id": conv * 10 + 1, "parent_chat_id": conv * 10,
                         "timestamp": 10 + conv, "input_length": 48, "output_length": 1,
                         "type": "text", "turn": 2, "hash_ids": [1, base, base + 1]})
        p = self.path("b.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
        r = self.profile([p, "--warmup", "0"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        # Conv 2's first request hits block 1 (across); each second turn hits 2 blocks: block 1
        # (across: both conversations used it) and its own block (same conversation).
        self.assertEqual(rep["ceiling"]["hit_tokens"], 16 + 32 + 32)
        self.assertEqual(rep["ceiling"]["across_tokens"], 16 * 3)
        self.assertEqual(rep["ceiling"]["same_conv_tokens"], 32)
        self.assertIn("across +", r.stdout)


if __name__ == "__main__":
    unittest.main()
