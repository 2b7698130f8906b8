"""Oracle test: `llmtrafficlens tokenize` must give exactly the token ids of OpenAI's tiktoken (npm
WASM build, run under node) for cl100k_base and o200k_base over 5.5 MB of generated mixed text
(prose with mixed-case contractions, code, JSON, CJK, emoji/ZWJ, whitespace runs, digits, random
Unicode including Unicode 15-16 letters, ill-formed UTF-8 next to text, special-token look-alikes).
Skips when node/npm, the npm packages or the vocabularies are unavailable."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["LTL_SOURCE_DIR"], "tests", "oracle"))
import corpus  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import node_oracle_modules  # noqa: E402

SRC = os.environ["LTL_SOURCE_DIR"]
BIN = os.environ["LTL_BINARY"]
DATA = os.environ["LTL_DATA_DIR"]


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def node_oracle_dir():
    return node_oracle_modules()


def compare(label, ours, ref):
    a = ours.split("\n")
    b = ref.split("\n")
    assert len(a) == len(b), f"{label}: {len(a)} records vs reference {len(b)}"
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    if bad:
        i = bad[0]
        x, y = a[i].split(), b[i].split()
        j = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
        raise AssertionError(f"{label}: {len(bad)} of {len(a)} records differ; first: record {i} "
                             f"token {j}: ours {x[j:j + 8]} reference {y[j:j + 8]}")
    print(f"{label}: {len(a) - 1} records, {sum(len(l.split()) for l in a)} tokens identical")


def main():
    for enc in ("cl100k_base", "o200k_base"):
        if not os.path.exists(os.path.join(DATA, enc + ".tiktoken")):
            skip(f"{enc} vocabulary not installed: run scripts/fetch-vocab.sh {DATA}")
    node_path = node_oracle_dir()
    env = dict(os.environ, NODE_PATH=node_path)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus.bin")
        data = corpus.corpus(5_500_000, seed=20261130)
        assert len(data) >= 5_000_000
        with open(path, "wb") as f:
            f.write(data)
        for enc in ("cl100k_base", "o200k_base"):
            ref = subprocess.run(["node", os.path.join(SRC, "tests/oracle/tiktoken_oracle.js"), enc,
                                  path], env=env, capture_output=True, text=True, check=True).stdout
            for extra in ([], ["--cache"]):  # the segment cache must not change a single id
                ours = subprocess.run([BIN, "tokenize", "-z", "--tokenizer", enc, "--data-dir",
                                       DATA, path] + extra, capture_output=True, text=True,
                                      check=True).stdout
                compare(" ".join([enc] + extra), ours, ref)


if __name__ == "__main__":
    main()
