"""Preprocessed lines of the translation units two revisions share (the per-unit counts
bench/run-build-cost.sh writes to /tmp/ltl-build-cost-REV.json): what the same sources cost the
compiler before and after a change to the headers, apart from the code added in between.
Usage: python3 bench/compare-build-cost.py REV_BEFORE REV_AFTER"""
import json
import sys

a = json.load(open(f"/tmp/ltl-build-cost-{sys.argv[1]}.json"))
b = json.load(open(f"/tmp/ltl-build-cost-{sys.argv[2]}.json"))
name = lambda f: f.rsplit("/", 1)[-1]  # files moved between folders keep their name
a = {name(f): n for f, n in a.items()}
b = {name(f): n for f, n in b.items()}
common = sorted(set(a) & set(b))
sa, sb = sum(a[f] for f in common), sum(b[f] for f in common)
print(f"{len(common)} units in both: {sa:,} -> {sb:,} preprocessed lines ({sb / sa:.3f}x)")
moved = sorted(common, key=lambda f: b[f] - a[f])
print("most reduced: " + ", ".join(f"{f} {a[f]:,} -> {b[f]:,}" for f in moved[:5]))
