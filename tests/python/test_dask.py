"""llmtrafficlens.dask (issue 20 item 4, issue 34 item 4) against the single-process CLI, on two
clusters: a Dask LocalCluster of 2 worker processes, and a real multi-process cluster this test
starts itself (`python3 -m dask scheduler` on 127.0.0.1 at a port the scheduler picks, and two
`python3 -m dask worker` processes with their nannies; Debian's python3-distributed), which the
driver reaches through --scheduler tcp://127.0.0.1:PORT as it would a remote one. Each process is
started in its own process group and the whole group is killed when the test ends, whatever
happens (and the kernel kills the scheduler and the nannies if the test process dies first). On
both, the driver hashes 8 files of a generated multi-turn log (every conversation spans files, so
each turn resends in one file the prefix another file first sent), the driver replays the shards,
and report.json must equal byte for byte what `llmtrafficlens profile` of the 8 files writes (and
so its ceiling, across/same-conversation split and curve, which the started cluster's test also
compares figure by figure). A second run kills the worker process of one task on its first attempt
(a marker file makes it deterministic): the nanny restarts it, Dask reruns the task, and the report
is unchanged. The command line (`--local 2`, `--scheduler ADDR`) gives the same report.json and
report.html, prints progress on stderr and then the phase line (map and merge+replay times, the
shards and bytes of the map, one peak RSS per worker, the driver's memory) and the run's line (wall,
driver CPU and faults per phase, each worker's CPU), and never shows the
salt's content. On the started cluster the salt travels only as a path: a scheduler plugin keeps
every task the scheduler receives, and their pickled specifications hold the salt file's absolute
path but neither the salt's text nor its key bytes; the workers run in another directory and read
the file by that path; no process's log shows the salt. With exact_ceiling (--exact-ceiling) on the
started cluster, the ceiling, its across/same-conversation split and the cold ceiling come from
the shuffle by block id (the scheduler receives its map, reduce, misses and across tasks, one per
partition, and the merges of the first misses) and equal the single process's, unsampled and with --sample-rate (where the curve is
the sampled one and the sampled run's own ceiling differs)."""
import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import threading
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import distributed  # noqa: E402
import llmtrafficlens as ltl  # noqa: E402
import llmtrafficlens.dask as ltl_dask  # noqa: E402
import ltl_test_env as env  # noqa: E402
import test_multi_file_profile as multi  # noqa: E402

FILES = 8
WORKERS = 2
START_TIMEOUT = 120  # seconds for the scheduler's address and both workers (a loaded CI machine)


def kill_worker_once(marker_dir, victim):
    """A task hook: the task of file `victim` ends its own worker process on its first attempt."""
    def hook(index, path):
        if index != victim:
            return
        marker = os.path.join(marker_dir, f"killed-{index}")
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return  # the retry: run normally
        os.close(fd)
        os._exit(1)
    return hook


class Inputs:
    """The 8 files, the salt and the single-process CLI's report.json/.html, made once."""
    made = None

    @classmethod
    def get(cls):
        if cls.made is None:
            cls.made = cls()
        return cls.made

    def __init__(self):
        self.dir = env.tempdir()
        self.salt = os.path.join(self.dir, "salt")
        rows = multi.conversations()
        files = [[] for _ in range(FILES)]
        for r in rows:
            files[(r["conv"] * 3 + r["turn"]) % FILES].append(r)
        self.paths = []
        for k, f in enumerate(files):
            f.sort(key=lambda r: r["time"])
            path = os.path.join(self.dir, f"part-{k}.csv")
            with open(path, "w", encoding="utf-8", newline="") as g:
                g.write(multi.csv_text(f))
            self.paths.append(path)
        assert all(files), "every file holds requests"
        prefix = os.path.join(self.dir, "cli")
        p = env.run(["profile", *self.paths, "-o", prefix, "--salt-file", self.salt, "-q"])
        assert p.returncode == 0, p.stderr
        with open(prefix + ".json", encoding="utf-8") as f:
            self.cli_json = f.read()
        with open(prefix + ".html", encoding="utf-8") as f:
            self.cli_html = f.read()
        with open(self.salt, encoding="utf-8") as f:
            self.salt_text = f.read().strip()


