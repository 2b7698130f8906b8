"""PostgreSQL as an input (issue 15 item 6): a real server (Debian `postgresql`, initdb into a temp
directory, pg_ctl on a private socket directory with no TCP listener, run as the `postgres` OS user
when the test runs as root), LiteLLM's own LiteLLM_SpendLogs table (column names and types from
BerriAI/litellm schema.prisma @ 029f645f1c81cbd6c6c48fbc8490d91da937066f, model LiteLLM_SpendLogs,
as Prisma maps them to PostgreSQL: String TEXT, Int INTEGER, Float DOUBLE PRECISION, DateTime
TIMESTAMP(3), Json JSONB), a generated multi-turn workload (tool-calling conversations resending
history, failed requests, client session ids among LiteLLM's per-request uuid4 fillers).

Checked: `profile postgresql://...?table=LiteLLM_SpendLogs` and
`psql -c "\\copy (...) TO STDOUT CSV HEADER" | profile -` give the same report (input name and
encoding aside) and the workload's own counts; `--since/--until` cut exactly the rows of the
window (and equal the piped form of the same WHERE); `export` gives the same trace both ways;
errors (no such table, wrong password, no server, a hostile table name) are one line naming the URI
without its password. The server is stopped and its directory removed at the end, also on failure.
"""
import csv
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ltl_test_env as env  # noqa: E402
from test_gateway_sources import body, expected, filler_or_real, pg_time, workload  # noqa: E402

# The newest Debian server binaries present (postgresql-15 on bookworm); "" when none are.
PG_BIN = (sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                 key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
          or [""])[-1].rsplit("/", 1)[0]
PASSWORD = "s3cret-Pw"
TABLE = "LiteLLM_SpendLogs"

# schema.prisma @ 029f645f, model LiteLLM_SpendLogs, in the schema's column order.
CREATE_TABLE = f'''CREATE TABLE "{TABLE}" (
    "request_id" TEXT NOT NULL,
    "call_type" TEXT NOT NULL,
    "api_key" TEXT NOT NULL DEFAULT '',
    "spend" DOUBLE PRECISION NOT NULL DEFAULT 0.0,
    "total_tokens" INTEGER NOT NULL DEFAULT 0,
    "prompt_tokens" INTEGER NOT NULL DEFAULT 0,
    "completion_tokens" INTEGER NOT NULL DEFAULT 0,
    "startTime" TIMESTAMP(3) NOT NULL,
    "endTime" TIMESTAMP(3) NOT NULL,
    "request_duration_ms" INTEGER,
    "completionStartTime" TIMESTAMP(3),
    "model" TEXT NOT NULL DEFAULT '',
    "model_id" TEXT DEFAULT '',
    "model_group" TEXT DEFAULT '',
    "custom_llm_provider" TEXT DEFAULT '',
    "api_base" TEXT DEFAULT '',
    "user" TEXT DEFAULT '',
    "metadata" JSONB DEFAULT '{{}}',
    "cache_hit" TEXT DEFAULT '',
    "cache_key" TEXT DEFAULT '',
    "request_tags" JSONB DEFAULT '[]',
    "team_id" TEXT,
    "organization_id" TEXT,
    "end_user" TEXT,
    "requester_ip_address" TEXT,
    "messages" JSONB DEFAULT '{{}}',
    "response" JSONB DEFAULT '{{}}',
    "session_id" TEXT,
    "status" TEXT,
    "mcp_namespaced_tool_name" TEXT,
    "agent_id" TEXT,
    "proxy_server_request" JSONB DEFAULT '{{}}',
    CONSTRAINT "{TABLE}_pkey" PRIMARY KEY ("request_id")
);
CREATE INDEX "{TABLE}_startTime_idx" ON "{TABLE}"("startTime");'''


