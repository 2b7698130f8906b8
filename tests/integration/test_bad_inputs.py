"""The bad-input corpus (tests/data/bad/): every file has a pinned outcome in expected.json, either
a failure with exactly one line `llmtrafficlens: FILE:LINE: problem` and exit 2 (and no report, no
temporary file left), or a finished run whose report.json counts the bad rows by reason (and whose
stderr holds only per-row warnings, plus the --max-skip-share line for exit 1). Cases that need
more than a committed file are built here: the 200 MB field and line (generated, never committed),
a directory, a path that no longer exists (a dangling symlink: listed, then gone when opened) and
a FIFO whose writer stops in the middle of a line."""
import json
import os
import re
import resource
import shutil
import threading
import unittest

import ltl_test_env as env

BAD = os.path.join(env.SOURCE_DIR, "tests", "data", "bad")
MIB = 1 << 20


def load_cases():
    with open(os.path.join(BAD, "expected.json")) as f:
        return json.load(f)["cases"]


def mooncake(ts, n_in, ids):
    return json.dumps({"timestamp": ts, "input_length": n_in, "output_length": 1, "hash_ids": ids})


def gateway_body(text):
    return json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": text}]})


def write_big_field_csv(path, field_bytes):
    """Three good rows and one whose request_json field is `field_bytes` long, written in chunks."""
    with open(path, "w") as f:
        f.write("request_json,model_name\n")
        for i in range(3):
            f.write('"' + gateway_body(f"q{i}").replace('"', '""') + '",gpt-4o\n')
        f.write('"{""messages"": [{""role"": ""user"", ""content"": ""')
        chunk = "x" * MIB
        left = field_bytes
        while left > 0:
            f.write(chunk[: min(left, MIB)])
            left -= MIB
        f.write('""}]}",gpt-4o\n')


def write_big_line_jsonl(path, line_bytes):
    with open(path, "w") as f:
        for i in range(3):
            f.write(mooncake(i * 1000, 512, [i]) + "\n")
        f.write('{"timestamp": 5000, "input_length": 512, "hash_ids": [9], "pad": "')
        chunk = "y" * MIB
        left = line_bytes
        while left > 0:
            f.write(chunk[: min(left, MIB)])
            left -= MIB
        f.write('"}\n')


