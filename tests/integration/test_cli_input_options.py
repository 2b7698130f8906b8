"""profile and export share their reading options (src/cli/input_options.cc): both accept binary
size suffixes for the line and field limits, and the same too-small limit makes both skip the same
rows and stop with exit code 1 (more than --max-skip-share skipped)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import SOURCE_DIR, run, tempdir  # noqa: E402

LOG = os.path.join(SOURCE_DIR, "examples", "gateway.csv")


def main():
    d = tempdir()
    salt = ["--salt-file", os.path.join(d, "salt")]
    ok_limits = ["--max-line-bytes", "64M", "--max-field-bytes", "16M"]
    r = run(["profile", LOG, "-o", os.path.join(d, "p"), "-q", *salt, *ok_limits])
    assert r.returncode == 0, r.stderr
    r = run(["export", LOG, "--to", "mooncake", "-o", os.path.join(d, "e.jsonl"), "-q", *salt,
             *ok_limits])
    assert r.returncode == 0, r.stderr

    tiny = ["--max-field-bytes", "1K"]  # every request_json of the example is longer
    p = run(["profile", LOG, "-o", os.path.join(d, "p2"), "-q", *salt, *tiny])
    e = run(["export", LOG, "--to", "mooncake", "-o", os.path.join(d, "e2.jsonl"), "-q", *salt,
             *tiny])
    assert p.returncode == 1 and e.returncode == 1, (p.returncode, p.stderr, e.returncode, e.stderr)
    rep = json.load(open(os.path.join(d, "p2.json")))
    skipped = rep["counts"]["skipped"]
    assert skipped > 0, rep["counts"]
    assert f"{skipped:,} of" in e.stderr or f"{skipped} of" in e.stderr, (skipped, e.stderr)
    print("ok")


if __name__ == "__main__":
    main()