def spendlog_rows(calls):
    """Rows as LiteLLM writes them: NULLs where LiteLLM leaves a column empty, usage logged."""
    rows = []
    for i, c in enumerate(calls):
        n_in = sum(len(json.dumps(m)) for m in c["messages"]) // 4
        rows.append({
            "request_id": f"chatcmpl-{i:05d}", "call_type": "acompletion", "api_key": "88dc28d0f03",
            "spend": 0.0012, "total_tokens": n_in + 20, "prompt_tokens": n_in,
            "completion_tokens": 20, "startTime": pg_time(c["t"]),
            "endTime": pg_time(c["t"] + 2.5), "request_duration_ms": 2500,
            "completionStartTime": "" if c["failed"] else pg_time(c["t"] + 0.4),
            "model": "gpt-4o", "model_group": "gpt-4o", "custom_llm_provider": "openai",
            "api_base": "https://api.openai.com", "user": "", "metadata": json.dumps(
                {"user_api_key_alias": "team-a", "additional_usage_values": {}}),
            "cache_hit": "False", "request_tags": "[]", "team_id": "",
            "session_id": filler_or_real(c), "status": "failure" if c["failed"] else "success",
            "messages": "{}", "response": "{}", "proxy_server_request": json.dumps(body(c))})
    return rows


def comparable(report):
    """report.json without what names the run rather than the traffic."""
    rep = json.loads(json.dumps(report))
    for key in ("file", "name", "encoding", "bytes", "path", "files"):
        rep.get("input", {}).pop(key, None)
    for key in ("generated_at", "run", "settings", "elapsed_s", "version"):
        rep.pop(key, None)
    return rep


