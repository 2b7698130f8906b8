"""Several input files in one run (issue 20 item 1): `profile a.csv.gz b.jsonl.zst c.csv` gives the
report that `profile` gives on the time-merged concatenation of the same rows, which this test
builds itself (a stable sort by time, ties in file order then line order, written as one plain CSV).
The log is multi-turn: conversations continue across files (inferred from resent history, so the
post-pass must see every file at once), a session id repeats across files, a prefix first sent in
one file is resent in another, and two files hold requests at the same second as another file
(the tie rule). Every file carries one bad row, whose count must appear under that file in
input.files. `export` over the same files must equal the export of the concatenation. A glob
expands in the tool (quoted, no shell), and a pattern matching nothing is an error."""
import csv
import gzip
import io
import json
import os
import shutil
import subprocess
import unittest

import json_schema_subset
import ltl_test_env as env

BASE = 1753351200  # 2025-07-24T10:00:00Z
SYSTEMS = ["You are a careful assistant for the billing team. " * 12,
           "You review code changes and answer briefly. " * 12]
TOOLS = [{"type": "function", "function": {"name": "lookup", "description": "find an invoice",
                                           "parameters": {"type": "object", "properties": {}}}}]


def conversations():
    """Rows as dicts (no file yet): 9 conversations of 4 turns, each turn resending the history."""
    rows = []
    for c in range(9):
        messages = [{"role": "system", "content": SYSTEMS[c % 2]}]
        for t in range(4):
            messages.append({"role": "user", "content": f"conversation {c} question {t}: " +
                             "please explain the ledger entries again " * (3 + t)})
            body = {"model": "qwen3-32b", "messages": [dict(m) for m in messages]}
            if c % 3 == 0:
                body["tools"] = TOOLS
            # Turns 17 s apart, conversations interleaved; every 4th conversation shares a clock
            # second with another one (ties across files).
            time = BASE + 40 * t + (c // 4) * 3 + (0 if c % 4 == 0 else c)
            rows.append({"time": time, "conv": c, "turn": t, "body": body,
                         "session": f"sess-{c}" if c % 4 == 1 else ""})
            messages.append({"role": "assistant", "content": f"answer {t} for {c} " * 5})
    return rows


def split_into_files(rows):
    """Each row goes to file (conv + turn) % 3, so every conversation spans files."""
    files = [[], [], []]
    for r in rows:
        files[(r["conv"] + r["turn"]) % 3].append(r)
    for f in files:
        f.sort(key=lambda r: r["time"])  # each file in time order, as a rotated log is
    return files


CSV_HEADER = ["timestamp", "model_name", "status_code", "session_id", "request_json"]


def csv_row(r):
    return [str(r["time"]), "qwen3-32b", "200", r["session"],
            r["bad"] if "bad" in r else json.dumps(r["body"])]


def jsonl_line(r):
    if "bad" in r:
        return "{" + r["bad"]
    rec = {"timestamp": r["time"], "model_name": "qwen3-32b", "status_code": 200,
           "request_json": r["body"]}
    if r["session"]:
        rec["session_id"] = r["session"]
    return json.dumps(rec)


def csv_text(rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for r in rows:
        w.writerow(csv_row(r))
    return out.getvalue()


def comparable(report):
    """report.json minus what describes the run rather than the traffic: the input section
    (names, formats, bytes, per-file entries) and the skip reasons with their line numbers, which
    are per file in a multi-file run (and a JSON line's bad record is worded as JSON lines word it;
    the totals stay compared)."""
    r = json.loads(json.dumps(report))
    del r["input"]
    del r["counts"]["skipped_by_reason"]
    return r


class MultiFileProfile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("zstd"):
            env.skip("zstd not installed (Debian package zstd, scripts/install-deps.sh)")
        cls.dir = env.tempdir()
        cls.salt = os.path.join(cls.dir, "salt")
        files = split_into_files(conversations())
        # One bad row in each file, at a different position.
        for k, f in enumerate(files):
            bad = dict(f[2 + k])
            bad["bad"] = f"not json {k}"
            f.insert(3 + k, bad)
        cls.files = files
        cls.a = os.path.join(cls.dir, "a.csv.gz")
        with gzip.open(cls.a, "wt", encoding="utf-8", newline="") as g:
            g.write(csv_text(files[0]))
        b_plain = os.path.join(cls.dir, "b.jsonl")
        with open(b_plain, "w", encoding="utf-8") as g:
            g.write("".join(jsonl_line(r) + "\n" for r in files[1]))
        cls.b = b_plain + ".zst"
        subprocess.run(["zstd", "-q", "-f", "--rm", b_plain, "-o", cls.b], check=True)
        cls.c = os.path.join(cls.dir, "c.csv")
        with open(cls.c, "w", encoding="utf-8", newline="") as g:
            g.write(csv_text(files[2]))
        # The same rows in three plain CSV files: one source, so each file's read takes the
        # workers (and the conversations' memos) the file before it left (GatewayReadState).
        cls.plain = []
        for k, f in enumerate(files):
            cls.plain.append(os.path.join(cls.dir, f"plain-{k}.csv"))
            with open(cls.plain[-1], "w", encoding="utf-8", newline="") as g:
                g.write(csv_text(f))
        # The time-merged concatenation, built here: stable sort by time over the rows in file
        # order then line order (Python's sort is stable). Bad rows keep their place.
        tagged = [(r["time"], k, i, r) for k, f in enumerate(files) for i, r in enumerate(f)]
        merged = [r for _, _, _, r in sorted(tagged, key=lambda x: x[0])]
        cls.concat = os.path.join(cls.dir, "all.csv")
        with open(cls.concat, "w", encoding="utf-8", newline="") as g:
            g.write(csv_text(merged))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def profile(self, *inputs, name="r", options=()):
        prefix = os.path.join(self.dir, name)
        p = env.run(["profile", *inputs, "-o", prefix, "--salt-file", self.salt, "-q",
                     *options])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(prefix + ".json") as f:
            return json.load(f)

    def test_equals_profile_of_time_merged_concatenation(self):
        many = self.profile(self.a, self.b, self.c, name="many")
        one = self.profile(self.concat, name="one")
        n = sum(len(f) for f in self.files)
        self.assertEqual(one["counts"]["rows"], n)
        self.assertEqual(one["counts"]["skipped"], 3)
        # The traffic must be non-trivial for the comparison to mean something: reuse within and
        # across conversations, conversations spanning files, the session id seen.
        self.assertGreater(one["ceiling"]["hit_rate"], 0.3)
        self.assertEqual(one["distributions"]["conversations"], 9)
        self.assertEqual(one["distributions"]["turns"]["max"], 4)
        self.assertEqual(comparable(many), comparable(one))

    def test_csv_files_of_one_source_equal_the_concatenation(self):
        # Conversations continue from file to file, so the workers kept across files find the
        # earlier turns in their memos: the records (and the report) must not depend on it.
        one = self.profile(self.concat, name="one")
        for threads in ("1", "2"):
            with self.subTest(threads=threads):
                many = self.profile(*self.plain, name=f"plain-{threads}",
                                    options=("--threads", threads))
                self.assertEqual([f["requests"] for f in many["input"]["files"]],
                                 [len(f) - 1 for f in self.files])
                self.assertEqual(comparable(many), comparable(one))

    def test_per_file_counts(self):
        many = self.profile(self.a, self.b, self.c, name="many")
        files = many["input"]["files"]
        self.assertEqual([f["file"] for f in files], [self.a, self.b, self.c])
        self.assertEqual([f["encoding"] for f in files], ["gzip", "zstd", "plain"])
        self.assertEqual([f["format"] for f in files], ["csv", "jsonl", "csv"])
        self.assertEqual(many["input"]["format"], "mixed")
        self.assertEqual(many["input"]["encoding"], "mixed")
        self.assertEqual(many["input"]["file"], "3 files")
        for k, f in enumerate(files):
            self.assertEqual(f["rows"], len(self.files[k]), f)
            self.assertEqual(f["requests"], len(self.files[k]) - 1, f)
            self.assertEqual(f["skipped"], 1, f)
            # The bad row is data row 4 + k of its file: line 5 + k of a CSV file (after the
            # header), line 4 + k of the JSON lines file.
            (entry,) = f["skipped_by_reason"].values()
            self.assertEqual(entry["first_lines"], [4 + k + (f["format"] == "csv")], f)
        self.assertEqual(sum(f["bytes"] for f in files), many["input"]["bytes"])
        self.assertEqual(many["counts"]["skipped"], 3)
        with open(os.path.join(env.SOURCE_DIR, "docs", "report.schema.json")) as f:
            schema = json.load(f)
        self.assertEqual(json_schema_subset.validate(many, schema), [])

    def test_glob_expanded_by_the_tool(self):
        by_glob = self.profile(os.path.join(self.dir, "[abc].*"), name="glob")
        self.assertEqual([f["file"] for f in by_glob["input"]["files"]],
                         [self.a, self.b, self.c])
        many = self.profile(self.a, self.b, self.c, name="many")
        self.assertEqual(comparable(by_glob), comparable(many))
        p = env.run(["profile", os.path.join(self.dir, "nothing-*.csv"), "-o",
                     os.path.join(self.dir, "x"), "--salt-file", self.salt, "-q"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("no file matches", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x.json")))

    def test_export_equals_export_of_concatenation(self):
        outs = {}
        for name, inputs in (("many", [self.a, self.b, self.c]), ("one", [self.concat])):
            out = os.path.join(self.dir, f"{name}.bailian.jsonl")
            p = env.run(["export", *inputs, "--to", "bailian", "-o", out, "--salt-file",
                         self.salt, "-q"])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                outs[name] = f.read()
        self.assertGreater(outs["one"].count("\n"), 30)
        self.assertEqual(outs["many"], outs["one"])

    def test_mixing_a_hashed_trace_with_a_gateway_log_is_refused(self):
        trace = os.path.join(self.dir, "t.jsonl")
        with open(trace, "w") as f:
            f.write(json.dumps({"timestamp": 0, "input_length": 512, "output_length": 1,
                                "hash_ids": [1]}) + "\n")
        p = env.run(["profile", self.c, trace, "-o", os.path.join(self.dir, "y"),
                     "--salt-file", self.salt, "-q"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("all be gateway logs or all the same hashed-trace format", p.stderr)


if __name__ == "__main__":
    unittest.main()
