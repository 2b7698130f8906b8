"""`profile --tokenizer` and `export --tokenizer` on a gateway log: counts come from the real tokenizer (appending
"hello world" after a newline adds exactly cl100k_base's 2 tokens 15339 1917, where approximate
counting adds 3), the report names the tokenizer, a missing vocabulary is exit 2 naming the set-up
command, and a hashed trace warns that the flag has no effect."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import DATA_DIR, run, skip  # noqa: E402


def profile_one(tmp, content, extra):
    log = os.path.join(tmp, "log.jsonl")
    with open(log, "w") as f:
        f.write(json.dumps({"timestamp": 1700000000, "model": "gpt-4o",
                            "messages": [{"role": "user", "content": content}]}) + "\n")
    out = os.path.join(tmp, "r")
    r = run(["profile", log, "-q", "-o", out, "--salt-file", os.path.join(tmp, "salt")] + extra)
    assert r.returncode == 0, r.stderr
    with open(out + ".json") as f:
        return json.load(f)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r = run(["profile", os.path.join(tmp, "none.jsonl"), "--tokenizer", "cl100k_base",
                 "--data-dir", os.path.join(tmp, "nowhere")])
        assert r.returncode == 2 and "scripts/fetch-vocab.sh" in r.stderr, r.stderr
        if not os.path.exists(os.path.join(DATA_DIR, "cl100k_base.tiktoken")):
            skip(f"cl100k_base not installed: run scripts/fetch-vocab.sh {DATA_DIR}")
        tok = ["--tokenizer", "cl100k_base", "--data-dir", DATA_DIR]
        a = profile_one(tmp, "Tell me\n", tok)
        b = profile_one(tmp, "Tell me\nhello world", tok)
        assert a["input"]["tokenizer"] == "cl100k_base", a["input"]
        assert "cl100k_base" in a["input"]["counting"], a["input"]
        ta = a["distributions"]["input_tokens"]["max"]
        tb = b["distributions"]["input_tokens"]["max"]
        assert tb - ta == 2, (ta, tb)
        approx_a = profile_one(tmp, "Tell me\n", [])
        approx_b = profile_one(tmp, "Tell me\nhello world", [])
        assert approx_a["input"]["tokenizer"] is None
        da = approx_b["distributions"]["input_tokens"]["max"] - \
            approx_a["distributions"]["input_tokens"]["max"]
        assert da != 2, da  # the approximate count differs: the flag really changed counting

        # export cuts the same real tokens: Mooncake input_length grows by the same 2 tokens.
        lengths = []
        for content in ("Tell me\n", "Tell me\nhello world"):
            log = os.path.join(tmp, "log.jsonl")
            with open(log, "w") as f:
                f.write(json.dumps({"timestamp": 1700000000, "model": "gpt-4o",
                                    "messages": [{"role": "user", "content": content}]}) + "\n")
            out = os.path.join(tmp, "export.jsonl")
            r = run(["export", log, "--to", "mooncake", "-o", out, "-q", "--salt-file",
                     os.path.join(tmp, "salt")] + tok)
            assert r.returncode == 0, r.stderr
            with open(out) as f:
                lengths.append(json.loads(f.readline())["input_length"])
        assert lengths[1] - lengths[0] == 2 and lengths[0] == ta, (lengths, ta)

        trace = os.path.join(tmp, "t.jsonl")
        with open(trace, "w") as f:
            f.write('{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]}\n')
        r = run(["profile", trace, "-q", "-o", os.path.join(tmp, "t")] + tok)
        assert r.returncode == 0 and "no effect" in r.stderr, r.stderr
    print("ok")


if __name__ == "__main__":
    main()
