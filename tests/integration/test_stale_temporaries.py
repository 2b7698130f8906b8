"""Temporaries a killed run left (SIGKILL runs no handler: `.NAME.tmp-XXXXXX` beside an output, a
cache-trace export's `.DIR.tmp-PID` directory) are removed by the next run that writes the same
output (issue 35, item 19). Planted here in the exact shapes the writers use, next to a live
temporary of a concurrent run (its flock held by this test, as the writer holds it) and names that
only look alike; after the run only the stale ones are gone. The live one and every look-alike
(another length, a suffix, no dot, a link, a directory, another user's file when running as root)
keep their content."""
import fcntl
import json
import os
import shutil
import unittest

import ltl_test_env as env


def mooncake_lines(n):
    return "".join(json.dumps({"timestamp": i * 10, "input_length": 1024, "output_length": 1,
                               "hash_ids": [i % 7, i]}) + "\n" for i in range(n)).encode()


def anthropic_log(path):
    session = "0123456789ab-cdef-4000-8000-000000000000"
    with open(path, "w") as f:
        for i in range(2):
            body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "You help.",
                    "messages": [{"role": "user", "content": f"question {i}"}],
                    "metadata": {"user_id": "user_" + "ab" * 32 + "_account__session_" + session}}
            f.write(json.dumps({"timestamp": 1764500000 + i, "request": body,
                                "response": {"usage": {"input_tokens": 10, "output_tokens": 5}}})
                    + "\n")
    return session[:12] + ".json"


class StaleTemporaries(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.held = []

    def tearDown(self):
        for fd in self.held:
            os.close(fd)
        shutil.rmtree(self.dir, ignore_errors=True)

    def plant(self, path, content="planted"):
        with open(path, "w") as f:
            f.write(content)

    def hold(self, path):
        """Holds the flock of `path` as a concurrent run holds its live temporary."""
        fd = os.open(path, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.held.append(fd)

    def contents(self, d):
        out = {}
        for name in os.listdir(d):
            p = os.path.join(d, name)
            if os.path.islink(p):
                out[name] = "-> " + os.readlink(p)
            elif os.path.isdir(p):
                out[name] = sorted(os.listdir(p))
            else:
                with open(p) as f:
                    out[name] = f.read()
        return out

    def test_report_temporaries(self):
        out = os.path.join(self.dir, "out")
        os.mkdir(out)
        stale = [".report.json.tmp-Ab12Cd", ".report.html.tmp-zZ9yY8"]
        for n in stale:
            self.plant(os.path.join(out, n), "half a report")
        live = os.path.join(out, ".report.json.tmp-Live01")
        self.plant(live, "a concurrent run's report")
        self.hold(live)
        for n in [".report.json.tmp-Ab12C", ".report.json.tmp-Ab12Cde", ".report.json.tmp-Ab-2Cd",
                  ".report.json.tmp-Ab12Cd~", "report.json.tmp-Ab12Cd", ".notes.txt.tmp-Ab12Cd",
                  ".report.jsonl.tmp-Ab12Cd", "victim"]:
            self.plant(os.path.join(out, n))
        os.symlink("victim", os.path.join(out, ".report.json.tmp-Link01"))
        os.mkdir(os.path.join(out, ".report.html.tmp-Dir001"))
        if os.geteuid() == 0:
            other = os.path.join(out, ".report.json.tmp-Other1")
            self.plant(other)
            os.chown(other, 65534, 65534)
        before = self.contents(out)
        r = env.run(["profile", "-", "--format", "mooncake", "-o", os.path.join(out, "report")],
                    stdin=mooncake_lines(50))
        self.assertEqual(r.returncode, 0, r.stderr)
        after = self.contents(out)
        with open(os.path.join(out, "report.json")) as f:
            self.assertEqual(json.load(f)["counts"]["requests"], 50)
        expected = {k: v for k, v in before.items() if k not in stale}
        del after["report.json"], after["report.html"]
        self.assertEqual(after, expected)

    def test_cctrace_temporary_directories(self):
        if not os.path.exists(os.path.join(env.DATA_DIR, "cl100k_base.tiktoken")):
            self.skipTest("cl100k_base vocabulary not installed")
        src = os.path.join(self.dir, "log.jsonl")
        name = anthropic_log(src)
        stale = os.path.join(self.dir, ".traces.tmp-4194305")  # above any pid_max: never live
        os.mkdir(stale)
        self.plant(os.path.join(stale, name), "{}")
        self.plant(os.path.join(stale, "." + name + ".tmp-Ab12Cd"), "{")
        live = os.path.join(self.dir, ".traces.tmp-4194306")
        os.mkdir(live)
        self.plant(os.path.join(live, name), "a concurrent export's file")
        self.hold(live)
        lookalikes = [".traces.tmp-12x", ".traces.tmp-", ".traces2.tmp-123", "traces.tmp-123",
                      ".traces.tmp-99999999999"]
        for n in lookalikes:
            os.mkdir(os.path.join(self.dir, n))
        nested = os.path.join(self.dir, ".traces.tmp-4194307")  # holds a directory: not ours
        os.makedirs(os.path.join(nested, "sub"))
        self.plant(os.path.join(self.dir, ".traces.tmp-4194308"), "a file, not a directory")
        before = self.contents(self.dir)
        out = os.path.join(self.dir, "traces")
        r = env.run(["export", src, "--to", "cctrace", "-o", out, "--data-dir", env.DATA_DIR])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(out), [name])
        after = self.contents(self.dir)
        del after["traces"]
        expected = {k: v for k, v in before.items() if k != os.path.basename(stale)}
        self.assertEqual(after, expected)

    def test_cctrace_into_empty_directory_with_stale_files(self):
        if not os.path.exists(os.path.join(env.DATA_DIR, "cl100k_base.tiktoken")):
            self.skipTest("cl100k_base vocabulary not installed")
        src = os.path.join(self.dir, "log.jsonl")
        name = anthropic_log(src)
        out = os.path.join(self.dir, "traces")
        os.mkdir(out)
        # An export into this (empty) directory was killed while writing its file: without the
        # sweep the directory is "not empty" for ever.
        self.plant(os.path.join(out, "." + name + ".tmp-Ab12Cd"), "{")
        r = env.run(["export", src, "--to", "cctrace", "-o", out, "--data-dir", env.DATA_DIR])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(out), [name])
        # A look-alike that is not a temporary of a file this export writes still counts.
        shutil.rmtree(out)
        os.mkdir(out)
        self.plant(os.path.join(out, ".other.json.tmp-Ab12Cd"), "{")
        r = env.run(["export", src, "--to", "cctrace", "-o", out, "--data-dir", env.DATA_DIR])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("not empty", r.stderr)


if __name__ == "__main__":
    unittest.main()
