"""vLLM's cache_salt keeps namespaces apart (docs/SEMANTICS.md "Namespaces"): vLLM adds a request's
cache_salt to the extra keys of its first block's hash (vllm/v1/core/kv_cache_utils.py), so equal
prompts with different salts share no block, a salted prompt shares nothing with an unsalted one,
an empty salt is no salt, and a conversation continued under its salt still reuses its history.
Checked on the block ids the bailian export writes, against sharing worked out by hand, and on
profile's ceiling."""
import csv
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import run, tempdir  # noqa: E402

SYSTEM = {"role": "system", "content": "You answer questions about the billing system. " * 30}
ASK = {"role": "user", "content": "Why was I charged twice this month? " * 5}
TURN2 = [SYSTEM, ASK, {"role": "assistant", "content": "Two invoices were issued."},
         {"role": "user", "content": "Please refund one."}]

# (messages, cache_salt or None)
REQUESTS = [
    ([SYSTEM, ASK], None),
    ([SYSTEM, ASK], "tenant-a"),
    ([SYSTEM, ASK], "tenant-b"),
    ([SYSTEM, ASK], "tenant-a"),
    ([SYSTEM, ASK], ""),
    (TURN2, "tenant-a"),
]


def main():
    d = tempdir()

    def write_log(name, salted):
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["timestamp", "request_json", "response_json", "model_name", "status_code"])
        for i, (messages, salt) in enumerate(REQUESTS):
            body = {"model": "gpt-4o", "messages": messages}
            if salted and salt is not None:
                body["cache_salt"] = salt
            response = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
            w.writerow([1753340000 + 10 * i, json.dumps(body), json.dumps(response), "gpt-4o",
                        200])
        path = os.path.join(d, name)
        with open(path, "w", newline="") as f:
            f.write(buf.getvalue())
        return path

    log = write_log("log.csv", True)
    salt_file = os.path.join(d, "salt")

    out = os.path.join(d, "trace.jsonl")
    p = run(["export", log, "--to", "bailian", "-o", out, "--salt-file", salt_file])
    assert p.returncode == 0, p.stderr
    ids = [json.loads(line)["hash_ids"] for line in open(out)]
    assert len(ids) == len(REQUESTS) and all(len(x) > 8 for x in ids), ids
    assert ids[0] == ids[4], "an empty cache_salt is no salt"
    assert ids[1] == ids[3], "one salt: equal prompts share every block"
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        assert not set(ids[a]) & set(ids[b]), f"requests {a} and {b} must share no block"
    # The continuation under tenant-a reuses request 3's full blocks (all but a partial tail).
    full = len(ids[3]) - 1
    assert ids[5][:full] == ids[3][:full], (ids[5], ids[3])
    assert not set(ids[5]) & set(ids[0]), "the salted continuation shares nothing unsalted"

    # profile: the ceiling counts exactly the sharing above. Without the salts, requests 1-4 would
    # all hit request 0's full blocks; with them, 3 hits 1's and 4 hits 0's, and 1 and 2 miss. So
    # the salted ceiling is the unsalted one less two requests' worth of shared prompt blocks.
    def ceiling(path):
        rep = os.path.join(d, os.path.basename(path) + ".report")
        p = run(["profile", path, "-o", rep, "-q", "--salt-file", salt_file, "--warmup", "0"])
        assert p.returncode == 0, p.stderr
        return json.load(open(rep + ".json"))["ceiling"]["hit_tokens"]

    unsalted = write_log("unsalted.csv", False)
    salted_hit, unsalted_hit = ceiling(log), ceiling(unsalted)
    per_request = (unsalted_hit - salted_hit) / 2
    assert unsalted_hit > salted_hit > 0, (salted_hit, unsalted_hit)
    # Requests 1-4 hit the same prompt blocks when unsalted; 5 hits its history either way.
    assert per_request > 0 and (unsalted_hit - salted_hit) % 2 == 0, (salted_hit, unsalted_hit)
    hit = salted_hit
    print(f"{len(REQUESTS)} requests: salts keep their blocks apart; ceiling hit {hit} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