class BadInputs(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.out)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def materialize(self, case):
        """Returns the path to profile for a case."""
        gen = case.get("generate")
        if gen is None:
            return os.path.join(BAD, case["file"])
        p = os.path.join(self.dir, case["file"])
        if gen == "big_field_csv":
            write_big_field_csv(p, 200 * 1000 * 1000)
        elif gen == "big_line_jsonl":
            write_big_line_jsonl(p, 200 * 1000 * 1000)
        elif gen == "directory":
            os.mkdir(p)
        elif gen == "dangling_symlink":
            # Listed (the name exists) but gone by the time it is opened: a symlink whose target
            # was removed, which is what a file deleted between listing and opening looks like.
            target = os.path.join(self.dir, "was_here.jsonl")
            with open(target, "w") as f:
                f.write(mooncake(0, 10, [1]) + "\n")
            os.symlink(target, p)
            os.unlink(target)
        else:
            raise AssertionError(f"unknown generator {gen}")
        return p

    def run_case(self, case):
        path = self.materialize(case)
        shown = path  # the name the binary prints is the path as given
        report = os.path.join(self.out, "report")
        with open(report + ".json", "w") as f:
            f.write('{"previous": true}')
        r = env.run(["profile", path, "-o", report, "--salt-file",
                     os.path.join(self.dir, "salt")] + case.get("args", []), cwd=self.dir)
        msg = f"{case['file']}: exit {r.returncode}\nstderr:\n{r.stderr}"
        self.assertEqual(r.returncode, case["exit"], msg)
        # No temporary output is ever left behind, whatever happened.
        # (a run that finishes also writes report.html; a fatal one leaves only the old report.json)
        self.assertEqual(sorted(f for f in os.listdir(self.out) if f != "report.html"),
                         ["report.json"], msg)
        err_lines = r.stderr.splitlines()
        if case["exit"] == 2:
            # Exactly one line, FILE:LINE: problem (or FILE: problem for whole-file failures).
            self.assertEqual(len(err_lines), 1, msg)
            want = "llmtrafficlens: " + re.escape(shown) + case["stderr"]
            self.assertRegex(err_lines[0], "^" + want + "$", msg)
            with open(report + ".json") as f:  # the previous report is untouched
                self.assertEqual(f.read(), '{"previous": true}', msg)
            return
        with open(report + ".json") as f:
            rep = json.load(f)
        counts = rep["counts"]
        got = {k: v["count"] for k, v in counts["skipped_by_reason"].items()}
        self.assertEqual(got, case.get("skipped", {}), msg)
        self.assertEqual(counts["requests"], case["requests"], msg)
        for reason, lines in case.get("skipped_lines", {}).items():
            self.assertEqual(counts["skipped_by_reason"][reason]["first_lines"], lines, msg)
        warning = re.compile("^llmtrafficlens: warning: " + re.escape(shown) +
                             r":\d+: (.*) \(row skipped\)$")
        warned = [warning.match(l) for l in err_lines]
        if case["exit"] == 1:
            self.assertRegex(err_lines[-1], "^llmtrafficlens: " + re.escape(shown) +
                             r": \d+ of \d+ rows skipped .* above --max-skip-share", msg)
            warned = warned[:-1]
        self.assertTrue(all(warned), msg)
        for m in warned:
            self.assertIn(m.group(1), got, msg)

    def test_corpus(self):
        cases = load_cases()
        listed = {c["file"] for c in cases if "generate" not in c}
        committed = {f for f in os.listdir(BAD) if f not in ("expected.json", "make_corpus.py")}
        self.assertEqual(committed - listed, set(), "every corpus file needs a pinned outcome")
        for case in cases:
            if case.get("generate") in ("big_field_csv", "big_line_jsonl"):
                continue  # test_200mb_inputs, which also bounds memory
            with self.subTest(case=case["file"]):
                self.run_case(case)

    def test_200mb_inputs(self):
        for case in load_cases():
            if case.get("generate") not in ("big_field_csv", "big_line_jsonl"):
                continue
            with self.subTest(case=case["file"]):
                self.run_case(case)
                os.unlink(os.path.join(self.dir, case["file"]))
        # Memory stays bounded by the limits, not by the 200 MB: the CSV reader buffers at most
        # about twice the 64 MiB field limit, the line reader twice the 64 MiB line limit given.
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        limit = 1200 if os.environ.get("LTL_SANITIZED") == "1" else 400
        self.assertLess(peak_mib, limit, f"peak RSS {peak_mib:.0f} MiB")

    def test_fifo_writer_stops_mid_line(self):
        # A pipe whose writer goes away in the middle of a record: what arrived is read, the cut
        # line is skipped and counted, and the run finishes.
        fifo = os.path.join(self.dir, "trace.fifo")
        os.mkfifo(fifo)

        def writer():
            with open(fifo, "w") as f:
                f.write(mooncake(0, 512, [1]) + "\n" + mooncake(1000, 512, [1]) + "\n")
                f.write(mooncake(2000, 512, [1])[:20])

        t = threading.Thread(target=writer)
        t.start()
        report = os.path.join(self.out, "report")
        r = env.run(["profile", fifo, "--format", "mooncake", "-o", report])
        t.join()
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(report + ".json") as f:
            counts = json.load(f)["counts"]
        self.assertEqual(counts["requests"], 2)
        self.assertEqual({k: v["first_lines"] for k, v in counts["skipped_by_reason"].items()},
                         {"invalid JSON": [3]})


if __name__ == "__main__":
    unittest.main()
