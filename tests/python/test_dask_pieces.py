"""llmtrafficlens.dask with files cut into pieces (issue 34 item 2: tasks sized by bytes): a plain
CSV or JSON-lines gateway log is cut at record boundaries into pieces of about piece_bytes (here
4 KiB, so a file of ~150 KB is ~40 tasks), each hashed by a task of its own, and the pieces'
shards joined on the driver into their file. On a Dask LocalCluster of 2 worker processes, the
report.json must equal byte for byte what the single-process `llmtrafficlens profile` writes for
the same file: a CSV whose request bodies are pretty-printed JSON (newlines and doubled quotes
inside quoted fields, so records straddle the cut points), with multi-turn conversations linked
across pieces, a repeated session id, rows without a time and one with an implausible time (the
per-file time steps look at the whole file), a non-2xx row, and a bad row in the middle of a later
piece (the skip count and its line in report.json, and the --max-skip-share message, are the
CLI's); a JSON-lines log of the same rows; a CSV with a stray quote in an unquoted field (quote
parity then misplaces the later cut points: the pieces say so and the driver reads that file
whole); with exact_ceiling (the pieces are the shuffle's map tasks); `--piece-size 4KiB` on
the command line; and a piece size the file exceeds by at most a quarter (one task, the file not
scanned) or by more (two). A scheduler plugin counts the hash tasks the scheduler receives per
file."""
import contextlib
import csv
import io
import json
import os
import re
import subprocess
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import distributed  # noqa: E402
import llmtrafficlens as ltl  # noqa: E402
import llmtrafficlens.dask as ltl_dask  # noqa: E402
import ltl_test_env as env  # noqa: E402

BASE = 1753351200  # 2025-07-24T10:00:00Z
PIECE = 4096
HEADER = ["timestamp", "model_name", "status_code", "session_id", "request_json"]
SYSTEMS = ['You are a careful assistant for the "billing" team.\nAnswer in two lines. ' * 6,
           'You review code changes; quote "diffs" exactly.\n' * 8]


def rows():
    """Multi-turn conversations, interleaved in time; bodies pretty-printed (raw newlines) with
    quotes, so a CSV record spans many lines."""
    out = []
    for c in range(24):
        messages = [{"role": "system", "content": SYSTEMS[c % 2]}]
        for t in range(5):
            messages.append({"role": "user", "content": f'conversation {c} "question" {t}:\n' +
                             "please explain the ledger entries again\n" * (2 + t)})
            body = {"model": "qwen3-32b", "messages": [dict(m) for m in messages]}
            out.append({"time": BASE + 60 * t + c, "conv": c, "turn": t, "body": body,
                        "session": f"sess-{c}" if c % 5 == 1 else "", "status": 200})
            messages.append({"role": "assistant", "content": f'answer {t} for "{c}"\n' * 4})
    out.sort(key=lambda r: r["time"])
    out[7]["time"] = ""  # untimed rows: they take the previous row's time, across pieces
    out[60]["time"] = ""
    out[41]["time"] = 5  # an implausible time (1970), judged against the whole file's median
    out[30]["status"] = 500
    return out


