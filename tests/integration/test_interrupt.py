"""An interrupted run (SIGINT, SIGTERM, SIGHUP) leaves the previous report intact and no temporary
file behind, and ends by the signal. The run is held in a known state without sleeping: its input
is a pipe the test writes, and a blocking write of more than the pipe's capacity returns only once
the process has read most of it, so the signal arrives while the run is reading."""
import json
import os
import shutil
import signal
import subprocess
import unittest

import ltl_test_env as env


def mooncake_lines(n, start=0):
    return "".join(json.dumps({"timestamp": (start + i) * 10, "input_length": 1024,
                               "output_length": 1, "hash_ids": [i % 7, start + i]}) + "\n"
                   for i in range(n)).encode()


def gateway_csv_rows(n):
    rows = ["request_json,timestamp"]
    for i in range(n):
        body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user",
                                                            "content": f"question {i} " * 20}]})
        rows.append('"' + body.replace('"', '""') + f'",{1735787045 + i}')
    return ("\n".join(rows) + "\n").encode()


class Interrupt(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.out)
        self.previous = {"report.json": '{"previous": "json"}', "report.html": "<p>previous</p>"}
        for name, content in self.previous.items():
            with open(os.path.join(self.out, name), "w") as f:
                f.write(content)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def interrupt(self, sig, fmt, payload):
        p = subprocess.Popen([env.BINARY, "profile", "-", "--format", fmt, "-o",
                              os.path.join(self.out, "report")],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=self.dir)
        # Far more than a pipe holds (64 KiB): when write() returns, the process is reading.
        self.assertGreater(len(payload), 1 << 20)
        p.stdin.write(payload)
        p.stdin.flush()
        p.send_signal(sig)
        out, err = p.communicate()  # closes stdin too; the process is already gone or going
        self.assertEqual(p.returncode, -sig, err.decode())
        self.assertEqual(out, b"")  # no summary: the run did not finish
        self.assertEqual(sorted(os.listdir(self.out)), sorted(self.previous))
        for name, content in self.previous.items():
            with open(os.path.join(self.out, name)) as f:
                self.assertEqual(f.read(), content)

    def test_sigint_while_reading_trace(self):
        self.interrupt(signal.SIGINT, "mooncake", mooncake_lines(40000))

    def test_sigterm_while_reading_trace(self):
        self.interrupt(signal.SIGTERM, "mooncake", mooncake_lines(40000))

    def test_sighup_while_reading_gateway_log(self):
        self.interrupt(signal.SIGHUP, "csv", gateway_csv_rows(4000))

    def test_uninterrupted_run_replaces_report(self):
        r = env.run(["profile", "-", "--format", "mooncake", "-o", os.path.join(self.out, "report")],
                    stdin=mooncake_lines(100))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.out, "report.json")) as f:
            self.assertEqual(json.load(f)["counts"]["requests"], 100)
        self.assertFalse([n for n in os.listdir(self.out) if ".tmp" in n])


if __name__ == "__main__":
    unittest.main()
