"""PostgreSQL input speed (issue 15): one throw-away server (the test's PostgresServer: initdb +
pg_ctl on a private socket), LiteLLM's LiteLLM_SpendLogs table filled with a generated multi-turn
workload, then in one script, the same rows three ways:
  1. `profile postgresql://...?table=LiteLLM_SpendLogs` (the built-in reader: libpq COPY stream);
  2. `psql -c "\\copy (SELECT ...) TO STDOUT CSV HEADER" | profile -` (the documented pipe);
  3. `profile FILE.csv` on the same rows already on disk (the baseline).
Each path runs REPEAT times (env, default 3), the paths alternating so a shared machine's load falls
on all of them alike; medians are printed. With BASE_BIN set (a binary built from an older commit),
its built-in reader runs too, alternating with the others, and is printed as a fourth row.
Prints rows/s and the ratio of each path to 3, and checks that the reports agree.
Usage: [REPEAT=N] [BASE_BIN=OLD_BINARY] /usr/bin/python3 bench/pg_input_bench.py BINARY [N_CONV] [TURNS]"""
import csv
import io
import json
import os
import statistics
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
        base_bin = os.environ.get("BASE_BIN")
        paths = ["csv", "table", "pipe"] + (["base"] if base_bin else [])
        reports = {}
        results = {name: [] for name in paths}
        for _ in range(int(os.environ.get("REPEAT", "3"))):
            for name in paths:
                out = os.path.join(root, name)
                if name == "csv":
                    t = timed([binary, "profile", csv_file, "-o", out] + common)
                elif name in ("table", "base"):
                    exe = binary if name == "table" else os.path.abspath(base_bin)
                    t = timed([exe, "profile", uri, "-o", out] + common)
                else:
                    conn = uri.split("&table=")[0]
                    psql = subprocess.Popen(["psql", "-X", "-q", "-d", conn, "-c",
                                             f"\\copy ({query}) TO STDOUT CSV HEADER"],
                                            stdout=subprocess.PIPE)
                    t = timed([binary, "profile", "-", "-o", out] + common, stdin=psql.stdout)
                    psql.stdout.close()
                    psql.wait()
                results[name].append(t)
                reports[name] = pg.comparable(json.load(open(out + ".json")))
        assert all(r == reports["csv"] for r in reports.values()), "the reports differ"
        n = len(rows)
        print(f"# {time.strftime('%Y-%m-%d', time.gmtime())} · {os.cpu_count()} cores · "
              f"load {os.getloadavg()[0]:.1f} · {n:,} LiteLLM_SpendLogs rows ({mb:.1f} MB as CSV)"
              f" · medians of {len(results['csv'])} alternating runs")
        median = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
                  for name, runs in results.items()}
        base_wall = median["csv"][0]
        labels = {"csv": "profile FILE.csv (baseline)",
                  "table": "profile postgresql://...?table=",
                  "pipe": "psql \\copy ... | profile -",
                  "base": "BASE_BIN profile postgresql://..."}
        for name in paths:
            wall, cpu = median[name]
            print(f"{labels[name]:34s} {n / wall:9,.0f} rows/s wall  {wall:6.2f} s  "
                  f"(x{base_wall / wall:.2f} of baseline; {cpu:.2f} s CPU in llmtrafficlens)")
        print("the reports are identical (input name and encoding aside)")
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
