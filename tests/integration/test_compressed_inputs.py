"""Compressed inputs as real tools write them (issue 17 item 9): zstd from pzstd (a skippable frame
before each data frame), several zstd frames concatenated, gzip with trailing zero bytes (what tape
and dd tools leave). Each must be read completely: the same report as the plain file. A non-zero
byte after the padding is still corruption."""
import gzip
import json
import os
import shutil
import subprocess
import unittest

import ltl_test_env as env


def mooncake_lines(n):
    """n requests, every 7th sharing a head block, so the report has non-trivial reuse."""
    out = []
    for i in range(n):
        ids = [i % 7, 1000 + i % 13, 10_000 + i]
        out.append(json.dumps({"timestamp": i * 100, "input_length": 3 * 512,
                               "output_length": 5, "hash_ids": ids}))
    return "\n".join(out) + "\n"


class CompressedInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = env.tempdir()
        cls.plain = os.path.join(cls.dir, "t.jsonl")
        with open(cls.plain, "w") as f:
            f.write(mooncake_lines(40_000))  # about 4 MB: pzstd cuts several frames
        cls.want = cls.profile_of(cls.plain)
        assert cls.want["counts"]["requests"] == 40_000, cls.want["counts"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def profile_of(cls, path, expect_exit=0):
        out = os.path.join(cls.dir, "r")
        r = env.run(["profile", path, "-o", out, "--salt-file", os.path.join(cls.dir, "salt"),
                     "--format", "mooncake"])
        if r.returncode != expect_exit:
            raise AssertionError(f"{path}: exit {r.returncode}: {r.stderr}")
        if expect_exit != 0:
            return r
        with open(out + ".json") as f:
            return json.load(f)

    def assertSameReport(self, rep, encoding):
        self.assertEqual(rep["input"]["encoding"], encoding)
        for key in ("counts", "curve", "ceiling"):
            self.assertEqual(rep[key], self.want[key], key)

    def tool(self, name):
        if not shutil.which(name):
            env.skip(f"{name} not installed (Debian package zstd, scripts/install-deps.sh)")

    def test_pzstd_skippable_frames(self):
        self.tool("pzstd")
        p = os.path.join(self.dir, "p.jsonl.zst")
        subprocess.run(["pzstd", "-q", "-p", "2", "-f", self.plain, "-o", p], check=True)
        with open(p, "rb") as f:
            head = f.read(4)
        # The file really starts with a skippable frame (magic 0x184D2A50, little-endian).
        self.assertEqual(head, bytes([0x50, 0x2A, 0x4D, 0x18]))
        listing = subprocess.run(["zstd", "-l", p], capture_output=True, text=True).stdout
        frames, skips = listing.splitlines()[1].split()[:2]
        self.assertGreater(int(frames), 1, listing)
        self.assertGreater(int(skips), 0, listing)
        self.assertSameReport(self.profile_of(p), "zstd")

    def test_concatenated_zstd_frames(self):
        self.tool("zstd")
        text = mooncake_lines(40_000).encode()
        half = text.index(b"\n", len(text) // 2) + 1
        p = os.path.join(self.dir, "c.jsonl.zst")
        with open(p, "wb") as f:
            for part in (text[:half], text[half:]):
                f.write(subprocess.run(["zstd", "-q", "-c"], input=part, capture_output=True,
                                       check=True).stdout)
        self.assertSameReport(self.profile_of(p), "zstd")

    def test_gzip_with_trailing_zero_padding(self):
        self.tool("gzip")
        p = os.path.join(self.dir, "z.jsonl.gz")
        with open(p, "wb") as f:
            f.write(subprocess.run(["gzip", "-c", self.plain], capture_output=True,
                                   check=True).stdout)
            f.write(b"\0" * 10240)  # padded to a tape block as tar/dd leave it
        # gzip itself accepts it (it says so on stderr and exits 0).
        subprocess.run(["gzip", "-t", p], check=True, capture_output=True)
        self.assertSameReport(self.profile_of(p), "gzip")
        # Two members, then padding: both members are read.
        text = mooncake_lines(40_000).encode()
        half = text.index(b"\n", len(text) // 2) + 1
        p2 = os.path.join(self.dir, "z2.jsonl.gz")
        with open(p2, "wb") as f:
            f.write(gzip.compress(text[:half]) + gzip.compress(text[half:]) + b"\0" * 512)
        self.assertSameReport(self.profile_of(p2), "gzip")

    def test_garbage_after_zero_padding_is_corrupt(self):
        p = os.path.join(self.dir, "g.jsonl.gz")
        with open(p, "wb") as f:
            f.write(gzip.compress(mooncake_lines(10).encode()) + b"\0" * 100 + b"junk")
        r = self.profile_of(p, expect_exit=2)
        self.assertRegex(r.stderr, r"^llmtrafficlens: .*g\.jsonl\.gz:\d+: corrupt gzip data "
                         r"\(non-zero bytes after the zero padding\)\n$")


if __name__ == "__main__":
    unittest.main()
