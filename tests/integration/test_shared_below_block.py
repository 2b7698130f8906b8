"""A shared prefix shorter than one block is its own reason (docs/SEMANTICS.md "Shared, but shorter
than a block"), not "nothing shared": requests that begin with the same short system prompt but
share no block are counted with their shared tokens. Checked against the replay itself: at a block
size larger than the shared opening an unbounded cache hits none of it, and at a block size of 4
the ceiling's hit tokens are the reported tokens rounded down to whole blocks (the replay cuts and
hashes the prompts; the reason comes from the segment facts, another path). A template's framing
alone, which every request begins with, is not sharing."""
import csv
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import run, tempdir  # noqa: E402

N = 6
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]


def user_text(i):
    # Each request's message starts differently and is long enough for many blocks.
    return f"{i}{i} " + " ".join(WORDS[(i + k) % len(WORDS)] + str(k * 7 + i) for k in range(120))


def write_log(d, name, system):
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["timestamp", "request_json", "response_json", "model_name", "status_code"])
    for i in range(N):
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": user_text(i)}]
        body = {"model": "gpt-4o", "messages": messages}
        response = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
        w.writerow([1753340000 + 10 * i, json.dumps(body), json.dumps(response), "gpt-4o", 200])
    path = os.path.join(d, name)
    with open(path, "w", newline="") as f:
        f.write(buf.getvalue())
    return path


def profile(d, log, block_size):
    rep = os.path.join(d, f"{os.path.basename(log)}.{block_size}")
    p = run(["profile", log, "-o", rep, "-q", "--salt-file", os.path.join(d, "salt"),
             "--warmup", "0", "--block-size", str(block_size)])
    assert p.returncode == 0, p.stderr
    return json.load(open(rep + ".json"))


def main():
    d = tempdir()
    log = write_log(d, "short-system.csv", "Be terse.")
    big = profile(d, log, 64)
    below = big["cache_busters"]["shared_below_block"]
    assert below["block_size"] == 64, below
    assert below["requests"] == N - 1, below  # all but the first begin as the first did
    t = below["median_tokens"]
    assert 0 < t < 64 and below["tokens"] == (N - 1) * t, below
    assert big["ceiling"]["hit_tokens"] == 0, "no block is shared at 64 tokens per block"
    findings = " ".join(big.get("findings", []))
    assert "Shared, but shorter than a block" in findings, findings

    # At 4 tokens per block the replay hits the shared opening in whole blocks: at least the
    # reported tokens rounded down, at most one block more (the user text's first token could
    # still fall in a shared block only if it matched, and the messages start differently).
    small = profile(d, log, 4)
    hit = small["ceiling"]["hit_tokens"]
    assert (N - 1) * (t // 4) * 4 <= hit <= (N - 1) * (t + 4), (hit, t)
    assert small["cache_busters"]["shared_below_block"]["requests"] == 0, "blocks are shared now"

    # Without a system prompt the requests share only the template's opening framing: not counted.
    plain = profile(d, write_log(d, "no-system.csv", None), 64)
    assert plain["cache_busters"]["shared_below_block"]["requests"] == 0, plain["cache_busters"]
    print(f"{N - 1} requests share {t} tokens below a 64-token block; at block size 4 the "
          f"ceiling hits {hit} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
