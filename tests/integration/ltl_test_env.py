"""Shared helpers for integration tests: locating the binary and data, running it, skipping."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY = os.environ.get("LTL_BINARY", "build/llmtrafficlens")
SOURCE_DIR = os.environ.get("LTL_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
DATA_DIR = os.environ.get("LTL_DATA_DIR", os.path.join(SOURCE_DIR, "build", "data"))
SHARED_DATA = os.environ.get("LTL_SHARED_DATA", os.path.join(SOURCE_DIR, "..", "shared", "data"))
SKIP = 77


def run(args, stdin=None, cwd=None, check=False):
    """Runs the binary; returns CompletedProcess with text stdout/stderr."""
    p = subprocess.run([BINARY] + list(args), input=stdin, capture_output=True, cwd=cwd)
    out = subprocess.CompletedProcess(p.args, p.returncode, p.stdout.decode("utf-8", "replace"),
                                      p.stderr.decode("utf-8", "replace"))
    if check and out.returncode != 0:
        raise AssertionError(f"{args} exited {out.returncode}: {out.stderr}")
    return out


def shared(name):
    path = os.path.join(SHARED_DATA, name)
    return path if os.path.exists(path) else None


def skip(reason):
    """Skips what cannot run here. Called at module level or from setUpClass, it skips the whole
    file (exit 77, the SKIP_RETURN_CODE ctest reports as Skipped). Called inside a unittest test
    (a test method, setUp, or a helper they call), it skips only that test: unittest records a
    SystemExit raised there as an error, so the file would fail where the data is absent."""
    print(f"SKIP: {reason}")
    frame = sys._getframe(1)
    while frame is not None:
        if isinstance(frame.f_locals.get("self"), unittest.TestCase):
            raise unittest.SkipTest(reason)
        frame = frame.f_back
    sys.exit(SKIP)


def node_oracle_modules():
    """Installs the npm reference packages (tests/oracle/setup-node-oracle.sh, once, under the data
    directory so the optimised and the sanitizer build share one copy) and returns the NODE_PATH
    to use; skips the test when node/npm or the packages are unavailable, except in CI (CI set),
    where scripts/test.sh has installed them and a missing package is a failure."""
    def unavailable(why):
        if os.environ.get("CI"):
            raise AssertionError(f"{why} (CI: scripts/test.sh installs the oracles, so this fails)")
        skip(why)
    if not shutil.which("node") or not shutil.which("npm"):
        unavailable("node/npm not installed (scripts/install-deps.sh --test installs them)")
    d = os.path.join(DATA_DIR, "node-oracle")
    r = subprocess.run([os.path.join(SOURCE_DIR, "tests/oracle/setup-node-oracle.sh"), d],
                       capture_output=True, text=True)
    if r.returncode != 0:
        unavailable(f"npm reference packages could not be installed: {r.stderr.strip()[-300:]}")
    return os.path.join(d, "node_modules")


_made_by = {}  # temporary directory -> the pid that made it


def _remove_temp_dirs():
    for d, pid in _made_by.items():
        if pid == os.getpid():  # never from a forked child (a worker process, a death test)
            shutil.rmtree(d, ignore_errors=True)


atexit.register(_remove_temp_dirs)


def tempdir(prefix="ltl-it-"):
    """A new temporary directory, removed with everything in it when the test process exits
    (set LTL_KEEP_TEST_DIRS=1 to keep them for a look after a failure)."""
    d = tempfile.mkdtemp(prefix=prefix)
    if not os.environ.get("LTL_KEEP_TEST_DIRS"):
        _made_by[d] = os.getpid()
    return d
