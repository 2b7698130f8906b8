"""Out-of-range numbers in options and model files are errors naming the field (issue 35, item
12): before, `--cache-gib 1e30` (also 1e19) became a 0-block cache labelled "-0 GiB" with a 0.0%
hit rate, `--tiers hbm=1e30GiB` a 0-block tier, and config.json `num_hidden_layers` 4294967328 was
read as 32 layers. Each is now one line, exit 2, nothing written. (Added-token ids outside 32 bits
are refused at load: tests/unit/hf_tokenizer_test.cc.)"""
import json
import os
import unittest

import ltl_test_env as env

LOG = os.path.join(env.SOURCE_DIR, "examples", "gateway.csv")


class NumberRanges(unittest.TestCase):
    def refused(self, args, message):
        d = env.tempdir()
        out = os.path.join(d, "r")
        r = env.run(["profile", LOG, "-o", out, "--salt-file", os.path.join(d, "salt")] + args)
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(message, lines[0])
        self.assertFalse(os.path.exists(out + ".json"))

    def test_cache_gib_beyond_an_exbibyte(self):
        for value in ("1e30", "1e19", "2e9"):
            with self.subTest(value=value):
                self.refused(["--kv-bytes-per-token", "1000", "--cache-gib", "1," + value],
                             f"--cache-gib: {float(value):g} is out of range (0, 1073741824] GiB")

    def test_tier_beyond_an_exbibyte(self):
        self.refused(["--kv-bytes-per-token", "1000", "--tiers", "hbm=80GiB,ssd=1e30GiB"],
                     "tier 'ssd': size '1e30GiB' is out of range (at most 1 EiB)")

    def test_config_layers_beyond_any_model(self):
        d = env.tempdir()
        cfg = os.path.join(d, "config.json")
        with open(cfg, "w") as f:
            json.dump({"num_hidden_layers": 4294967328, "num_attention_heads": 32,
                       "num_key_value_heads": 8, "hidden_size": 4096}, f)
        self.refused(["--model-config", cfg],
                     "config.json: num_hidden_layers is 4294967328, out of range (at most "
                     "16777216)")

    def test_sizes_within_range_still_work(self):
        d = env.tempdir()
        r = env.run(["profile", LOG, "-o", os.path.join(d, "r"), "-q", "--salt-file",
                     os.path.join(d, "salt"), "--kv-bytes-per-token", "1000", "--cache-gib",
                     "1,1073741824"])
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
