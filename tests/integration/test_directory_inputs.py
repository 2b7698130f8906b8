"""Directory inputs (issue 17 item 8): in a cache-trace directory, a file that cannot be read (a
truncated .json.gz, corrupt zstd, a file without read permission, a symbolic link loop, a dangling
link) is skipped and counted under its own reason, named by its path, like an invalid JSON file;
the good files are still read, completely. File names holding terminal escapes or newlines are
printed escaped (one line per message, no raw control byte reaches the terminal)."""
import gzip
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ltl_test_env as env  # noqa: E402


def trace(conv, n):
    """One conversation of n requests, each resending the previous blocks plus one."""
    reqs = [{"t": float(i), "type": "s", "model": "claude-sonnet-4-20250514", "in": (i + 2) * 64,
             "out": 10, "hash_ids": list(range(1, i + 3)), "input_types": ["text"],
             "output_types": ["text"], "stop": "end_turn"} for i in range(n)]
    return {"id": f"{conv:08x}-conv", "models": ["m"], "block_size": 64, "tool_tokens": 0,
            "system_tokens": 0, "requests": reqs}


class DirectoryInputs(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.traces = os.path.join(self.dir, "traces")
        os.mkdir(self.traces)
        # Three good files: 5 + 6 + 7 = 18 requests.
        for k, n in enumerate((5, 6, 7)):
            with open(os.path.join(self.traces, f"good{k}.json"), "w") as f:
                json.dump(trace(k, n), f)

    def tearDown(self):
        for root, dirs, files in os.walk(self.dir):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o700)
            for f in files:
                p = os.path.join(root, f)
                if not os.path.islink(p):
                    os.chmod(p, 0o600)
        shutil.rmtree(self.dir, ignore_errors=True)

    def profile(self, *args):
        out = os.path.join(self.dir, "r")
        r = env.run(["profile", self.traces, "-o", out, "--salt-file",
                     os.path.join(self.dir, "salt")] + list(args))
        rep = None
        if r.returncode in (0, 1) and os.path.exists(out + ".json"):
            with open(out + ".json") as f:
                rep = json.load(f)
        return r, rep

    def test_unreadable_files_are_skipped_and_counted(self):
        full = gzip.compress(json.dumps(trace(10, 9)).encode())
        with open(os.path.join(self.traces, "truncated.json.gz"), "wb") as f:
            f.write(full[: len(full) // 2])
        zst = subprocess.run(["zstd", "-q", "-c"], input=json.dumps(trace(11, 4)).encode(),
                             capture_output=True, check=True).stdout
        with open(os.path.join(self.traces, "corrupt.json.zst"), "wb") as f:
            f.write(zst[:8] + bytes(b ^ 0x5A for b in zst[8:]))
        with open(os.path.join(self.traces, "invalid.json"), "w") as f:
            f.write("{not json")
        os.symlink("loop.json", os.path.join(self.traces, "loop.json"))
        os.symlink("nowhere.json", os.path.join(self.traces, "dangling.json"))
        unreadable = os.path.join(self.traces, "unreadable.json")
        with open(unreadable, "w") as f:
            json.dump(trace(12, 3), f)
        os.chmod(unreadable, 0)
        as_root = os.geteuid() == 0  # root reads a mode-0 file anyway: then it is a good file
        r, rep = self.profile("-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        counts = rep["counts"]
        self.assertEqual(counts["requests"], 18 + (3 if as_root else 0), counts)
        reasons = counts["skipped_by_reason"]
        want = {
            "trace file truncated, corrupt or unreadable": 2,
            "trace directory entry is a symbolic link loop": 1,
            "trace directory entry is a dangling symbolic link": 1,
        }
        if not as_root:
            want["trace file cannot be opened"] = 1
        for reason, n in want.items():
            self.assertIn(reason, reasons, reasons)
            self.assertEqual(reasons[reason]["count"], n, (reason, reasons))
        # The invalid JSON file is skipped under its parse reason, as before.
        self.assertEqual(counts["skipped"], sum(want.values()) + 1, reasons)
        # Each is named by its path in a warning (-q keeps warnings).
        for name in ("truncated.json.gz", "corrupt.json.zst", "loop.json", "dangling.json"):
            self.assertIn(os.path.join(self.traces, name) + ":1: ", r.stderr, name)
        # Losing files never passes when the user allows no loss.
        r0, _ = self.profile("-q", "--max-skip-share", "0")
        self.assertEqual(r0.returncode, 1, r0.stderr)

    def test_only_unreadable_files_is_not_a_report_of_zeros(self):
        for name in os.listdir(self.traces):
            os.unlink(os.path.join(self.traces, name))
        os.symlink("loop.json", os.path.join(self.traces, "loop.json"))
        r, _ = self.profile("-q")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "r.json")))

    def test_file_names_with_control_characters_are_escaped(self):
        evil = "evil\x1b]0;pwned\x07\nnext.json"
        with open(os.path.join(self.traces, evil), "w") as f:
            f.write("{not json")
        r, rep = self.profile("-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(rep["counts"]["requests"], 18)
        self.assertEqual(rep["counts"]["skipped"], 1)
        self.assertNotIn("\x1b", r.stderr)
        self.assertNotIn("\x07", r.stderr)
        self.assertIn("evil\\x1b]0;pwned\\x07\\x0anext.json:", r.stderr)
        for line in r.stderr.splitlines():
            self.assertTrue(line.startswith("llmtrafficlens: "), line)
        # The same for a missing input named on the command line.
        r = env.run(["profile", os.path.join(self.dir, "no\x1bsuch\nfile.csv"), "-o",
                     os.path.join(self.dir, "x"), "--salt-file", os.path.join(self.dir, "salt")])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertNotIn("\x1b", r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("no\\x1bsuch\\x0afile.csv", r.stderr)
        # The report paths on the summary's last line (stdout) too: an output prefix is a path.
        out = os.path.join(self.dir, "rep\x1b]0;pwned\x07")
        r = env.run(["profile", self.traces, "-o", out, "--salt-file",
                     os.path.join(self.dir, "salt")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(out + ".json"))
        self.assertNotIn("\x1b", r.stdout)
        self.assertNotIn("\x07", r.stdout)
        self.assertIn("rep\\x1b]0;pwned\\x07.json", r.stdout)


if __name__ == "__main__":
    unittest.main()
