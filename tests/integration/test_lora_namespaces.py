"""LoRA adapters keep namespaces apart (docs/SEMANTICS.md "Namespaces"): vLLM keys every block of a
LoRA request with the adapter's name (vllm/v1/core/kv_cache_utils.py generate_block_hash_extra_keys),
so a request for an adapter shares no block with the base model's or another adapter's requests,
however equal the prompts, and still shares with requests for the same adapter. The log names an
adapter only as a model name; --lora-modules says which names are adapters, in the three forms
vLLM's own --lora-modules takes. Checked on the block ids the bailian export writes against sharing
worked out by hand, together with cache_salt, and on the error a malformed value gets."""
import csv
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import run, tempdir  # noqa: E402

SYSTEM = {"role": "system", "content": "You answer questions about the billing system. " * 30}
ASK = {"role": "user", "content": "Why was I charged twice this month? " * 5}

# (model name, cache_salt or None); every request has the same prompt.
REQUESTS = [
    ("llama-base", None),     # 0
    ("sql-lora", None),       # 1
    ("sql-lora", None),       # 2: same adapter as 1
    ("chat-lora", None),      # 3: another adapter
    ("llama-base", None),     # 4: base again, as 0
    ("sql-lora", "tenant"),   # 5: adapter and salt
    ("sql-lora", "tenant"),   # 6: as 5
    ("llama-base", "tenant"),  # 7: salt without adapter
    ("not-an-adapter", None),  # 8: another model name, not declared: as the base (not separated)
]


def write_log(d):
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["timestamp", "request_json", "response_json", "model_name", "status_code"])
    for i, (model, salt) in enumerate(REQUESTS):
        body = {"model": model, "messages": [SYSTEM, ASK]}
        if salt is not None:
            body["cache_salt"] = salt
        response = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
        w.writerow([1753340000 + 10 * i, json.dumps(body), json.dumps(response), model, 200])
    path = os.path.join(d, "log.csv")
    with open(path, "w", newline="") as f:
        f.write(buf.getvalue())
    return path


def main():
    d = tempdir()
    log = write_log(d)
    salt_file = os.path.join(d, "salt")

    def export(extra):
        out = os.path.join(d, "trace.jsonl")
        # One fixed layout for every model name: only the namespaces may keep requests apart.
        p = run(["export", log, "--to", "bailian", "-o", out, "--salt-file", salt_file,
                 "--template", "tools-first"] + extra)
        assert p.returncode == 0, p.stderr
        return [json.loads(line)["hash_ids"] for line in open(out)]

    plain = export([])
    assert len(plain) == len(REQUESTS)
    # Without --lora-modules the model name keeps nothing apart (only the salt does).
    assert plain[0] == plain[1] == plain[3] == plain[8], "no adapters declared: one namespace"

    # The three forms of vLLM's --lora-modules: NAME=PATH, JSON object, bare NAME.
    ids = export(["--lora-modules", "sql-lora=/models/sql",
                  "--lora-modules", '{"name": "chat-lora", "path": "/models/chat", '
                                    '"base_model_name": "llama-base"}'])
    same = [(1, 2), (5, 6), (0, 4), (0, 8)]
    apart = [(0, 1), (0, 3), (1, 3), (1, 5), (0, 7), (5, 7), (3, 5)]
    for a, b in same:
        assert ids[a] == ids[b], f"requests {a} and {b} are in one namespace"
    for a, b in apart:
        assert not set(ids[a]) & set(ids[b]), f"requests {a} and {b} must share no block"
    assert ids[0] == plain[0], "the base model's ids do not change when adapters are declared"
    assert ids[7] == plain[7], "a salt alone keys the ids exactly as before"
    assert ids[1] != plain[1]

    bare = export(["--lora-modules", "sql-lora", "--lora-modules", "chat-lora=/x"])
    assert bare == ids, "a bare NAME names the same adapter as NAME=PATH"

    # A malformed value is refused with a message naming the problem, not the value.
    for bad in ['{"path": "/models/x"}', "{not json", "=/models/x"]:
        p = run(["export", log, "--to", "bailian", "-o", os.path.join(d, "x.jsonl"),
                 "--salt-file", salt_file, "--lora-modules", bad])
        assert p.returncode != 0, bad
        assert "--lora-modules" in p.stderr, p.stderr
    print(f"{len(REQUESTS)} requests: adapters keep their blocks apart, with and without salts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
