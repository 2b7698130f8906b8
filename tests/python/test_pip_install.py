"""`pip install --no-deps --no-build-isolation --no-index .` from the clone (issue 31 item 3), as a
Python user runs it, into a scratch prefix: the build step (setup.py) drives CMake in this test's
build directory (already built, so nothing is compiled again), the installed package is imported
from outside the source tree, its profile("examples/gateway.csv") returns the report, and the
Python API tests (test_api.py) pass against the installed package instead of build/python/.
Run with Debian's /usr/bin/python3 by ctest (it needs pip and wheel: scripts/install-deps.sh)."""
import glob
import importlib.util
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import ltl_test_env as env  # noqa: E402

SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))


class PipInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for module in ("pip", "wheel", "setuptools"):
            if importlib.util.find_spec(module) is None:
                raise unittest.SkipTest(f"{module} is not installed (scripts/install-deps.sh)")
        build = os.environ.get("LTL_BUILD_DIR")
        if not build:
            raise unittest.SkipTest("LTL_BUILD_DIR not set (ctest sets it)")
        cls.prefix = env.tempdir()
        run_env = {k: v for k, v in os.environ.items()
                   if k not in ("PYTHONPATH", "LTL_DATA_DIR", "PIP_USER")}
        run_env.update(LTL_CMAKE_BUILD_DIR=build, PIP_NO_CACHE_DIR="1", LTL_BUILD_JOBS="2")
        p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps",
                            "--no-build-isolation", "--no-index", "--prefix", cls.prefix, "."],
                           cwd=SOURCE, env=run_env, capture_output=True, text=True)
        if p.returncode != 0:
            raise AssertionError(f"pip install failed:\n{p.stdout}\n{p.stderr}")
        inits = glob.glob(os.path.join(cls.prefix, "**", "llmtrafficlens", "__init__.py"),
                          recursive=True)
        if len(inits) != 1:
            raise AssertionError(f"installed package not found under {cls.prefix}: {inits}")
        cls.site = os.path.dirname(os.path.dirname(inits[0]))
        cls.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        cls.env["PYTHONPATH"] = cls.site

    def python(self, *args):
        return subprocess.run([sys.executable, *args], cwd="/", env=self.env,
                              capture_output=True, text=True)

    def test_installed_package_profiles_the_example(self):
        salt = os.path.join(self.prefix, "salt")
        code = ("import json, warnings, llmtrafficlens as ltl\n"
                "warnings.simplefilter('ignore')\n"
                f"r = ltl.profile({os.path.join(SOURCE, 'examples', 'gateway.csv')!r}, "
                f"salt_file={salt!r})\n"
                "print(json.dumps([ltl.__file__, r.ceiling.hit_rate, r.counts.requests]))")
        p = self.python("-c", code)
        self.assertEqual(p.returncode, 0, p.stderr)
        path, hit_rate, requests = __import__("json").loads(p.stdout)
        self.assertTrue(path.startswith(self.site), path)  # not build/python, not the clone
        self.assertGreater(requests, 0)
        self.assertGreaterEqual(hit_rate, 0)
        # The reference: the CLI's report.json on the same file, with the same salt.
        out = os.path.join(self.prefix, "cli")
        cli = env.run(["profile", os.path.join(SOURCE, "examples", "gateway.csv"), "-o", out,
                       "--salt-file", salt, "-q"])
        self.assertEqual(cli.returncode, 0, cli.stderr)
        with open(out + ".json", encoding="utf-8") as f:
            ref = __import__("json").load(f)
        self.assertEqual(hit_rate, ref["ceiling"]["hit_rate"])
        self.assertEqual(requests, ref["counts"]["requests"])

    def test_python_api_tests_pass_against_the_install(self):
        p = self.python(os.path.join(HERE, "test_api.py"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
