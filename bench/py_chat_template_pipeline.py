#!/usr/bin/python3
"""The Python reference of the chat-template speed bench (bench/run-chat-template-speed.sh): the
same work as `llmtrafficlens profile --chat-template T --tokenizer tokenizer.json` on a gateway log
of OpenAI bodies, done the way a Python user would: Jinja2 configured as transformers'
apply_chat_template (tests/oracle/jinja_reference.py, vLLM's pre-template rules in
tests/oracle/pre_template.py), Hugging Face tokenizers (npm binding of the Rust crate, through
tests/oracle/hf_oracle.js, batched), then 16-token blocks chained with SHA-256 and an unbounded
replay. Prints the stage times (wall) and the ceiling as one JSON line.

Run with Debian's /usr/bin/python3 (jinja2). NODE_PATH must hold the `tokenizers` package.
Usage: py_chat_template_pipeline.py TEMPLATE TOKENIZER_CONFIG TOKENIZER_JSON LOG.jsonl
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "tests", "oracle")
sys.path.insert(0, ORACLE)
import jinja_reference  # noqa: E402
import pre_template  # noqa: E402

BLOCK = 16


def special_tokens(config):
    out = {}
    for k in ("bos_token", "eos_token", "unk_token", "pad_token"):
        v = config.get(k)
        if isinstance(v, dict):
            v = v.get("content")
        if isinstance(v, str):
            out[k] = v
    return out


def main():
    template_path, config_path, tokenizer_json, log = sys.argv[1:5]
    t0 = time.time()
    with open(config_path, encoding="utf-8") as f:
        special = special_tokens(json.load(f))
    with open(template_path, encoding="utf-8") as f:
        source = f.read()
    template = jinja_reference.compile_template(source)
    content_format = pre_template.detect_content_format(template.environment, source)
    texts, refused, nbytes = [], 0, 0
    with open(log, encoding="utf-8") as f:
        for line in f:
            nbytes += len(line.encode("utf-8"))
            doc = json.loads(line)
            jinja_reference._NOW[0] = doc.pop("timestamp", 0)
            doc.pop("model", None)
            try:
                texts.append(template.render(**pre_template.template_variables(doc, special, content_format)))
            except Exception:  # noqa: BLE001 - a refused request is skipped, as profile does
                refused += 1
    t1 = time.time()
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        for x in texts:
            f.write(x.encode("utf-8") + b"\0")
        nul = f.name
    try:
        out = subprocess.run(["node", os.path.join(ORACLE, "hf_oracle.js"), tokenizer_json, nul],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(nul)
    ids = [[int(x) for x in line.split()] for line in out.split("\n")[:len(texts)]]
    t2 = time.time()
    cache, hits, total = set(), 0, 0
    for seq in ids:
        keys, h = [], b""
        for j in range(0, len(seq), BLOCK):
            chunk = seq[j:j + BLOCK]
            if len(chunk) < BLOCK:
                break  # full blocks only, as profile cuts them
            h = hashlib.sha256(h + b",".join(b"%d" % x for x in chunk)).digest()
            keys.append(h)
        run = 0
        while run < len(keys) and keys[run] in cache:
            run += 1
        hits += run * BLOCK
        total += len(seq)
        cache.update(keys)
    t3 = time.time()
    print(json.dumps({"bytes": nbytes, "requests": len(texts) + refused, "refused": refused,
                      "render_s": t1 - t0, "tokenize_s": t2 - t1, "hash_replay_s": t3 - t2,
                      "tokens": total, "hit_tokens": hits}))


if __name__ == "__main__":
    main()
