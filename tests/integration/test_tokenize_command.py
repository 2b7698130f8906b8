"""`llmtrafficlens tokenize`: one output line of ids per input line (published cl100k_base
examples), NUL-separated records, --count, and the errors for a missing vocabulary or an unknown
tokenizer (exit 2, naming the set-up command)."""
import os
import subprocess
import sys

BIN = os.environ["LTL_BINARY"]
DATA = os.environ["LTL_DATA_DIR"]


def run(args, data):
    return subprocess.run([BIN, "tokenize"] + args, input=data, capture_output=True)


def main():
    r = run(["--tokenizer", "cl100k_base", "--data-dir", "/nonexistent"], b"x\n")
    assert r.returncode == 2, r
    assert b"scripts/fetch-vocab.sh /nonexistent" in r.stderr, r.stderr
    r = run(["--tokenizer", "no-such-tokenizer"], b"x\n")
    assert r.returncode == 2 and b"cl100k_base" in r.stderr, r

    if not os.path.exists(os.path.join(DATA, "cl100k_base.tiktoken")):
        print(f"SKIP: cl100k_base not installed: run scripts/fetch-vocab.sh {DATA}")
        sys.exit(77)
    base = ["--tokenizer", "cl100k_base", "--data-dir", DATA]
    r = run(base, b"hello world\n1234567\n\nI'm don't\n")
    assert r.returncode == 0, r
    assert r.stdout == b"15339 1917\n4513 10961 22\n\n40 2846 1541 956\n", r.stdout
    # A last line without newline still counts; --count prints lengths.
    r = run(base + ["--count"], b"hello world\n1234567")
    assert r.stdout == b"2\n3\n", r.stdout
    # NUL-separated records keep their newlines.
    r = run(base + ["-z"], b"  \n\n  \0hello world\0")
    assert r.stdout == b"19124 256\n15339 1917\n", r.stdout
    print("ok")


if __name__ == "__main__":
    main()
