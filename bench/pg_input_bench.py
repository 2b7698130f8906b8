"""PostgreSQL input speed (issue 15): one throw-away server (the test's PostgresServer: initdb +
pg_ctl on a private socket), LiteLLM's LiteLLM_SpendLogs table filled with a generated multi-turn
workload, then in one script, the same rows three ways:
  1. `profile postgresql://...?table=LiteLLM_SpendLogs` (libpq cursor, the built-in reader);
  2. `psql -c "\\copy (SELECT ...) TO STDOUT CSV HEADER" | profile -` (the documented pipe);
  3. `profile FILE.csv` on the same rows already on disk (the baseline).
Prints rows/s and the ratio of 1 and 2 to 3, and checks that the three reports agree.
Usage: /usr/bin/python3 bench/pg_input_bench.py BINARY [N_CONVERSATIONS] [TURNS]"""
import csv
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
import test_postgres_input as pg  # noqa: E402
from test_gateway_sources import workload  # noqa: E402


def timed(argv, stdin=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = time.monotonic()
    r = subprocess.run(argv, stdin=stdin, capture_output=True, text=True)
    wall = time.monotonic() - s
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{argv[:3]}: exit {r.returncode}: {r.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    binary = os.path.abspath(sys.argv[1])
    n_conv = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    turns = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    root = tempfile.mkdtemp(prefix="ltl-pg-bench-")
    server = None
    try:
        server = pg.PostgresServer(os.path.join(root, "pg"))
        pg.psql(server.uri(db="postgres"), "-c", "CREATE DATABASE ltltest")
        uri = server.uri()
        pg.psql(uri, "-c", pg.CREATE_TABLE)
        rows = pg.spendlog_rows(workload(n_conv=n_conv, turns=turns))
        f = io.StringIO()
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        cols = ", ".join(f'"{c}"' for c in rows[0].keys())
        pg.psql(uri, "-c", f'\\copy "{pg.TABLE}" ({cols}) FROM STDIN CSV HEADER',
                stdin=f.getvalue().encode())
        query = f'SELECT * FROM "{pg.TABLE}" ORDER BY "startTime"'
        csv_file = os.path.join(root, "spendlogs.csv")
        with open(csv_file, "wb") as out:
            out.write(pg.psql(uri, "-c", f"\\copy ({query}) TO STDOUT CSV HEADER"))
        mb = os.path.getsize(csv_file) / 1e6
        salt = os.path.join(root, "salt")
        common = ["-q", "--salt-file", salt]
        reports = {}
        results = {}
        for name in ("csv", "table", "pipe"):
            out = os.path.join(root, name)
            if name == "csv":
                results[name] = timed([binary, "profile", csv_file, "-o", out] + common)
            elif name == "table":
                results[name] = timed([binary, "profile", uri, "-o", out] + common)
            else:
                conn = uri.split("&table=")[0]
                psql = subprocess.Popen(["psql", "-X", "-q", "-d", conn, "-c",
                                         f"\\copy ({query}) TO STDOUT CSV HEADER"],
                                        stdout=subprocess.PIPE)
                results[name] = timed([binary, "profile", "-", "-o", out] + common,
                                      stdin=psql.stdout)
                psql.stdout.close()
                psql.wait()
            reports[name] = pg.comparable(json.load(open(out + ".json")))
        assert reports["table"] == reports["csv"] == reports["pipe"], "the three reports differ"
        n = len(rows)
        print(f"# {time.strftime('%Y-%m-%d', time.gmtime())} · {os.cpu_count()} cores · "
              f"load {os.getloadavg()[0]:.1f} · {n:,} LiteLLM_SpendLogs rows ({mb:.1f} MB as CSV)")
        base_wall, base_cpu = results["csv"]
        for name, label in (("csv", "profile FILE.csv (baseline)"),
                            ("table", "profile postgresql://...?table="),
                            ("pipe", "psql \\copy ... | profile -")):
            wall, cpu = results[name]
            print(f"{label:34s} {n / wall:9,.0f} rows/s wall  {wall:6.2f} s  "
                  f"(x{base_wall / wall:.2f} of baseline; {cpu:.2f} s CPU in llmtrafficlens)")
        print("the three reports are identical (input name and encoding aside)")
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
