"""What -o may name (issue 17, item 4), through the real commands: `profile -o dir/` writes
dir/report.*; `-o -` and a FIFO stream an export and are refused for the report pair before any
work; a FIFO or character device is never replaced by a regular file; a symlink to a file beside it
is written through, one pointing out of its directory refused (issue 35, item 18);
two concurrent profiles with the same -o always leave a matching report.json/report.html pair."""
import json
import os
import stat
import subprocess
import tempfile
import threading
import unittest

import ltl_test_env as env


def gateway_log(path, n, text):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"timestamp": 1.76e9 + i, "request": {"model": "gpt-4o", "messages": [
                {"role": "user", "content": f"{text} {i % 3}"}]}}) + "\n")


class OutputPaths(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.log = os.path.join(self.dir, "log.jsonl")
        gateway_log(self.log, 12, "hello")
        self.salt = ["--salt-file", os.path.join(self.dir, "salt")]

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.dir])

    def export(self, out, *extra):
        return env.run(["export", self.log, "--to", "mooncake", "-o", out] + self.salt +
                       list(extra))

    def test_profile_into_a_directory(self):
        out = os.path.join(self.dir, "out")
        os.mkdir(out)
        for arg in (out + "/", out):
            r = env.run(["profile", self.log, "-o", arg, "--quiet"] + self.salt)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(os.listdir(out)), ["report.html", "report.json"])

    def test_profile_refuses_streams_before_reading(self):
        r = env.run(["profile", self.log, "-o", "-"] + self.salt)
        self.assertEqual(r.returncode, 2)
        self.assertIn("-o -: this command writes two files", r.stderr)
        prefix = os.path.join(self.dir, "r")
        os.mkfifo(prefix + ".json")
        r = env.run(["profile", self.log, "-o", prefix] + self.salt)
        self.assertEqual(r.returncode, 2)
        self.assertIn("r.json: is a FIFO", r.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(prefix + ".json").st_mode))
        self.assertFalse(os.path.exists(prefix + ".html"))

    def test_export_streams_to_stdout_and_fifos_and_writes_through_symlinks(self):
        ref = os.path.join(self.dir, "ref.jsonl")
        self.assertEqual(self.export(ref).returncode, 0)
        with open(ref) as f:
            expected = f.read()
        r = self.export("-")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, expected)
        self.assertIn("exported 12 requests to -", r.stderr)

        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
        reader.start()
        r = self.export(fifo)
        reader.join()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(got, [expected])
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

        target = os.path.join(self.dir, "target.jsonl")
        with open(target, "w") as f:
            f.write("previous")
        link = os.path.join(self.dir, "link.jsonl")
        os.symlink("target.jsonl", link)
        self.assertEqual(self.export(link).returncode, 0)
        self.assertTrue(os.path.islink(link))
        with open(target) as f:
            self.assertEqual(f.read(), expected)

    def test_planted_link_out_of_its_directory_is_refused(self):
        # Issue 35, item 18: a report.json link planted in a shared working directory was followed
        # under the default output name and its target elsewhere replaced (mode 0644). A link is
        # followed only to a file beside it; one pointing out of its directory is refused, named
        # or default, and nothing is written anywhere.
        work = os.path.join(self.dir, "shared")
        elsewhere = os.path.join(self.dir, "elsewhere")
        os.mkdir(work)
        os.mkdir(elsewhere)
        victim = os.path.join(elsewhere, "victim")
        with open(victim, "w") as f:
            f.write("precious")
        os.chmod(victim, 0o600)
        os.symlink(victim, os.path.join(work, "report.json"))
        os.symlink("../elsewhere/victim", os.path.join(work, "out.jsonl"))
        runs = [["profile", self.log, "--quiet"] + self.salt,  # the default name, report
                ["export", self.log, "--to", "mooncake", "-o", "out.jsonl"] + self.salt]
        for args in runs:
            with self.subTest(command=args[0]):
                r = subprocess.run([env.BINARY] + args, cwd=work, capture_output=True, text=True)
                self.assertEqual(r.returncode, 2, r.stderr)
                lines = r.stderr.splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn("outside the directory it is in", lines[0])
                with open(victim) as f:
                    self.assertEqual(f.read(), "precious")
                self.assertEqual(stat.S_IMODE(os.stat(victim).st_mode), 0o600)
                self.assertEqual(sorted(os.listdir(elsewhere)), ["victim"])
        self.assertEqual(sorted(os.listdir(work)), ["out.jsonl", "report.json"])

    def test_export_never_replaces_a_device_or_directory(self):
        if os.geteuid() == 0:  # a /dev/null twin in the temporary directory, never the real one
            dev = os.path.join(self.dir, "null")
            os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
            r = self.export(dev)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(stat.S_ISCHR(os.lstat(dev).st_mode))
        r = self.export(self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is a directory; an output replaces only a regular file", r.stderr)

    def test_concurrent_profiles_leave_a_matching_pair(self):
        other = os.path.join(self.dir, "other.jsonl")
        gateway_log(other, 30, "other")
        prefix = os.path.join(self.dir, "shared")
        for attempt in range(15):
            runs = [subprocess.Popen([env.BINARY, "profile", p, "-o", prefix, "--quiet"] +
                                     self.salt, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL) for p in (self.log, other)]
            self.assertEqual([p.wait() for p in runs], [0, 0])
            with open(prefix + ".json") as f:
                requests = json.load(f)["counts"]["requests"]
            with open(prefix + ".html") as f:
                html = f.read()
            name = "log.jsonl" if requests == 12 else "other.jsonl"
            self.assertIn(name, html, f"attempt {attempt}: report.json of {requests} requests "
                          "beside the other run's report.html")


if __name__ == "__main__":
    unittest.main()