class PostgresServer:
    """A throw-away cluster: initdb, pg_ctl start on a private socket directory, stop + remove."""

    def __init__(self, root):
        self.root = root
        self.data = os.path.join(root, "data")
        self.sock = os.path.join(root, "sock")
        os.mkdir(root, 0o700)
        os.mkdir(self.sock, 0o700)
        self.as_root = os.geteuid() == 0
        if self.as_root:  # initdb refuses to run as root: the cluster belongs to `postgres`
            os.chmod(os.path.dirname(root), 0o711)  # postgres may pass through, not list
            shutil.chown(root, "postgres")
            shutil.chown(self.sock, "postgres")
        pw = os.path.join(root, "pw")
        with open(pw, "w") as f:
            f.write(PASSWORD + "\n")
        if self.as_root:
            shutil.chown(pw, "postgres")
        self.run([f"{PG_BIN}/initdb", "-D", self.data, "-U", "ltl", "--pwfile", pw,
                  "-A", "scram-sha-256", "--no-sync", "-E", "UTF8", "--locale", "C"])
        os.unlink(pw)
        self.run([f"{PG_BIN}/pg_ctl", "-D", self.data, "-w", "-l", os.path.join(root, "log"),
                  "-o", f"-k {self.sock} -c listen_addresses='' -c fsync=off", "start"])
        self.started = True

    def run(self, argv):
        if self.as_root:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"{argv} failed: {r.stdout}{r.stderr}")
        return r

    def uri(self, db="ltltest", password=PASSWORD, table=TABLE, extra=""):
        auth = f"ltl:{password}" if password else "ltl"
        return f"postgresql://{auth}@/{db}?host={self.sock}&table={table}{extra}"

    def stop(self):
        if getattr(self, "started", False):
            self.run([f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"])
            self.started = False


def psql(uri, *args, stdin=None):
    # psql is given the URI without our table= parameter (libpq would refuse it).
    conn = uri.split("&table=")[0]
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", conn] + list(args),
                       input=stdin, capture_output=True)
    if r.returncode != 0:
        raise AssertionError(f"psql {args}: {r.stderr.decode()}")
    return r.stdout


class PostgresInput(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not PG_BIN or not shutil.which("psql"):
            msg = ("PostgreSQL server binaries not installed (no /usr/lib/postgresql/*/bin/"
                   "initdb; scripts/install-deps.sh --test installs them)")
            if os.environ.get("CI"):
                raise AssertionError(msg)
            env.skip(msg)
        cls.dir = env.tempdir()
        cls.addClassCleanup(shutil.rmtree, cls.dir, ignore_errors=True)
        cls.server = None
        try:
            cls.server = PostgresServer(os.path.join(cls.dir, "pg"))
        finally:
            if cls.server is not None:
                cls.addClassCleanup(cls.server.stop)
        admin = cls.server.uri(db="postgres")
        psql(admin, "-c", "CREATE DATABASE ltltest")
        cls.uri = cls.server.uri()
        psql(cls.uri, "-c", CREATE_TABLE)
        cls.calls = workload(n_conv=40, turns=6)  # 240 rows
        rows = spendlog_rows(cls.calls)
        f = io.StringIO()
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        cols = ", ".join(f'"{c}"' for c in rows[0].keys())
        # Empty unquoted fields load as NULL (completionStartTime of failed calls, team_id, ...).
        psql(cls.uri, "-c", f'\\copy "{TABLE}" ({cols}) FROM STDIN CSV HEADER',
             stdin=f.getvalue().encode())
        n = psql(cls.uri, "-t", "-A", "-c", f'SELECT count(*) FROM "{TABLE}"').decode().strip()
        assert n == str(len(rows)), n
        cls.salt = os.path.join(cls.dir, "salt")

    def profile(self, source, *args, stdin=None, expect=0):
        out = os.path.join(self.dir, "r")
        r = env.run(["profile", source, "-q", "-o", out, "--salt-file", self.salt] + list(args),
                    stdin=stdin)
        self.assertEqual(r.returncode, expect, r.stderr)
        if expect != 0:
            return r
        with open(out + ".json") as f:
            return json.load(f)

    def piped(self, query):
        return psql(self.uri, "-c", f"\\copy ({query}) TO STDOUT CSV HEADER")

    def test_table_and_piped_copy_give_the_same_report(self):
        direct = self.profile(self.uri)
        piped = self.profile("-", stdin=self.piped(f'SELECT * FROM "{TABLE}"'))
        self.assertEqual(direct["input"]["encoding"], "postgresql")
        self.assertEqual(direct["input"]["detection"]["source"], "litellm-spendlogs")
        self.assertEqual(comparable(direct), comparable(piped))
        exp = expected(self.calls)
        self.assertEqual(direct["counts"]["requests"], exp["requests"])
        self.assertEqual(direct["counts"]["filtered_status"], exp["failed"])
        self.assertEqual(direct["counts"]["skipped"], 0, direct["counts"]["skipped_by_reason"])
        self.assertAlmostEqual(direct["session_ids"]["share"], exp["share"], places=12)
        self.assertEqual(direct["distributions"]["conversations"], exp["conversations"])
        self.assertGreater(direct["ceiling"]["hit_rate"], 0.3)
        # The report names the database without the password.
        text = json.dumps(direct)
        self.assertNotIn(PASSWORD, text)

    def test_since_until_cut_the_window(self):
        times = sorted({c["t"] for c in self.calls})
        lo, hi = times[len(times) // 4], times[3 * len(times) // 4]
        inside = [c for c in self.calls if lo <= c["t"] < hi]
        want = sum(1 for c in inside if not c["failed"])
        self.assertTrue(0 < want < expected(self.calls)["requests"])
        since, until = pg_time(lo).replace(" ", "T") + "Z", pg_time(hi).replace(" ", "T") + "Z"
        direct = self.profile(self.uri, "--since", since, "--until", until)
        self.assertEqual(direct["counts"]["requests"], want)
        self.assertEqual(direct["counts"]["filtered_status"], len(inside) - want)
        piped = self.profile("-", stdin=self.piped(
            f'SELECT * FROM "{TABLE}" WHERE "startTime" >= \'{pg_time(lo)}\' '
            f'AND "startTime" < \'{pg_time(hi)}\''))
        self.assertEqual(comparable(direct), comparable(piped))
        # Only a lower bound: everything from lo on; epoch seconds are accepted too.
        only_since = self.profile(self.uri, "--since", str(lo))
        self.assertEqual(only_since["counts"]["requests"],
                         sum(1 for c in self.calls if c["t"] >= lo and not c["failed"]))
        # A window with nothing in it: exit 2, nothing written.
        r = self.profile(self.uri, "--since", "2001-01-01", "--until", "2001-01-02", expect=2)
        self.assertNotIn(PASSWORD, r.stderr)

    def test_export_reads_the_table_like_the_piped_copy(self):
        a, b = os.path.join(self.dir, "a.jsonl"), os.path.join(self.dir, "b.jsonl")
        r = env.run(["export", self.uri, "--to", "mooncake", "-o", a, "-q", "--salt-file",
                     self.salt])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = env.run(["export", "-", "--to", "mooncake", "-o", b, "-q", "--salt-file", self.salt],
                    stdin=self.piped(f'SELECT * FROM "{TABLE}"'))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(a) as fa, open(b) as fb:
            lines = fa.read()
            self.assertEqual(lines, fb.read())
        self.assertEqual(len(lines.splitlines()), expected(self.calls)["requests"])

    def assertOneLineError(self, r, must_contain):
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith("llmtrafficlens: postgresql://ltl@/"), lines[0])
        self.assertIn(must_contain, lines[0])
        self.assertNotIn(PASSWORD, r.stderr)
        self.assertNotIn("wrong-Pw", r.stderr)

    def test_errors_are_one_line_without_the_password(self):
        r = self.profile(self.server.uri(table="NoSuchTable"), expect=2)
        self.assertOneLineError(r, 'relation "NoSuchTable" does not exist')
        r = self.profile(self.server.uri(password="wrong-Pw"), expect=2)
        self.assertOneLineError(r, 'password authentication failed for user "ltl"')
        empty_dir = os.path.join(self.dir, "no-server")
        os.makedirs(empty_dir, exist_ok=True)
        r = self.profile(f"postgresql://ltl:{PASSWORD}@/ltltest?host={empty_dir}&table={TABLE}",
                         expect=2)
        self.assertOneLineError(r, "cannot connect")
        r = self.profile(self.uri, "--time-field", "noSuchColumn", "--since", "2026-01-01",
                         expect=2)
        self.assertOneLineError(r, 'column "noSuchColumn" does not exist')
        # A table name is an identifier, never SQL: this one names no table, and the table stays.
        hostile = 'x"; DROP TABLE "LiteLLM_SpendLogs"; --'
        r = self.profile(self.server.uri(table=hostile.replace(" ", "%20")), expect=2)
        self.assertOneLineError(r, "does not exist")
        n = psql(self.uri, "-t", "-A", "-c", f'SELECT count(*) FROM "{TABLE}"').decode().strip()
        self.assertEqual(n, str(len(self.calls)))

    def test_no_secret_in_any_message_or_report(self):
        # Issue 35, item 8: sslpassword= reached error messages and, on a successful run, report.json
        # input.file and report.html; a password with '%' not followed by two hex digits came back
        # whole through libpq's parse error; PASSWORD= as written, and a raw '@' partly. Only user,
        # host, port and database are printed now, and libpq's own messages are scrubbed.
        ssl = "SSLpw-q8Zr7"
        out = os.path.join(self.dir, "ok")
        r = env.run(["profile", self.uri + f"&sslpassword={ssl}", "-q", "-o", out,
                     "--salt-file", self.salt])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out + ".json") as f:
            text = f.read()
        with open(out + ".html") as f:
            html = f.read()
        self.assertEqual(json.loads(text)["input"]["file"],
                         f"postgresql://ltl@/ltltest?host={self.server.sock}")
        for where in (text, html, r.stdout, r.stderr):
            self.assertNotIn(ssl, where)
            self.assertNotIn(PASSWORD, where)
        sock = self.server.sock
        cases = [
            # wrong password plus an sslpassword: libpq's authentication error
            (self.server.uri(password="wrong-Pw") + f"&sslpassword={ssl}", [ssl, "wrong-Pw"]),
            # '%' not followed by two hex digits: libpq's parse error quotes the token
            (f"postgresql://ltl:pa%zzPct-s3cret@/ltltest?host={sock}&table={TABLE}",
             ["zzPct-s3cret", "Pct-s3cret"]),
            # PASSWORD= in capitals is no libpq parameter: libpq names it in its error
            (f"postgresql://ltl@/ltltest?host={sock}&PASSWORD=Caps-s3cret&table={TABLE}",
             ["Caps-s3cret"]),
            # a raw '@' in the password: libpq ends the userinfo at the first '@'
            (f"postgresql://ltl:At@Sign-s3cret@/ltltest?host={sock}&table={TABLE}",
             ["Sign-s3cret", "At@Sign"]),
        ]
        for uri, secrets in cases:
            with self.subTest(uri=uri.split("?")[0]):
                r = self.profile(uri, expect=2)
                self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
                self.assertTrue(r.stderr.startswith("llmtrafficlens: postgresql://"), r.stderr)
                for secret in secrets + [PASSWORD]:
                    self.assertNotIn(secret, r.stderr)

    def test_server_notices_are_scrubbed_warning_lines(self):
        # libpq printed the server's notices raw on stderr; they are the tool's warning lines now.
        # client_min_messages=debug5 makes the server send some for every statement, the first
        # already while the connection is made.
        uri = self.uri + "&options=-c%20client_min_messages%3Ddebug5"
        out = os.path.join(self.dir, "notices")
        r = env.run(["profile", uri, "-q", "-o", out, "--salt-file", self.salt])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stderr.splitlines()
        # The connection's own transaction, then the COPY's read-only transaction (3 lines with
        # PostgreSQL 15); at least two, whatever a server version adds.
        self.assertGreaterEqual(len(lines), 2, r.stderr)
        for line in lines:
            self.assertTrue(line.startswith("llmtrafficlens: warning: postgresql://ltl@/ltltest"
                                            f"?host={self.server.sock}: server notice: "), line)
        self.assertNotIn(PASSWORD, r.stderr)

    def test_server_warnings_are_scrubbed_warning_lines(self):
        # Issue 35, item 19: a WARNING the server raises while the rows are read (here from a
        # function in a view, with the password, a tab and a line break in its text) is one warning
        # line of the tool, password masked, lines joined, control characters escaped, not libpq's
        # raw print.
        view = "WarnView"
        psql(self.uri, "-c", "CREATE OR REPLACE FUNCTION ltl_warn() RETURNS boolean AS $$ BEGIN "
                             f"RAISE WARNING 'leaked %', E'{PASSWORD}\\tsecond\\nthird'; "
                             "RETURN true; END $$ LANGUAGE plpgsql")
        psql(self.uri, "-c", f'CREATE VIEW "{view}" AS SELECT * FROM "{TABLE}" WHERE ltl_warn()')
        out = os.path.join(self.dir, "warnings")
        r = env.run(["profile", self.server.uri(table=view), "-q", "-o", out,
                     "--salt-file", self.salt])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stderr.splitlines()
        self.assertGreater(len(lines), 0, r.stderr)
        prefix = (f"llmtrafficlens: warning: postgresql://ltl@/ltltest?host={self.server.sock}"
                  ": server notice: WARNING:  leaked ***\\x09second; third")
        for line in lines:
            self.assertTrue(line.startswith(prefix), line)
        self.assertNotIn(PASSWORD, r.stderr)

    def test_large_rows_are_fetched_a_few_at_a_time(self):
        """Issue 35, item 14: memory is bounded by bytes, not rows. Six rows of 48 MB each (an
        unused api_key column): a fixed first batch of 100 rows held all 288 MB twice (the
        PGresult and its CSV), over 576 MB; streamed by COPY one row at a time the peak stays near
        a few rows' size. Peak RSS of the run, from getrusage in a wrapper process of its own."""
        big = "BigRows"
        psql(self.uri, "-c", f'CREATE TABLE "{big}" (LIKE "{TABLE}" INCLUDING ALL)')
        psql(self.uri, "-c", f'INSERT INTO "{big}" SELECT * FROM "{TABLE}" '
                             'ORDER BY "startTime" LIMIT 6')
        psql(self.uri, "-c", f'UPDATE "{big}" SET api_key = repeat(\'k\', 48000000)')
        out = os.path.join(self.dir, "big")
        wrapper = ("import resource, subprocess, sys\n"
                   "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
                   "sys.stderr.write(r.stderr)\n"
                   "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
        r = subprocess.run([sys.executable, "-c", wrapper, env.BINARY, "profile",
                            self.server.uri(table=big), "-q", "-o", out, "--salt-file", self.salt,
                            "--threads", "1"], capture_output=True, text=True)
        code, peak_kib = (int(x) for x in r.stdout.split())
        self.assertEqual(code, 0, r.stderr)
        with open(out + ".json") as f:
            rep = json.load(f)
        c = rep["counts"]
        self.assertEqual(c["requests"] + c["filtered_status"], 6, c)
        print(f"six 48 MB rows from PostgreSQL: peak RSS {peak_kib // 1024} MiB", file=sys.stderr)
        if os.environ.get("LTL_SANITIZED") in ("1", "ON", "TRUE", "true"):
            # AddressSanitizer keeps freed buffers in its quarantine (256 MB by default): the peak
            # there says nothing about how many rows a batch held (524 MiB measured). The
            # optimised suite checks the bound.
            return
        self.assertLess(peak_kib, 450 * 1024, f"peak RSS {peak_kib} KiB")

    def test_since_on_a_file_is_refused(self):
        p = os.path.join(self.dir, "t.csv")
        with open(p, "wb") as f:
            f.write(self.piped(f'SELECT * FROM "{TABLE}"'))
        r = self.profile(p, "--since", "2026-01-01", expect=2)
        self.assertIn("--since/--until apply to PostgreSQL inputs", r.stderr)


if __name__ == "__main__":
    unittest.main()
