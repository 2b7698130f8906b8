"""CSV runaway-quote recovery (issue 17 item 3): one broken quote in row 101 of a 10,000-row
gateway log must cost the damaged row, not the rest of the file. Python's csv module (written
independently, lenient by default) is the reference for what is recoverable: every row it reads
with the header's field count and a JSON body is a request here too, and every row not read is
counted as skipped, with a warning naming its line; `--max-skip-share 0` turns any loss into
exit 1."""
import csv
import io
import json
import os
import shutil
import unittest

import ltl_test_env as env

ROWS = 10_000
DAMAGED = 101  # 1-based data row; file line DAMAGED + 1


def clean_lines():
    f = io.StringIO()
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["request_json", "model_name", "timestamp"])
    for i in range(ROWS):
        body = {"model": "gpt-4o", "messages": [
            {"role": "system", "content": "You are helpful, precise, brief."},
            {"role": "user", "content": f"question {i}, with \"quotes\", commas"}]}
        w.writerow([json.dumps(body), "gpt-4o", 1767225600 + i])
    return f.getvalue().splitlines(keepends=True)


def damage(lines, how):
    """Breaks one quote in data row DAMAGED."""
    k = DAMAGED
    line = lines[k]
    if how == "doubled_quote_halved":  # `""content""` -> `"content""`: the field closes early
        lines[k] = line.replace('""content""', '"content""', 1)
    elif how == "stray_opening_quote":  # an unquoted field opens a quote that never closes
        lines[k] = line.replace(",gpt-4o,", ',"gpt-4o,', 1)
    elif how == "closing_quote_lost":  # the body's closing quote is gone: it runs into row 102
        lines[k] = line.replace('}]}",', "}]},", 1)
    else:
        raise AssertionError(how)
    assert lines[k] != line, how
    return lines


def python_readable(text):
    """Rows Python's csv module reads with 3 fields and a JSON body holding messages."""
    good = 0
    rows = list(csv.reader(io.StringIO(text)))
    for row in rows[1:]:
        if len(row) != 3:
            continue
        try:
            if isinstance(json.loads(row[0]).get("messages"), list):
                good += 1
        except (ValueError, AttributeError):
            pass
    return good


class CsvRecovery(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def profile(self, path, *args):
        out = os.path.join(self.dir, "r")
        r = env.run(["profile", path, "-o", out, "--salt-file", os.path.join(self.dir, "salt"),
                     "-q"] + list(args))
        rep = None
        if os.path.exists(out + ".json") and r.returncode in (0, 1):
            with open(out + ".json") as f:
                rep = json.load(f)
            os.unlink(out + ".json")
        return r, rep

    def test_one_broken_quote_costs_only_its_rows(self):
        for how in ("doubled_quote_halved", "stray_opening_quote", "closing_quote_lost"):
            with self.subTest(damage=how):
                text = "".join(damage(clean_lines(), how))
                path = os.path.join(self.dir, f"{how}.csv")
                with open(path, "w") as f:
                    f.write(text)
                reference = python_readable(text)
                self.assertGreaterEqual(reference, ROWS - 2, how)
                r, rep = self.profile(path)
                self.assertEqual(r.returncode, 0, r.stderr)
                counts = rep["counts"]
                # Everything Python recovers is read, and here only the damaged row is lost.
                self.assertGreaterEqual(counts["requests"], reference, how)
                self.assertEqual(counts["requests"], ROWS - 1, (how, counts["skipped_by_reason"]))
                # Every row is a request or a counted skip: nothing vanishes.
                self.assertEqual(counts["requests"] + counts["skipped"], ROWS, how)
                lines = sorted(n for v in counts["skipped_by_reason"].values()
                               for n in v["first_lines"])
                self.assertEqual(lines, [DAMAGED + 1], how)
                # Not silent: the loss is warned about on stderr, naming the line.
                self.assertIn(f"{path}:{DAMAGED + 1}: ", r.stderr, how)
                self.assertIn("(row skipped)", r.stderr, how)
                # Any loss fails the run when the user allows none.
                r0, _ = self.profile(path, "--max-skip-share", "0")
                self.assertEqual(r0.returncode, 1, r0.stderr)

    def test_a_quote_left_open_across_many_lines_is_counted_line_by_line(self):
        # A record whose quoted field opens in row 101 and closes in row 105 with garbage after it:
        # rows 101..105 are damaged; the reader resumes at row 106 and counts each lost line.
        lines = clean_lines()
        lines[DAMAGED] = lines[DAMAGED].replace('}]}",', "}]},", 1)
        for k in range(DAMAGED + 1, DAMAGED + 5):
            lines[k] = lines[k].replace('"', "'")  # no quote at all: the field keeps running
        text = "".join(lines)
        path = os.path.join(self.dir, "open.csv")
        with open(path, "w") as f:
            f.write(text)
        r, rep = self.profile(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        counts = rep["counts"]
        self.assertEqual(counts["requests"] + counts["skipped"], ROWS)
        # Rows 102..105 lost their quotes, so they are not valid records either: 5 rows lost.
        self.assertEqual(counts["skipped"], 5, counts["skipped_by_reason"])
        self.assertGreaterEqual(counts["requests"], python_readable(text))



class OversizedRecord(unittest.TestCase):
    def test_lines_of_an_oversized_record_are_not_called_a_broken_quote(self):
        # Issue 35, item 13: a well-quoted multi-line record over --max-line-bytes was counted,
        # line by line, as "lost resynchronizing after a broken quoted field": no quote is broken.
        d = env.tempdir()
        log = os.path.join(d, "big.csv")
        f = io.StringIO()
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["request_json", "model_name", "timestamp"])
        for i in range(6):
            content = "line\n" * 2000 if i == 2 else f"q{i}"
            body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user",
                                                                "content": content}]},
                              indent=1 if i == 2 else None)
            w.writerow([body, "gpt-4o", 1767225600 + i])
        with open(log, "w") as out:
            out.write(f.getvalue())
        r = env.run(["profile", log, "-o", os.path.join(d, "r"), "-q", "--max-line-bytes", "4K",
                     "--max-skip-share", "1", "--salt-file", os.path.join(d, "salt")])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(d, "r.json")) as rf:
            rep = json.load(rf)
        reasons = rep["counts"]["skipped_by_reason"]
        self.assertEqual(rep["counts"]["requests"], 5)
        self.assertIn("CSV record longer than 4096 bytes", reasons)
        self.assertFalse([k for k in reasons if "broken quoted field" in k], reasons)
        self.assertIn("CSV line lost resynchronizing after a record over a size limit (CSV record "
                      "longer than 4096 bytes)", reasons)

if __name__ == "__main__":
    unittest.main()
