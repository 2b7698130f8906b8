"""The Python package (issue 20 item 3, issue 31 item 2) against independent references: the CLI
binary run as a separate process on the same files. profile() returns, from the Profile in memory,
what `llmtrafficlens profile` writes to report.json, byte for byte and as objects; replay() of
in-memory hash_shard() results of each file equals `profile` of the files;
export() writes the CLI's export byte for byte; a shard's buffers hold the request lengths the
CLI's mooncake export lists; an error raises llmtrafficlens.Error with the CLI's own stderr line.
Run with Debian's /usr/bin/python3 (ctest sets PYTHONPATH to the build's package, the one
scripts/install-python.sh installs)."""
import json
import os
import pickle
import shutil
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import llmtrafficlens as ltl  # noqa: E402
import ltl_test_env as env  # noqa: E402
import test_multi_file_profile as multi  # noqa: E402


class PythonApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        multi.MultiFileProfile.setUpClass()
        cls.m = multi.MultiFileProfile
        cls.dir, cls.salt = cls.m.dir, cls.m.salt
        cls.files = [cls.m.a, cls.m.b, cls.m.c]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def cli_report(self, *args, name="cli"):
        prefix = os.path.join(self.dir, name)
        p = env.run(["profile", *args, "-o", prefix, "--salt-file", self.salt, "-q"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(prefix + ".json", encoding="utf-8") as f:
            return f.read()

    def quiet(self, fn, *args, **kw):
        with warnings.catch_warnings():  # the bad rows' warnings are the CLI's, tested there
            warnings.simplefilter("ignore", ltl.Warning)
            return fn(*args, **kw)

    def test_profile_equals_cli_report_json(self):
        cli = self.cli_report(*self.files)
        report = self.quiet(ltl.profile, self.files, salt_file=self.salt)
        self.assertEqual(report.json_text, cli)
        self.assertEqual(report.to_dict(), json.loads(cli))
        ref = json.loads(cli)
        self.assertIsInstance(report.curve, list)
        self.assertEqual([c.hit_rate for c in report.curve], [c["hit_rate"] for c in ref["curve"]])
        self.assertEqual(report.ceiling.hit_rate, ref["ceiling"]["hit_rate"])
        self.assertEqual(report.input.files[1].file, self.m.b)
        self.assertNotIn("wrote", report.summary)  # nothing written without output=
        prefix = os.path.join(self.dir, "written")
        written = self.quiet(ltl.profile, self.files, output=prefix, salt_file=self.salt)
        self.assertIn("wrote", written.summary)
        with open(prefix + ".json", encoding="utf-8") as f:
            self.assertEqual(f.read(), cli)

    def test_module_runs_the_pipeline_in_memory(self):
        # No call of the command-line entry point and no temporary file anywhere in the package.
        pkg = os.path.dirname(ltl.__file__)
        for name in sorted(os.listdir(pkg)):
            if name.endswith(".py"):
                with open(os.path.join(pkg, name), encoding="utf-8") as f:
                    text = f.read()
                for banned in ("_core.run(", "tempfile", "subprocess", "RunCommandLine"):
                    self.assertNotIn(banned, text, name)
        self.assertFalse(hasattr(ltl._core, "run"))

    def test_replay_of_in_memory_shards_equals_profile_of_files(self):
        # One shard and three: the report (its run name included) is profile's on the files.
        for files in ([self.m.c], self.files):
            ref = self.quiet(ltl.profile, files, salt_file=self.salt)
            shards = [self.quiet(ltl.hash_shard, f, salt_file=self.salt) for f in files]
            got = self.quiet(ltl.replay, shards)
            self.assertEqual(got.json_text, ref.json_text)
            self.assertEqual(got.to_dict(), ref.to_dict())
            self.assertEqual([len(s) for s in shards], [len(s) for s in shards])  # still usable

    def test_kept_workers_give_the_same_shards(self):
        # The Dask tasks' hash_shard(_keep_workers=True): this thread keeps the read's workers for
        # its next call with the same options. Each shard must be byte for byte the one a call
        # without them gives, across files whose conversations continue from one to the next, and
        # across a change of salt or of options in between (the kept memos hold ids of the first
        # salt and block size: they must not be taken then).
        other_salt = os.path.join(self.dir, "kept-other-salt")
        plain = self.m.plain
        calls = [(f, self.salt, {}) for f in plain]
        calls += [(plain[1], other_salt, {}), (plain[2], other_salt, {}),
                  (plain[0], self.salt, {"block_size": 32}), (plain[1], self.salt, {})]
        for path, salt, opts in calls:
            with self.subTest(path=path, salt=salt, opts=opts):
                fresh = self.quiet(ltl.hash_shard, path, salt_file=salt, **opts)
                kept = self.quiet(ltl.hash_shard, path, salt_file=salt, _keep_workers=True,
                                  **opts)
                self.assertGreater(len(kept), 5)
                self.assertEqual(kept.to_bytes(), fresh.to_bytes())

    def test_options_are_the_cli_flags(self):
        cli = self.cli_report(self.m.c, "--capacity", "4K,64K", "--warmup", "0", "--block-size",
                              "32", name="opts")
        report = self.quiet(ltl.profile, self.m.c, salt_file=self.salt, capacity="4K,64K",
                            warmup=0, block_size=32)
        self.assertEqual(report.json_text, cli)

    def test_sample_rate_is_the_cli_flag_for_profile_and_replay(self):
        # Issue 34: sample_rate= reaches the pipeline through the CLI's option table, for profile
        # and for the replay of in-memory shards (the Dask driver's call) alike.
        cli = self.cli_report(*self.files, "--sample-rate", "0.5", name="sampled")
        report = self.quiet(ltl.profile, self.files, salt_file=self.salt, sample_rate=0.5)
        self.assertEqual(report.json_text, cli)
        self.assertEqual(report.sampling.rate, 0.5)
        shards = [self.quiet(ltl.hash_shard, f, salt_file=self.salt) for f in self.files]
        self.assertEqual(self.quiet(ltl.replay, shards, sample_rate=0.5).json_text, cli)
        with self.assertRaises(ltl.Error) as e:
            self.quiet(ltl.profile, self.files, salt_file=self.salt, sample_rate=0.5, workers=2)
        self.assertIn("sampling: --workers", str(e.exception))

    def test_replay_of_shards_equals_cli_profile(self):
        cli = self.cli_report(*self.files)
        shards = [self.quiet(ltl.hash_shard, f, salt_file=self.salt) for f in self.files]
        self.assertEqual([s.files for s in shards], [[f] for f in self.files])
        self.assertEqual(self.quiet(ltl.replay, shards).json_text, cli)
        # Through pickle (how Dask moves them) and through files: the same.
        again = [pickle.loads(pickle.dumps(s)) for s in shards]
        self.assertEqual([s.to_bytes() for s in again], [s.to_bytes() for s in shards])
        paths = []
        for i, s in enumerate(again):
            paths.append(os.path.join(self.dir, f"s{i}.ltlshard"))
            s.save(paths[-1])
        self.assertEqual(self.quiet(ltl.replay, [ltl.Shard.load(paths[0]), *paths[1:]]).json_text,
                         cli)

    def test_replay_stream_equals_replay_in_every_form(self):
        # Issue 34 item 2 (the Dask driver's merge as shards arrive): a shard's bytes, a shard
        # file's path and a Shard, pulled one at a time from an iterable, give the CLI's report;
        # the iterable is not asked for the next shard before the previous one is merged.
        cli = self.cli_report(*self.files)
        shards = [self.quiet(ltl.hash_shard, f, salt_file=self.salt) for f in self.files]
        path = os.path.join(self.dir, "stream1.ltlshard")
        shards[1].save(path)
        pulled = []

        def items():
            for k, item in enumerate([shards[0].to_bytes(), path, shards[2]]):
                pulled.append(k)
                yield item

        got = self.quiet(ltl.replay_stream, items(), self.files)
        self.assertEqual(got.json_text, cli)
        self.assertEqual(pulled, [0, 1, 2])
        self.assertEqual(len(shards[2]), len(shards[2]))  # a Shard given stays usable

    def test_replay_stream_raises_the_iterables_error_and_rejects_other_items(self):
        shard = self.quiet(ltl.hash_shard, self.m.a, salt_file=self.salt)

        def failing():
            yield shard.to_bytes()
            raise KeyError("a task failed")

        with self.assertRaises(KeyError) as e:
            self.quiet(ltl.replay_stream, failing(), self.files[:2])
        self.assertIn("a task failed", str(e.exception))
        with self.assertRaises(ltl.Error) as e:
            self.quiet(ltl.replay_stream, [shard.to_bytes(), 42], self.files[:2])
        self.assertIn("a shard stream yields bytes, a shard file's path or a Shard, not int",
                      str(e.exception))
        with self.assertRaises(ltl.Error) as e:
            self.quiet(ltl.replay_stream, [shard.to_bytes()[:-9]], self.files[:1])
        self.assertIn(self.m.a, str(e.exception))  # a corrupt shard is named by its file
        # (k, item): a shard of names[k] (the Dask driver's pieces), named by that file whatever
        # its place in the stream.
        with self.assertRaises(ltl.Error) as e:
            self.quiet(ltl.replay_stream, [(0, shard.to_bytes()), (1, shard.to_bytes()[:-9])],
                       self.files[:2])
        self.assertIn(self.files[1], str(e.exception))
        self.assertNotIn(self.files[0], str(e.exception))

    def test_shard_buffers_without_copy(self):
        # Reference: the CLI's mooncake export of the same file lists each request's length.
        out = os.path.join(self.dir, "c.mooncake.jsonl")
        p = env.run(["export", self.m.c, "--to", "mooncake", "-o", out, "--salt-file", self.salt,
                     "-q"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out, encoding="utf-8") as f:
            lengths = [json.loads(line)["input_length"] for line in f]
        shard = self.quiet(ltl.hash_shard, self.m.c, salt_file=self.salt)
        view = memoryview(shard.column("input_tokens"))
        self.assertTrue(view.readonly)
        self.assertEqual(view.format, "q")
        self.assertEqual(len(view), len(shard))
        self.assertGreater(view.strides[0], view.itemsize)  # a strided view into the records
        self.assertEqual(sorted(view.tolist()), sorted(lengths))
        blocks = [len(memoryview(shard.block_ids(i))) for i in range(len(shard))]
        self.assertEqual(sorted(blocks), sorted((n + 15) // 16 for n in lengths))
        self.assertEqual(len(set(memoryview(shard.block_ids(0)).tolist())), blocks[0])
        del shard  # a view keeps its shard alive
        self.assertEqual(sorted(view.tolist()), sorted(lengths))
        try:
            import numpy
        except ImportError:
            return
        arr = numpy.asarray(self.quiet(ltl.hash_shard, self.m.c, salt_file=self.salt)
                            .column("time_s"))
        self.assertFalse(arr.flags.owndata)
        self.assertEqual(arr.dtype, numpy.float64)

    def test_export_equals_cli_byte_for_byte(self):
        for target in ("mooncake", "bailian"):
            ref = os.path.join(self.dir, f"ref.{target}.jsonl")
            p = env.run(["export", *self.files, "--to", target, "-o", ref, "--salt-file",
                         self.salt, "-q"])
            self.assertEqual(p.returncode, 0, p.stderr)
            out = os.path.join(self.dir, f"py.{target}.jsonl")
            self.quiet(ltl.export, self.files, to=target, output=out, salt_file=self.salt)
            with open(ref, "rb") as a, open(out, "rb") as b:
                self.assertEqual(b.read(), a.read())

    def test_cctrace_export_equals_cli(self):
        import cctrace_log  # noqa: E402 (tests/integration: the hand-built Anthropic log)

        data_dir = os.environ.get("LTL_DATA_DIR", "")
        if not os.path.isfile(os.path.join(data_dir, "cl100k_base.tiktoken")):
            self.skipTest("cl100k_base.tiktoken not installed")
        lines, _ = cctrace_log.build()
        src = os.path.join(self.dir, "anthropic.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        ref, out = os.path.join(self.dir, "cc-ref"), os.path.join(self.dir, "cc-py")
        p = env.run(["export", src, "--to", "cctrace", "-o", ref, "--salt", "s", "--data-dir",
                     data_dir, "-q"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.quiet(ltl.export, src, to="cctrace", output=out, salt="s", data_dir=data_dir)
        self.assertEqual(sorted(os.listdir(out)), sorted(os.listdir(ref)))
        for name in os.listdir(ref):
            with open(os.path.join(ref, name), "rb") as a, open(os.path.join(out, name), "rb") as b:
                self.assertEqual(b.read(), a.read(), name)

    def test_errors_raise_with_the_cli_message(self):
        missing = os.path.join(self.dir, "missing.csv")
        p = env.run(["profile", missing, "-o", os.path.join(self.dir, "x"), "-q"])
        self.assertEqual(p.returncode, 2)
        with self.assertRaises(ltl.Error) as e:
            ltl.profile(missing)
        self.assertEqual(str(e.exception), p.stderr.strip())
        self.assertEqual(e.exception.exit_code, 2)
        p = env.run(["profile", self.m.c, "--warmup", "2"])
        with self.assertRaises(ltl.Error) as e:
            ltl.profile(self.m.c, warmup=2)
        self.assertEqual(str(e.exception), p.stderr.strip())
        with self.assertRaises(ltl.Error) as e:  # a parse error (unknown option), CLI11's text
            ltl.profile(self.m.c, no_such_option=1)
        self.assertIn("--no-such-option", str(e.exception))
        with self.assertRaises(ltl.Error):
            ltl.Shard.load(self.m.c)

    def test_warnings_are_python_warnings(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ltl.profile(self.m.c, salt_file=self.salt)
        self.assertTrue(any(issubclass(w.category, ltl.Warning) for w in caught))

    def test_to_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas not installed")
        report = self.quiet(ltl.profile, self.files, salt_file=self.salt)
        df = report.to_pandas("curve")
        self.assertEqual(len(df), len(report.curve))
        self.assertEqual(list(df["hit_rate"]), [c.hit_rate for c in report.curve])
        self.assertEqual(len(report.to_pandas("input.files")), 3)


if __name__ == "__main__":
    unittest.main()