class DaskTests:
    """The tests, run on each cluster (cls.client, cls.cluster_args for the command line)."""

    @classmethod
    def setUpClass(cls):
        inputs = Inputs.get()
        cls.dir, cls.salt, cls.paths = env.tempdir(), inputs.salt, inputs.paths
        cls.cli_json, cls.cli_html, cls.salt_text = (inputs.cli_json, inputs.cli_html,
                                                     inputs.salt_text)

    def test_report_equals_single_process_profile(self):
        report = ltl_dask.profile(self.paths, client=self.client, salt_file=self.salt,
                                  progress=False)
        self.assertEqual(report.json_text, self.cli_json)
        self.assertEqual(report.distributions.conversations, 9)
        self.assertGreater(report.ceiling.hit_rate, 0.3)

    def test_shards_through_a_shared_directory(self):
        shard_dir = os.path.join(self.dir, "shards")
        report = ltl_dask.profile(self.paths, client=self.client, salt_file=self.salt,
                                  shard_dir=shard_dir, progress=False)
        self.assertEqual(report.json_text, self.cli_json)
        self.assertEqual(len(os.listdir(shard_dir)), FILES)

    def test_a_worker_killed_during_the_map_changes_nothing(self):
        markers = os.path.join(self.dir, "markers")
        os.makedirs(markers, exist_ok=True)
        before = set(self.client.scheduler_info()["workers"])
        report = ltl_dask.profile(self.paths, client=self.client, salt_file=self.salt,
                                  progress=False, task_hook=kill_worker_once(markers, 3))
        self.assertTrue(os.path.exists(os.path.join(markers, "killed-3")))
        self.assertEqual(report.json_text, self.cli_json)
        self.client.wait_for_workers(WORKERS, timeout=START_TIMEOUT)
        self.assertNotEqual(set(self.client.scheduler_info()["workers"]), before)

    def test_options_split_between_workers_and_driver(self):
        prefix = os.path.join(self.dir, "opts")
        p = env.run(["profile", *self.paths, "-o", prefix, "--salt-file", self.salt, "-q",
                     "--block-size", "32", "--capacity", "4K,64K", "--warmup", "0"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(prefix + ".json", encoding="utf-8") as f:
            ref = f.read()
        report = ltl_dask.profile(self.paths, client=self.client, salt_file=self.salt,
                                  progress=False, block_size=32, capacity="4K,64K", warmup=0)
        self.assertEqual(report.json_text, ref)

    def test_command_line(self):
        prefix = os.path.join(self.dir, "dask")
        p = subprocess.run([sys.executable, "-m", "llmtrafficlens.dask", *self.cluster_args, "-o",
                            prefix, "--salt-file", self.salt, *self.paths],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(prefix + ".json", encoding="utf-8") as f:
            self.assertEqual(f.read(), self.cli_json)
        with open(prefix + ".html", encoding="utf-8") as f:
            self.assertEqual(f.read(), self.cli_html)
        self.assertIn(f"shards {FILES}/{FILES}", p.stderr)
        mb = sum(os.path.getsize(f) for f in self.paths) / 1e6
        phases = re.search(
            r"map (\d+\.\d+) s \((\d+) shards, (\d+\.\d) MB, \d+\.\d MB/s; "
            r"workers' peak RSS (\d+), (\d+) MiB\), merge\+replay on the driver (\d+\.\d+) s "
            r"\(driver RSS (\d+) MiB at the start, (\d+) MiB before it, peak (\d+) MiB\)", p.stderr)
        self.assertIsNotNone(phases, p.stderr)
        self.assertEqual(int(phases[2]), FILES)
        self.assertEqual(phases[3], f"{mb:.1f}")
        self.assertGreater(int(phases[7]), 0)  # the driver holds Python (and a local scheduler)
        self.assertGreaterEqual(int(phases[9]), int(phases[8]))  # a peak is at least the RSS before
        self.assertRegex(p.stderr, r"shards merged on the driver as they arrived: \d+\.\d+ s "
                                   r"during the map")
        # The run's last line: wall, driver CPU and faults per phase from the process's start,
        # and the workers' CPU.
        self.assertRegex(p.stderr, r"llmtrafficlens\.dask: run \d+\.\d+ s \(imports \d+\.\d+, "
                                   r"cluster \d+\.\d+, plan \d+\.\d+, submit \d+\.\d+, map "
                                   r"\d+\.\d+, merge\+replay \d+\.\d+, close \d+\.\d+ s\); "
                                   r"driver CPU \d+\.\d+ s \(.*\), minor faults \d+k \(.*\); "
                                   r"workers' CPU \d+\.\d+ s, \d+k faults; \d+\.\d+ s")
        self.assertNotIn(self.salt_text, p.stderr + p.stdout)
        self.assertIn("wrote", p.stdout)

    def test_errors_raise_the_cli_message(self):
        with self.assertRaises(ltl.Error) as e:
            ltl_dask.profile(self.paths + [os.path.join(self.dir, "none-*.csv")],
                             client=self.client, salt_file=self.salt, progress=False)
        self.assertIn("none-*.csv", str(e.exception))


class ArrivalsInFileOrder(unittest.TestCase):
    """Issue 34 item 2: the driver merges shards as they arrive, in the files' order: a shard that
    arrives before an earlier file's waits, and each is handed over as soon as every earlier one
    has been (a stand-in for distributed.as_completed gives a fixed arrival order)."""

    class Future:
        def __init__(self, index):
            self.index, self.released = index, False

        def release(self):
            self.released = True

    def test_out_of_order_arrivals_are_handed_over_in_file_order(self):
        arrival = [2, 0, 3, 1, 4]
        futures = [self.Future(i) for i in range(5)]
        handed = []  # (arrivals so far, index handed over)

        class Distributed:
            @staticmethod
            def as_completed(fs, with_results):
                assert with_results
                for i in arrival:
                    handed.append(("arrived", i))
                    yield fs[i], (i, f"shard {i}".encode(), 10)

        bar = ltl_dask._Progress(5, 50, enabled=False)
        arrivals = ltl_dask._Arrivals(list(futures), bar, Distributed)
        for file, payload in arrivals:
            self.assertEqual(file, int(payload.split()[1]))  # one task per file: named by it
            handed.append(("merged", int(payload.split()[1])))
        self.assertEqual(handed, [("arrived", 2), ("arrived", 0), ("merged", 0), ("arrived", 3),
                                  ("arrived", 1), ("merged", 1), ("merged", 2), ("merged", 3),
                                  ("arrived", 4), ("merged", 4)])
        self.assertTrue(all(f.released for f in futures))
        self.assertEqual((bar.done, bar.bytes), (5, 50))
        self.assertIsNotNone(arrivals.map_end)

    def test_unsure_pieces_are_replaced_by_the_rest_of_their_file(self):
        # File 0 in five pieces (tasks 0-4), file 1 whole (task 5). Piece 3 comes back unsure
        # first: the rest of file 0 from piece 3 is asked for; then piece 2 proves unsure too,
        # before that rest arrives: the rest from piece 2 replaces it. Pieces 0 and 1 stand (and
        # are merged at once); piece 4 and the rest from 3 are dropped when they come; the
        # progress ends at the four tasks the run needed, with each byte once.
        done = {}

        class Future:
            def __init__(self, result):
                self.result = result

            def release(self):
                pass

        class AsCompleted:
            def __init__(self, futures):
                self.queue = list(futures)

            def add(self, future):
                self.queue.append(future)

            def __iter__(self):
                while self.queue:
                    f = self.queue.pop(0)
                    yield f, f.result

        class Distributed:
            @staticmethod
            def as_completed(fs, with_results):
                return AsCompleted(fs)

        def rest(u):
            done.setdefault("rest", []).append(u)
            return Future((-1 - u, f"rest {u}".encode(), 10 * (5 - u)))

        ok = {u: Future((u, f"piece {u}".encode(), 10)) for u in (0, 1, 4, 5)}
        order = [ok[0], Future((3, None, 10)), ok[1], ok[4], Future((2, None, 10)), ok[5]]
        bar = ltl_dask._Progress(6, 60, enabled=False)
        arrivals = ltl_dask._Arrivals(order, bar, Distributed, [0, 0, 0, 0, 0, 1], rest)
        got = list(arrivals)
        self.assertEqual(got, [(0, b"piece 0"), (0, b"piece 1"), (0, b"rest 2"), (1, b"piece 5")])
        self.assertEqual(done["rest"], [3, 2])
        self.assertEqual(arrivals.read_rest, [(0, 3), (0, 2)])
        self.assertEqual((bar.done, bar.total, bar.bytes), (4, 4, 60))

    def test_local_cluster_shares_the_cores_as_worker_threads(self):
        cores = os.cpu_count() or 1
        for n in (1, 2):
            with ltl_dask.local_cluster(n) as cluster, distributed.Client(cluster) as client:
                threads = sorted(client.nthreads().values())
                self.assertEqual(threads, [max(1, cores // n)] * n)
                self.assertEqual(client.submit(os.getpid).result() != os.getpid(), True)


class DaskProfileOnLocalCluster(DaskTests, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cluster = distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1,
                                               processes=True, dashboard_address=None)
        cls.client = distributed.Client(cls.cluster)
        cls.cluster_args = ["--local", str(WORKERS)]

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()


class StartedCluster:
    """`dask scheduler` and WORKERS `dask worker` processes (with their nannies) on 127.0.0.1,
    started as a user starts them, with the test's interpreter (`python3 -m dask`, what Debian's
    /usr/bin/dask runs). The scheduler binds a port it picks (--port 0); a thread copies its log to
    a file and hands over the address from its "Scheduler at:" line (or nothing when it exits
    first); the client then waits for the workers (distributed's wait, with a timeout). Each
    process runs in its own session, so stop() kills its whole group (a nanny and its worker);
    stop() runs whatever happened, and setpriv --pdeathsig has the kernel kill the scheduler and
    the nannies if the test process dies without it."""

    def __init__(self, workdir):
        self.dir = workdir
        self.procs = []  # (Popen, log path)
        self.client = None
        self.address = None

    def _start(self, name, args, cwd, stdout=None):
        log = os.path.join(self.dir, f"{name}.log")
        prefix = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
        # The processes run in other directories: they find the package by absolute paths.
        environ = dict(os.environ, PYTHONPATH=os.pathsep.join(
            os.path.abspath(d) for d in os.environ.get("PYTHONPATH", "").split(os.pathsep) if d))
        with open(log, "wb") as out:
            p = subprocess.Popen([*prefix, sys.executable, "-m", "dask", *args], cwd=cwd,
                                 env=environ,
                                 stdin=subprocess.DEVNULL, stdout=stdout or out,
                                 stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append((p, log))
        return p, log

    def start(self):
        p, log = self._start("scheduler", ["scheduler", "--host", "127.0.0.1", "--port", "0",
                                           "--no-dashboard", "--no-show"], cwd=self.dir,
                             stdout=subprocess.PIPE)
        found = threading.Event()
        address = []

        def copy_log():
            with open(log, "ab") as out:
                for line in p.stdout:
                    out.write(line)
                    out.flush()
                    m = re.search(rb"Scheduler at:\s+(tcp://\S+)", line)
                    if m and not found.is_set():
                        address.append(m[1].decode())
                        found.set()
            found.set()  # the scheduler exited

        threading.Thread(target=copy_log, daemon=True).start()
        if not found.wait(START_TIMEOUT) or not address:
            raise AssertionError(f"the scheduler gave no address:\n{self.logs()}")
        self.address = address[0]
        for k in range(WORKERS):
            # Each worker in a directory of its own, where no salt file is: it reads the salt by
            # the absolute path its tasks carry.
            wdir = os.path.join(self.dir, f"worker-{k}")
            os.makedirs(wdir)
            self._start(f"worker-{k}", ["worker", self.address, "--host", "127.0.0.1",
                                        "--nthreads", "1", "--no-dashboard",
                                        "--local-directory", wdir, "--name", f"worker-{k}"],
                        cwd=wdir)
        self.client = distributed.Client(self.address, timeout=START_TIMEOUT)
        try:
            self.client.wait_for_workers(WORKERS, timeout=START_TIMEOUT)
        except Exception as e:
            raise AssertionError(f"{e}; the processes' logs:\n{self.logs()}") from e

    def logs(self):
        text = ""
        for _, log in self.procs:
            with open(log, encoding="utf-8", errors="replace") as f:
                text += f.read()
        return text

    def stop(self):
        try:
            if self.client is not None:
                self.client.close()
        finally:
            for p, _ in self.procs:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for p, _ in self.procs:
                p.wait()
                if p.stdout is not None:
                    p.stdout.close()


class TaskRecorder(distributed.diagnostics.plugin.SchedulerPlugin):
    """On the scheduler: the pickled run specification of every task it receives (what travelled
    from the driver over the network)."""
    name = "llmtrafficlens-test-task-recorder"

    def __init__(self):
        self.specs = []
        self.keys = []

    def update_graph(self, scheduler, keys=(), **kwargs):
        for key in keys:
            self.keys.append(str(key))
            ts = scheduler.tasks.get(key)
            if ts is not None and ts.run_spec is not None:
                self.specs.append(pickle.dumps(ts.run_spec))


def recorded_specs(dask_scheduler):
    return dask_scheduler.plugins[TaskRecorder.name].specs


def recorded_keys(dask_scheduler):
    return dask_scheduler.plugins[TaskRecorder.name].keys


HIT_FIELDS = ("hit_rate", "hit_tokens", "measured_tokens", "across", "same_conv", "across_tokens",
              "same_conv_tokens")


class DaskProfileOnStartedProcesses(DaskTests, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.started = StartedCluster(env.tempdir())
        try:
            cls.started.start()
            cls.client = cls.started.client
            cls.client.register_scheduler_plugin(TaskRecorder())
        except BaseException:
            cls.started.stop()
            raise
        cls.cluster_args = ["--scheduler", cls.started.address]
        host, port = cls.started.address.removeprefix("tcp://").rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0, cls.started.address

    @classmethod
    def tearDownClass(cls):
        cls.started.stop()

    def test_figures_equal_the_single_process_report(self):
        report = ltl_dask.profile(self.paths, client=self.client, salt_file=self.salt,
                                  progress=False)
        cli = json.loads(self.cli_json)
        data = report.to_dict()
        self.assertEqual(data["ceiling"], cli["ceiling"])
        for key in ("across", "same_conv", "across_tokens", "same_conv_tokens"):
            self.assertIn(key, cli["ceiling"])
            self.assertEqual(data["ceiling"][key], cli["ceiling"][key])
        self.assertEqual(data["curve"], cli["curve"])
        self.assertEqual(report.json_text, self.cli_json)

    def shuffle_tasks(self, before):
        """The first-use tasks the scheduler received since `before` keys: {kind: partitions}."""
        seen = {}
        for key in self.client.run_on_scheduler(recorded_keys)[before:]:
            m = re.match(r"llmtrafficlens-first-use-(?:(map)-\d+|(reduce|misses|across))-(\d+)-",
                         key)
            if m:
                seen.setdefault(m[1] or m[2], set()).add(int(m[3]))
        return seen

    def test_exact_ceiling_by_a_shuffle_equals_the_single_process_report(self):
        # The unbounded figures from the shuffle by block id (3 reduce tasks on the two worker
        # processes): the ceiling, its split and the cold ceiling equal the CLI's, on a log where
        # both across- and same-conversation hits occur; the whole report is unchanged.
        cli = json.loads(self.cli_json)
        for key in ("ceiling", "cold_ceiling"):
            self.assertGreater(cli[key]["across_tokens"], 0)
            self.assertGreater(cli[key]["same_conv_tokens"], 0)
        before = len(self.client.run_on_scheduler(recorded_keys))
        report = ltl_dask.profile(self.paths, client=self.client, salt_file=self.salt,
                                  progress=False, exact_ceiling=True, partitions=3)
        data = report.to_dict()
        for key in ("ceiling", "cold_ceiling"):
            self.assertEqual(data[key], cli[key])
        self.assertEqual(report.json_text, self.cli_json)
        self.assertEqual(self.shuffle_tasks(before), {k: {0, 1, 2} for k in
                                                      ("map", "reduce", "misses", "across")})
        # The three partitions' first misses reach the driver merged by a tree of two merges.
        merges = [k for k in self.client.run_on_scheduler(recorded_keys)[before:]
                  if k.startswith("llmtrafficlens-first-use-merge-")]
        self.assertEqual(len(merges), 2, merges)

    def test_exact_ceiling_with_a_sampled_curve(self):
        # --sample-rate: the curve is the sampled one (as the single process samples it), the
        # ceiling and the cold ceiling are the exact, unsampled figures (error 0), not the
        # sampled run's estimates.
        cli = json.loads(self.cli_json)
        sampled = ltl.profile(self.paths, salt_file=self.salt, sample_rate=0.25).to_dict()
        self.assertNotEqual(sampled["ceiling"]["hit_tokens"], cli["ceiling"]["hit_tokens"])
        before = len(self.client.run_on_scheduler(recorded_keys))
        report = ltl_dask.profile(self.paths, client=self.client, salt_file=self.salt,
                                  progress=False, exact_ceiling=True, sample_rate=0.25)
        data = report.to_dict()
        self.assertEqual(data["sampling"]["rate"], 0.25)
        self.assertEqual(sampled["sampling"]["unbounded"], "sampled")
        self.assertEqual(data["sampling"]["unbounded"], "exact")
        # The terminal says so instead of stating a zero error for an estimate.
        ceiling_line = [ln for ln in report.summary.splitlines() if "<- ceiling" in ln]
        self.assertEqual(len(ceiling_line), 1, report.summary)
        self.assertIn(" exact", ceiling_line[0])
        self.assertNotIn("±", ceiling_line[0])
        self.assertEqual(data["curve"], sampled["curve"])
        for key in ("ceiling", "cold_ceiling"):
            for field in HIT_FIELDS:
                self.assertEqual(data[key][field], cli[key][field], (key, field))
            self.assertEqual(data[key]["error_points"], 0)
        self.assertEqual(self.shuffle_tasks(before)["reduce"], set(range(WORKERS)))

    def test_exact_ceiling_on_the_command_line(self):
        prefix = os.path.join(self.dir, "exact")
        p = subprocess.run([sys.executable, "-m", "llmtrafficlens.dask", *self.cluster_args, "-o",
                            prefix, "--salt-file", self.salt, "--exact-ceiling", "--partitions",
                            "2", *self.paths], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r"; exact ceiling by the shuffle \(2 partitions\): "
                                   r"\d+\.\d+ s of the merge\+replay")
        with open(prefix + ".json", encoding="utf-8") as f:
            self.assertEqual(f.read(), self.cli_json)

    def test_the_salt_travels_only_as_a_path(self):
        # A relative salt path: the driver makes it absolute; the workers (in other directories)
        # read the file at that path.
        cwd = os.getcwd()
        os.chdir(os.path.dirname(self.salt))
        try:
            report = ltl_dask.profile(self.paths, client=self.client,
                                      salt_file=os.path.basename(self.salt), progress=False)
        finally:
            os.chdir(cwd)
        self.assertEqual(report.json_text, self.cli_json)
        specs = self.client.run_on_scheduler(recorded_specs)
        self.assertGreaterEqual(len(specs), FILES)
        key = bytes.fromhex(self.salt_text)
        secrets = [self.salt_text.encode(), self.salt_text.upper().encode(), key, key[:8],
                   key[8:], key[:8][::-1], key[8:][::-1]]
        path = os.path.abspath(self.salt).encode()
        self.assertTrue(any(path in s for s in specs), "the tasks carry the salt's path")
        for s in specs:
            for secret in secrets:
                self.assertNotIn(secret, s)
        self.assertNotIn(self.salt_text, self.started.logs())


if __name__ == "__main__":
    warnings.simplefilter("ignore", ResourceWarning)
    unittest.main()
