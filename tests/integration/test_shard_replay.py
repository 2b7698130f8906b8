"""Hashed shards (issue 20 item 2): `hash-shard` each file of a multi-turn log (a.csv.gz,
b.jsonl.zst, c.csv from test_multi_file_profile: conversations and a session id spanning files,
a prefix first sent in one file and resent in another, a bad row per file), then
`profile a.ltlshard b.ltlshard c.ltlshard` must write byte for byte the report.json that
`profile a.csv.gz b.jsonl.zst c.csv` writes in one process (the shards keep their file's name,
bytes and counts, so nothing differs, not even the input section); so must a mix of shards and
logs, and the shards of a hashed trace. A shard holds no prompt text. A truncated or corrupt shard
is refused with its name and a byte offset; shards hashed with another salt are refused."""
import json
import os
import shutil
import subprocess
import unittest

import ltl_test_env as env
import test_multi_file_profile as multi


class ShardReplay(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        multi.MultiFileProfile.setUpClass()
        cls.m = multi.MultiFileProfile
        cls.dir = cls.m.dir
        cls.salt = cls.m.salt
        cls.shards = []
        for path in (cls.m.a, cls.m.b, cls.m.c):
            out = path + ".ltlshard"
            p = env.run(["hash-shard", path, "-o", out, "--salt-file", cls.salt, "-q"])
            assert p.returncode == 0, p.stderr
            cls.shards.append(out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def profile_bytes(self, *inputs, name="r", expect=0, salt=None):
        prefix = os.path.join(self.dir, name)
        p = env.run(["profile", *inputs, "-o", prefix, "--salt-file", salt or self.salt, "-q"])
        self.assertEqual(p.returncode, expect, p.stderr)
        if expect != 0:
            return p
        with open(prefix + ".json", "rb") as f:
            return f.read()

    def test_replay_equals_profile_byte_for_byte(self):
        direct = self.profile_bytes(self.m.a, self.m.b, self.m.c, name="direct")
        replay = self.profile_bytes(*self.shards, name="replay")
        self.assertEqual(replay, direct)
        rep = json.loads(replay)
        self.assertEqual([f["file"] for f in rep["input"]["files"]], [self.m.a, self.m.b, self.m.c])
        self.assertEqual(rep["distributions"]["conversations"], 9)
        self.assertGreater(rep["ceiling"]["hit_rate"], 0.3)

    def test_shards_and_logs_mix(self):
        direct = self.profile_bytes(self.m.a, self.m.b, self.m.c, name="direct")
        mixed = self.profile_bytes(self.shards[0], self.m.b, self.shards[2], name="mixed")
        self.assertEqual(mixed, direct)

    def test_no_prompt_text_in_a_shard(self):
        for s in self.shards:
            with open(s, "rb") as f:
                data = f.read()
            self.assertTrue(data.startswith(b"LTLSHRD\n"))
            for needle in (b"ledger entries", b"careful assistant", b"lookup", b"sess-1"):
                self.assertNotIn(needle, data, s)

    def test_hashed_trace_shards(self):
        paths = []
        for k in range(3):
            p = os.path.join(self.dir, f"t{k}.jsonl")
            with open(p, "w") as f:
                for i in range(200):
                    t = (i * 3 + k) * 100
                    f.write(json.dumps({"timestamp": t, "input_length": 3 * 512,
                                        "output_length": 5,
                                        "hash_ids": [i % 7, 1000 + (i + k) % 13, 10_000 + i]})
                            + "\n")
            paths.append(p)
        direct = self.profile_bytes(*paths, name="tdirect")
        shards = []
        for p in paths:
            out = p + ".ltlshard"
            r = env.run(["hash-shard", p, "-o", out, "-q"])
            self.assertEqual(r.returncode, 0, r.stderr)
            shards.append(out)
        self.assertEqual(self.profile_bytes(*shards, name="treplay"), direct)
        self.assertEqual(json.loads(direct)["counts"]["requests"], 600)

    def test_truncated_and_corrupt_shards_are_named(self):
        with open(self.shards[1], "rb") as f:
            data = f.read()
        cut = os.path.join(self.dir, "cut.ltlshard")
        with open(cut, "wb") as f:
            f.write(data[: len(data) // 2])
        p = self.profile_bytes(self.shards[0], cut, name="bad", expect=2)
        self.assertIn(f"{cut}: offset ", p.stderr)
        self.assertIn("truncated shard", p.stderr)
        flipped = os.path.join(self.dir, "flip.ltlshard")
        with open(flipped, "wb") as f:
            f.write(data[:100] + bytes([data[100] ^ 1]) + data[101:])
        p = self.profile_bytes(flipped, name="bad", expect=2)
        self.assertIn(f"{flipped}: offset ", p.stderr)
        self.assertIn("CRC-32", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad.json")))

    def test_another_salt_is_refused(self):
        other_salt = os.path.join(self.dir, "other-salt")
        out = os.path.join(self.dir, "other.ltlshard")
        p = env.run(["hash-shard", self.m.c, "-o", out, "--salt-file", other_salt, "-q"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.profile_bytes(self.shards[0], out, name="salt", expect=2)
        self.assertIn("another salt", p.stderr)
        # Issue 35, item 16: the message names the two shard files, not their source logs.
        self.assertIn(f"{out}: hashed with another salt than {self.shards[0]}:", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "salt.json")))

    def hash_other(self, name, *options):
        out = os.path.join(self.dir, name + ".ltlshard")
        p = env.run(["hash-shard", self.m.c, "-o", out, "--salt-file", self.salt, "-q", *options])
        self.assertEqual(p.returncode, 0, p.stderr)
        return out

    def test_another_block_size_is_refused(self):
        """--help: shards must be cut with the same block size (issue 35, item 16)."""
        out = self.hash_other("blocks32", "--block-size", "32")
        p = self.profile_bytes(self.shards[0], out, name="blocks", expect=2)
        self.assertIn(f"{out}: cut into blocks of 32 tokens, {self.shards[0]} into blocks of 16",
                      p.stderr)
        self.assertIn("--block-size", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "blocks.json")))
        # The same size is merged as before.
        p = self.profile_bytes(out, self.hash_other("blocks32b", "--block-size", "32"),
                               name="blocks-same")
        self.assertTrue(p)

    def test_another_template_layout_is_refused(self):
        """Shards rendered with different --template layouts cannot share block ids."""
        out = self.hash_other("layout", "--template", "tools-in-system")
        p = self.profile_bytes(self.shards[0], out, name="layout", expect=2)
        self.assertIn(f"{out}: rendered with --template tools-in-system, {self.shards[0]} "
                      "with --template auto", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "layout.json")))
        # A log read directly with another --template than a shard's is refused the same way.
        p = env.run(["profile", out, self.m.c, "-o", os.path.join(self.dir, "layout2"),
                     "--salt-file", self.salt, "-q"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(f"{self.m.c}: rendered with --template auto, {out} with --template "
                      "tools-in-system", p.stderr)


if __name__ == "__main__":
    unittest.main()
