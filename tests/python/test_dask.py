"""llmtrafficlens.dask (issue 20 item 4) against the single-process CLI: a Dask LocalCluster of 2
worker processes hashes 8 files of a generated multi-turn log (every conversation spans files, so
each turn resends in one file the prefix another file first sent), the driver replays the shards,
and report.json must equal byte for byte what `llmtrafficlens profile` of the 8 files writes.
A second run kills the worker process of one task on its first attempt (a marker file makes it
deterministic): the nanny restarts it, Dask reruns the task, and the report is unchanged. The
`python3 -m llmtrafficlens.dask --local 2` command line gives the same report.json and
report.html, prints progress on stderr and then the phase line (map and merge+replay times, the
shards and bytes of the map, one peak RSS per worker, the driver's memory), and never shows the
salt's content."""
import csv
import os
import re
import shutil
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
import test_multi_file_profile as multi  # noqa: E402

FILES = 8


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


class DaskProfile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = env.tempdir()
        cls.salt = os.path.join(cls.dir, "salt")
        rows = multi.conversations()
        files = [[] for _ in range(FILES)]
        for r in rows:
            files[(r["conv"] * 3 + r["turn"]) % FILES].append(r)
        cls.paths = []
        for k, f in enumerate(files):
            f.sort(key=lambda r: r["time"])
            path = os.path.join(cls.dir, f"part-{k}.csv")
            with open(path, "w", encoding="utf-8", newline="") as g:
                g.write(multi.csv_text(f))
            cls.paths.append(path)
        assert all(files), "every file holds requests"
        prefix = os.path.join(cls.dir, "cli")
        p = env.run(["profile", *cls.paths, "-o", prefix, "--salt-file", cls.salt, "-q"])
        assert p.returncode == 0, p.stderr
        with open(prefix + ".json", encoding="utf-8") as f:
            cls.cli_json = f.read()
        with open(prefix + ".html", encoding="utf-8") as f:
            cls.cli_html = f.read()
        with open(cls.salt, encoding="utf-8") as f:
            cls.salt_text = f.read().strip()
        cls.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                               dashboard_address=None)
        cls.client = distributed.Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

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
        self.client.wait_for_workers(2)
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
        p = subprocess.run([sys.executable, "-m", "llmtrafficlens.dask", "--local", "2", "-o",
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
        self.assertGreater(int(phases[7]), 0)  # the driver holds Python and the cluster's scheduler
        self.assertGreaterEqual(int(phases[9]), int(phases[8]))  # a peak is at least the RSS before
        self.assertNotIn(self.salt_text, p.stderr + p.stdout)
        self.assertIn("wrote", p.stdout)

    def test_errors_raise_the_cli_message(self):
        with self.assertRaises(ltl.Error) as e:
            ltl_dask.profile(self.paths + [os.path.join(self.dir, "none-*.csv")],
                             client=self.client, salt_file=self.salt, progress=False)
        self.assertIn("none-*.csv", str(e.exception))


if __name__ == "__main__":
    warnings.simplefilter("ignore", ResourceWarning)
    unittest.main()
