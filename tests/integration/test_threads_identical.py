"""--threads changes how fast a profile runs, never what it says: report.json is byte-identical for
1, 2 and 5 threads on the example log, on a generated multi-batch gateway log (CSV and JSONL, with
bad rows planted between batches so the skip examples' order is checked), and on a public hashed
trace with every eviction policy. Row counts are checked against Python's csv module, so a batch
lost or processed twice would fail even if every thread count lost it alike."""
import csv
import json
import os
import subprocess
import sys
import unittest

import ltl_test_env as env

THREADS = ("1", "2", "5")


class ThreadsGiveIdenticalReports(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.salt = os.path.join(self.dir, "salt")

    def reports(self, path, *extra):
        out = {}
        for t in THREADS:
            prefix = os.path.join(self.dir, f"r{t}")
            p = env.run(["profile", path, "-o", prefix, "--salt-file", self.salt, "-q",
                         "--threads", t, *extra], cwd=self.dir)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(prefix + ".json", "rb") as f:
                out[t] = f.read()
        for t in THREADS[1:]:
            self.assertEqual(out[t], out["1"], f"--threads {t} differs from --threads 1 on {path}")
        return json.loads(out["1"])

    def generated_csv(self):
        path = os.path.join(self.dir, "gen.csv")
        gen = os.path.join(env.SOURCE_DIR, "bench", "gen_gateway_csv.py")
        subprocess.run([sys.executable, gen, path, "--mb", "20", "--seed", "7"], check=True)
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        header, data = rows[0], rows[1:]
        # Bad rows at several places, so they fall into different batches (a batch closes at 512
        # rows or 4 MiB of fields, ingest/gateway_readers.cc).
        # All with the same reason, so the first five examples must come out in file order.
        bad = {k: "not json" for k in (900, 100, 500, 300, 700, 850, 20)}
        out = [header]
        for i, row in enumerate(data):
            if i in bad:
                junk = list(row)
                junk[header.index("request_json")] = bad[i]
                out.append(junk)
            out.append(row)
        with open(path, "w", encoding="utf-8", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(out)
        return path, header, out[1:], len(bad)

    def test_example_log(self):
        r = self.reports(os.path.join(env.SOURCE_DIR, "examples", "gateway.csv"))
        self.assertGreater(r["counts"]["requests"], 100)

    def test_generated_csv_and_jsonl(self):
        path, header, rows, planted = self.generated_csv()
        self.assertGreater(os.path.getsize(path), 4 * (4 << 20), "the log must span several batches")
        self.assertGreater(len(rows), 900)
        r = self.reports(path)
        self.assertEqual(r["counts"]["requests"], len(rows) - planted)
        skipped = r["counts"]["skipped_by_reason"]
        self.assertEqual(list(skipped), ["invalid JSON in request_json"])
        self.assertEqual(skipped["invalid JSON in request_json"]["count"], planted)
        # Record numbers of the planted rows (header = 1, then one record per line; each planted
        # row shifts the later ones by one): the first five, in file order.
        self.assertEqual(skipped["invalid JSON in request_json"]["first_lines"], [22, 103, 304, 505, 706])
        # The same rows as JSON lines (body under request_json, the time beside it).
        jsonl = os.path.join(self.dir, "gen.jsonl")
        ti, bi = header.index("startTime"), header.index("request_json")
        with open(jsonl, "w", encoding="utf-8") as f:
            for row in rows:
                try:
                    body = json.loads(row[bi])
                except ValueError:
                    body = row[bi]
                f.write(json.dumps({"startTime": row[ti], "request_json": body}) + "\n")
        rj = self.reports(jsonl)
        self.assertEqual(rj["counts"]["requests"], len(rows) - planted)

    def test_hashed_trace_with_every_policy(self):
        trace = env.shared("conversation_trace.jsonl")
        if trace is None:
            self.skipTest("public trace not present (LTL_SHARED_DATA)")
        r = self.reports(trace, "--kvcache-sim", "glm-5.2")
        self.assertIn("kv_cache", r)


if __name__ == "__main__":
    unittest.main()