def csv_text(rs, bad_at=None, stray_quote_at=None):
    """The CSV text and the offset where each row's record starts."""
    f = io.StringIO()
    w = csv.writer(f, lineterminator="\r\n")
    w.writerow(HEADER)
    starts = []
    for i, r in enumerate(rs):
        body = json.dumps(r["body"], indent=1)
        if i == bad_at:
            body = body[: len(body) // 2]  # invalid JSON
        model = "qwen3-32b"
        if i == stray_quote_at:  # a quote inside an unquoted field: a malformed log
            model = 'qwen3-32b"x'
        starts.append(len(f.getvalue()))
        if i == stray_quote_at:
            f.write(f"{r['time']},{model},{r['status']},{r['session']},")
            w.writerow([body])
        else:
            w.writerow([str(r["time"]), model, str(r["status"]), r["session"], body])
    return f.getvalue(), starts


def jsonl_text(rs):
    lines = []
    for r in rs:
        rec = {"model_name": "qwen3-32b", "status_code": r["status"], "request_json": r["body"]}
        if r["time"] != "":
            rec["timestamp"] = r["time"]
        if r["session"]:
            rec["session_id"] = r["session"]
        lines.append(json.dumps(rec))
    return "\r\n".join(lines) + "\n"


def read_bytes():
    """Bytes this process has read so far (/proc/self/io's rchar), or None without it."""
    try:
        with open("/proc/self/io", encoding="ascii") as f:
            return int(f.readline().split()[1])
    except (OSError, IndexError, ValueError):
        return None


class HashTasks(distributed.diagnostics.plugin.SchedulerPlugin):
    """On the scheduler: the keys of the hash-shard tasks it receives."""
    name = "llmtrafficlens-test-hash-tasks"

    def __init__(self):
        self.keys = []

    def update_graph(self, scheduler, keys=(), **kwargs):
        self.keys += [str(k) for k in keys if str(k).startswith("llmtrafficlens-hash-shard-")]


def hash_keys(dask_scheduler):
    return dask_scheduler.plugins[HashTasks.name].keys


class DaskPieces(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = env.tempdir()
        cls.salt = os.path.join(cls.dir, "salt")
        rs = rows()
        cls.files = {}
        log_csv, cls.starts = csv_text(rs, bad_at=90)
        for name, text in [("log.csv", log_csv),
                           ("log.jsonl", jsonl_text(rs)),
                           ("stray.csv", csv_text(rs, stray_quote_at=3)[0]),
                           ("late-stray.csv", csv_text(rs, stray_quote_at=100)[0]),
                           ("skips.csv", csv_text(rs[:40], bad_at=35)[0])]:
            path = os.path.join(cls.dir, name)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            cls.files[name] = path
        cls.log_csv = log_csv
        cls.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                               processes=True, dashboard_address=None)
        cls.client = distributed.Client(cls.cluster)
        cls.client.register_scheduler_plugin(HashTasks())

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def cli(self, name, *args):
        prefix = os.path.join(self.dir, "cli-" + name)
        p = env.run(["profile", self.files[name], "-o", prefix, "--salt-file", self.salt, "-q",
                     *args])
        with open(prefix + ".json", encoding="utf-8") as f:
            return p, f.read()

    def tasks_since(self, before):
        """Hash tasks the scheduler received since `before` keys, per file index."""
        per_file = {}
        for key in self.client.run_on_scheduler(hash_keys)[before:]:
            m = re.match(r"llmtrafficlens-hash-shard-(\d+)", key)
            per_file[int(m[1])] = per_file.get(int(m[1]), 0) + 1
        return per_file

    def dask(self, name, piece_bytes=PIECE, **kw):
        before = len(self.client.run_on_scheduler(hash_keys))
        report = ltl_dask.profile([self.files[name]], client=self.client, salt_file=self.salt,
                                  progress=False, piece_bytes=piece_bytes, **kw)
        return report, self.tasks_since(before)

    def test_a_tail_of_a_quarter_piece_joins_and_a_file_of_that_size_is_not_scanned(self):
        # A tail of at most a quarter piece joins the piece before (read/record_boundaries.h), so
        # a file of 1.2 pieces is one piece, known from its size: the planner reads none of it
        # (/proc/self/io's rchar counts the bytes this process reads; a scan reads the whole
        # file). At 1.4 pieces the tail is a piece of its own, found by the scan. Both reports
        # are the CLI's.
        path = self.files["log.csv"]
        size = os.path.getsize(path)
        _, want = self.cli("log.csv")
        opts = {"salt_file": self.salt, "threads": 1}
        for ratio, pieces in ((1.2, 1), (1.4, 2)):
            piece = int(size / ratio)
            before = read_bytes()
            plan = ltl._core.plan_pieces(path, piece, opts)
            after = read_bytes()
            read = None if before is None or after is None else after - before
            if pieces == 1:
                self.assertEqual(plan, [])  # read whole, as one task
                if read is not None:
                    self.assertLess(read, size // 2)  # not scanned (Dask's chatter aside)
            else:
                self.assertEqual([(p[0], p[1], p[3], p[4]) for p in plan],
                                 [(0, plan[0][1], 0, False), (plan[0][1], size, 1, True)])
                self.assertGreater(size - plan[1][0], piece // 4)
                if read is not None:
                    self.assertGreaterEqual(read, size)
            report, tasks = self.dask("log.csv", piece_bytes=piece)
            self.assertEqual(report.json_text, want)
            self.assertEqual(tasks, {0: pieces})

    def test_csv_with_quoted_newlines_in_pieces_equals_the_cli(self):
        p, want = self.cli("log.csv")
        self.assertEqual(p.returncode, 0, p.stderr)
        size = os.path.getsize(self.files["log.csv"])
        report, tasks = self.dask("log.csv")
        self.assertEqual(report.json_text, want)
        self.assertGreaterEqual(tasks[0], size // PIECE - 2)  # about one task per 4 KiB
        data = json.loads(want)
        # What the file's rows exercise is in the report (so the equality means something).
        self.assertEqual(data["counts"]["skipped"], 1)
        self.assertEqual(data["input"]["files"][0]["bytes"], size)
        self.assertEqual(data["input"]["files"][0]["untimed"], 3)
        self.assertEqual(data["input"]["files"][0]["implausible_times"], 1)
        self.assertEqual(data["input"]["files"][0]["filtered_status"], 1)

    def test_bad_row_in_a_later_piece_is_named_as_the_cli_names_it(self):
        _, want = self.cli("log.csv")
        report, _ = self.dask("log.csv")
        skipped = report.to_dict()["counts"]["skipped_by_reason"]
        self.assertEqual(skipped, json.loads(want)["counts"]["skipped_by_reason"])
        # The bad row is in a later piece, named by its record's first line in the whole file.
        self.assertGreater(self.starts[90], 4 * PIECE)
        line = self.log_csv.count("\n", 0, self.starts[90]) + 1
        self.assertEqual([e["first_lines"] for e in skipped.values()], [[line]])

    def test_skip_share_message_is_the_clis(self):
        p, want = self.cli("skips.csv", "--max-skip-share", "0.01")
        self.assertEqual(p.returncode, 1, p.stderr)
        with self.assertRaises(ltl.Error) as e:
            self.dask("skips.csv", max_skip_share=0.01)
        self.assertIn(str(e.exception).removeprefix("llmtrafficlens: "), p.stderr)
        report, tasks = self.dask("skips.csv", max_skip_share=0.01,
                                  allow_too_many_skipped=True)
        self.assertEqual(report.json_text, want)
        self.assertGreater(tasks[0], 1)

    def test_jsonl_in_pieces_equals_the_cli(self):
        p, want = self.cli("log.jsonl")
        self.assertEqual(p.returncode, 0, p.stderr)
        report, tasks = self.dask("log.jsonl")
        self.assertEqual(report.json_text, want)
        self.assertGreater(tasks[0], 10)

    def test_a_misplaced_cut_reads_the_rest_of_the_file(self):
        p, want = self.cli("stray.csv")
        self.assertEqual(p.returncode, 0, p.stderr)
        report, tasks = self.dask("stray.csv")
        self.assertEqual(report.json_text, want)
        self.assertTrue(any("-rest-" in k for k in self.client.run_on_scheduler(hash_keys)),
                        "read to the end after an unsure piece")

    def test_a_late_misplaced_cut_keeps_the_pieces_before_it(self):
        # The stray quote is in row 100 of 120: the pieces before it end cleanly and may already
        # be merged when the unsure one comes back; the rest of the file from that piece's start
        # replaces it and the later ones. The report is the CLI's (it was missing the rest of the
        # file when the fallback read the whole file in place of pieces already merged), and the
        # progress line ends at every needed task done, none counted twice.
        name = "late-stray.csv"
        p, want = self.cli(name)
        self.assertEqual(p.returncode, 0, p.stderr)
        before = len(self.client.run_on_scheduler(hash_keys))
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            report = ltl_dask.profile([self.files[name]], client=self.client,
                                      salt_file=self.salt, progress=True, piece_bytes=PIECE)
        self.assertEqual(report.json_text, want)
        keys = self.client.run_on_scheduler(hash_keys)[before:]
        # (A later unsure piece can come back first: its rest task is then replaced too.)
        rest = [int(m[1]) for k in keys if (m := re.search(r"hash-shard-0\.(\d+)-rest-", k))]
        self.assertTrue(rest, keys)
        first_unsure = min(rest)
        self.assertGreater(first_unsure, 10)  # a late piece: most of the file stays in pieces
        shards = re.findall(r"shards (\d+)/(\d+), ([\d.]+) of ([\d.]+) MB", err.getvalue())
        done, total, got, size = shards[-1]
        self.assertEqual((int(done), int(total)), (first_unsure + 1, first_unsure + 1))
        self.assertEqual(got, size)
        self.assertTrue(all(int(d) <= int(t) for d, t, _, _ in shards))

    def test_exact_ceiling_with_pieces(self):
        _, want = self.cli("log.csv")
        report, tasks = self.dask("log.csv", exact_ceiling=True, partitions=3)
        self.assertEqual(report.json_text, want)
        self.assertGreater(tasks[0], 10)

    def test_piece_size_on_the_command_line(self):
        _, want = self.cli("log.csv")
        prefix = os.path.join(self.dir, "cmd")
        p = subprocess.run([sys.executable, "-m", "llmtrafficlens.dask", "--scheduler",
                            self.cluster.scheduler_address, "--piece-size", "4KiB", "-o", prefix,
                            "--salt-file", self.salt, self.files["log.csv"]],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(prefix + ".json", encoding="utf-8") as f:
            self.assertEqual(f.read(), want)
        m = re.search(r"map \d+\.\d+ s \((\d+) shards", p.stderr)
        self.assertIsNotNone(m, p.stderr)
        self.assertGreater(int(m[1]), 10)

    def test_piece_sizes_parse(self):
        parse = ltl_dask.parse_piece_size
        self.assertEqual(parse("64MiB"), 64 << 20)
        self.assertEqual(parse("64M"), 64 << 20)
        self.assertEqual(parse("4KiB"), 4096)
        self.assertEqual(parse("100MB"), 100_000_000)
        self.assertEqual(parse("1G"), 1 << 30)
        self.assertEqual(parse("file"), 0)
        self.assertEqual(parse("0"), 0)
        self.assertEqual(parse("12345"), 12345)
        for bad in ("", "12X", "-1", "MiB"):
            with self.assertRaises(ValueError):
                parse(bad)


if __name__ == "__main__":
    warnings.simplefilter("ignore", ResourceWarning)
    unittest.main()
