"""Numeric options (issue 17, item 7): NaN and infinities, negative unsigned values (which CLI11
would wrap around) and values outside the stated ranges (cli/option_limits.cc) are refused with
exit 2 and one line naming the option, before any input is read; nothing is written. The range
ends themselves are accepted."""
import os
import tempfile
import unittest

import ltl_test_env as env

LOG = os.path.join(env.SOURCE_DIR, "examples", "gateway.csv")

REFUSED = [
    (["--threads", "100000"], r"--threads: 100000 is out of range \[0, 256\]"),
    (["--kv-bytes-per-token", "-5"], r"--kv-bytes-per-token: '-5' is negative"),
    (["--kv-bytes-per-token", "2000000000"], r"--kv-bytes-per-token: 2000000000 is out of range"),
    (["--max-skip-share", "nan"], r"--max-skip-share: 'nan' is not a finite number"),
    (["--max-skip-share", "1.5"], r"--max-skip-share: 1.5 is out of range \[0, 1\]"),
    (["--warmup", "inf"], r"--warmup: 'inf' is not a finite number"),
    (["--block-size", "4000000000"], r"--block-size: 4000000000 is out of range"),
    (["--workers", "4", "--decode-rate", "inf"], r"--decode-rate: 'inf' is not a finite number"),
    (["--workers", "4", "--balance-rel-threshold", "-nan"],
     r"--balance-rel-threshold: '-nan' is not a finite number"),
]


class OptionLimits(unittest.TestCase):
    def test_out_of_range_and_non_finite_values_are_refused_before_reading(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r")
            for args, message in REFUSED:
                with self.subTest(args=args):
                    r = env.run(["profile", os.path.join(d, "missing.csv"), "-o", out] + args)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    lines = r.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, r.stderr)
                    # Refused before the (missing) input is opened.
                    self.assertRegex(lines[0], "^llmtrafficlens: " + message)
                    self.assertEqual(os.listdir(d), [])

    def test_export_options_too(self):
        with tempfile.TemporaryDirectory() as d:
            r = env.run(["export", LOG, "--to", "mooncake", "-o", os.path.join(d, "t.jsonl"),
                         "--default-output-length", "-3"])
            self.assertEqual(r.returncode, 2)
            self.assertIn("--default-output-length", r.stderr)
            self.assertEqual(os.listdir(d), [])

    def test_overlong_field_path_index_is_one_line(self):
        # Issue 35, item 4: a 20-digit [index] was an uncaught std::out_of_range (exit 134).
        for option in ("--body-field", "--session-field", "--status-field", "--time-field"):
            with self.subTest(option=option), tempfile.TemporaryDirectory() as d:
                r = env.run(["profile", LOG, "-o", os.path.join(d, "r"), option,
                             "a[99999999999999999999]", "--salt-file", os.path.join(d, "salt")])
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(r.stderr.splitlines(), [
                    "llmtrafficlens: field path 'a[99999999999999999999]': [...] index is too "
                    "large"])
                self.assertFalse(os.path.exists(os.path.join(d, "r.json")))

    def test_range_ends_are_accepted(self):
        with tempfile.TemporaryDirectory() as d:
            r = env.run(["profile", LOG, "-o", os.path.join(d, "r"), "--quiet", "--threads", "256",
                         "--max-skip-share", "1", "--salt-file", os.path.join(d, "salt")])
            self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
