"""`profile`/`export` with --chat-template and --model-dir: the model's own template renders the
requests (report names it and how many requests it rendered), strftime_now formats each request's
own time, a template's raise_exception skips that request with its masked message as the reason
(no request text anywhere in the output), the thread count changes nothing, --model-dir NAME=DIR
serves only its model and the report counts the fallback rows, --model-dir DIR's config.json gives
the KV bytes per token, `tokenize --model-dir DIR` renders with the folder's template and encodes
with its tokenizer.json, and bad combinations exit 2 naming the option."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import run  # noqa: E402

SECRET = "zebra-quokka-secret"
DAY = 86400
T0 = 1700000000 - 1700000000 % DAY + 3600  # 01:00 UTC on some day

# A template of our own: the date first, then every message; refuses a conversation whose first
# message is a user's (quoting that message: the masked reason must not carry it).
TEMPLATE = (
    "{{ bos_token }}Date: {{ strftime_now('%Y-%m-%d') }}\n"
    "{% if messages[0].role == 'user' %}"
    "{{ raise_exception('first message must be system, got: ' + messages[0].content) }}"
    "{% endif %}"
    "{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>\n{% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}")

SYSTEM = "You are a careful assistant. " * 12


def byte_tokenizer():
    """A byte-level BPE tokenizer.json with the 256 byte tokens (id = byte value), no merges."""
    chars, n = {}, 256
    for b in range(256):
        printable = 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or b >= 0xAE
        chars[b] = chr(b) if printable else chr(n)
        n += 0 if printable else 1
    return {"version": "1.0", "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                              "trim_offsets": True, "use_regex": False},
            "model": {"type": "BPE", "vocab": {chars[b]: b for b in range(256)}, "merges": []}}


def body(t, model, msgs):
    return {"timestamp": t, "model": model, "messages": msgs}


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def profile(tmp, log, extra, name="r"):
    out = os.path.join(tmp, name)
    r = run(["profile", log, "-q", "-o", out, "--salt-file", os.path.join(tmp, "salt"),
             "--warmup", "0"] + extra)
    assert r.returncode == 0, r.stderr
    with open(out + ".json") as f:
        text = f.read()
    with open(out + ".html") as f:
        html = f.read()
    return json.loads(text), text + html + r.stdout + r.stderr


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmpl = os.path.join(tmp, "chat_template.jinja")
        with open(tmpl, "w") as f:
            f.write(TEMPLATE)
        with open(os.path.join(tmp, "tokenizer_config.json"), "w") as f:
            json.dump({"bos_token": "<s>", "eos_token": "</s>"}, f)
        sys_msg = {"role": "system", "content": SYSTEM}
        log = os.path.join(tmp, "log.jsonl")
        rows = [
            body(T0, "m", [sys_msg, {"role": "user", "content": "one"}]),
            body(T0 + 60, "m", [sys_msg, {"role": "user", "content": "two"}]),   # same day: hits
            body(T0 + DAY, "m", [sys_msg, {"role": "user", "content": "three"}]),  # next day: none
            body(T0 + DAY + 5, "m", [{"role": "user", "content": SECRET}]),       # refused
        ]
        write(log, rows)
        rep, everything = profile(tmp, log, ["--chat-template", tmpl])
        label = f"chat template {tmpl}"
        assert rep["gateway"]["templates"] == {label: 3}, rep["gateway"]["templates"]
        assert label in rep["settings"]["template_layout"], rep["settings"]
        skips = rep["counts"]["skipped_by_reason"]
        assert len(skips) == 1 and next(iter(skips)).startswith(
            "chat template raised: first message must be system, got: \u2026 (line 2:"), skips
        assert next(iter(skips.values()))["count"] == 1, skips
        assert SECRET not in everything, "request text leaked into the output"
        # Cold replay: request 2 reuses request 1's date + system blocks, request 3 (a new day,
        # so a new first line) reuses nothing. Hits only come from request 2.
        hits = rep["cold_ceiling"]["hit_tokens"]
        assert hits > 0, rep["cold_ceiling"]
        write(log, rows[:2])
        same_day, _ = profile(tmp, log, ["--chat-template", tmpl], "same")
        assert same_day["cold_ceiling"]["hit_tokens"] == hits, (same_day["cold_ceiling"], hits)
        write(log, [rows[0], dict(rows[1], timestamp=T0 + DAY)])
        next_day, _ = profile(tmp, log, ["--chat-template", tmpl], "next")
        assert next_day["cold_ceiling"]["hit_tokens"] == 0, next_day["cold_ceiling"]
        # The same log without the template: the fixed layout has no date, so they do share.
        fixed, _ = profile(tmp, log, [], "fixed")
        assert fixed["cold_ceiling"]["hit_tokens"] > 0, fixed["cold_ceiling"]

        # tokenize --chat-template --text: the rendered text per body, at --now; a refused body
        # prints an empty line and its masked reason, and the run exits 1.
        bodies = "".join(json.dumps({"messages": m}) + "\n" for m in (
            [sys_msg, {"role": "user", "content": "hi"}], [{"role": "user", "content": SECRET}]))
        r = run(["tokenize", "--chat-template", tmpl, "--text", "--now", str(T0 + DAY)],
                stdin=bodies.encode())
        want = ("<s>Date: " + ("%04d-%02d-%02d" % __import__("time").gmtime(T0 + DAY)[:3]) +
                f"\n<system>{SYSTEM}</system>\n<user>hi</user>\n<assistant>\n\n")
        assert r.returncode == 1 and r.stdout == want, (r.returncode, r.stdout, r.stderr)
        assert "<stdin>:2: chat template raised" in r.stderr and SECRET not in r.stderr, r.stderr
        r = run(["tokenize", "--text"], stdin=b"x\n")
        assert r.returncode == 2 and "--chat-template" in r.stderr, r.stderr

        # Threads change nothing (template messages are interned across workers).
        many = [body(T0 + i, "m", [sys_msg] * (i % 2) + [{"role": "user", "content": f"q{i % 7}"}])
                for i in range(3000)]
        write(log, many)
        outs = []
        for threads in ("1", "2"):
            r, _ = profile(tmp, log, ["--chat-template", tmpl, "--threads", threads], "t" + threads)
            outs.append(r)
        assert outs[0] == outs[1], "report differs between --threads 1 and 2"
        assert outs[0]["counts"]["skipped"] == 1500, outs[0]["counts"]

        # --model-dir NAME=DIR serves its model only; the other rows fall back and are counted.
        mdir = os.path.join(tmp, "model")
        os.mkdir(mdir)
        os.rename(tmpl, os.path.join(mdir, "chat_template.jinja"))
        os.rename(os.path.join(tmp, "tokenizer_config.json"),
                  os.path.join(mdir, "tokenizer_config.json"))
        with open(os.path.join(mdir, "config.json"), "w") as f:
            json.dump({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 32,
                       "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096,
                       "head_dim": 128, "torch_dtype": "bfloat16"}, f)
        mixed = [body(T0 + i, "org/M" if i % 3 else "other", [sys_msg, {"role": "user",
                                                                       "content": f"x{i}"}])
                 for i in range(30)]
        write(log, mixed)
        rep, _ = profile(tmp, log, ["--model-dir", "m=" + mdir], "named")
        t = rep["gateway"]["templates"]
        ours = f"m: chat template {mdir}/chat_template.jinja"
        assert t.get(ours) == 20, t
        fallback = [k for k in t if k != ours]
        assert len(fallback) == 1 and "fallback" in fallback[0] and t[fallback[0]] == 10, t

        # --model-dir DIR: the template for every request, config.json for the KV bytes.
        rep, _ = profile(tmp, log, ["--model-dir", mdir], "unnamed")
        assert rep["gateway"]["templates"] == {f"chat template {mdir}/chat_template.jinja": 30}
        kv = rep.get("kv_cache") or {}
        assert "config.json" in str(kv.get("source")), kv  # the model named by its config file
        # 32 layers x 8 kv heads x 128 x 2 (K and V) x 2 bytes
        assert kv.get("bytes_per_token") == 131072, kv

        # tokenize --model-dir DIR: the folder's template renders, its tokenizer.json encodes.
        # A byte-level BPE without merges: each id is one byte of the rendered text.
        one = json.dumps({"messages": [sys_msg, {"role": "user", "content": "hi"}]}) + "\n"
        r = run(["tokenize", "--model-dir", mdir, "--text", "--now", str(T0)], stdin=one.encode())
        assert r.returncode == 0, r.stderr
        rendered = r.stdout[:-1]
        assert rendered.startswith("<s>Date: ") and "<user>hi</user>" in rendered, rendered
        r = run(["tokenize", "--model-dir", mdir, "--now", str(T0)], stdin=one.encode())
        assert r.returncode == 2 and "no tokenizer.json" in r.stderr, (r.returncode, r.stderr)
        with open(os.path.join(mdir, "tokenizer.json"), "w") as f:
            json.dump(byte_tokenizer(), f)
        r = run(["tokenize", "--model-dir", mdir, "--now", str(T0)], stdin=one.encode())
        assert r.returncode == 0, r.stderr
        assert r.stdout == " ".join(str(b) for b in rendered.encode()) + "\n", r.stdout[:200]
        for args, words in ((["--tokenizer", "cl100k_base"], "keep one"),
                            (["--chat-template", os.path.join(mdir, "chat_template.jinja")],
                             "keep one")):
            r = run(["tokenize", "--model-dir", mdir] + args, stdin=one.encode())
            assert r.returncode == 2 and words in r.stderr, (args, r.returncode, r.stderr)
        r = run(["tokenize", "--model-dir", os.path.join(tmp, "nodir")], stdin=one.encode())
        assert r.returncode == 2 and "--model-dir" in r.stderr, r.stderr
        os.remove(os.path.join(mdir, "tokenizer.json"))

        # Export renders with the same template (the skipped row is not exported).
        write(log, rows)
        os.rename(os.path.join(mdir, "chat_template.jinja"), tmpl)
        out = os.path.join(tmp, "x.jsonl")
        r = run(["export", log, "--to", "mooncake", "-o", out, "-q", "--salt-file",
                 os.path.join(tmp, "salt"), "--chat-template", tmpl, "--block-size", "16"])
        assert r.returncode == 0, r.stderr
        with open(out) as f:
            lines = [json.loads(x) for x in f]
        assert len(lines) == 3, lines
        assert lines[0]["hash_ids"][0] == lines[1]["hash_ids"][0] != lines[2]["hash_ids"][0], lines

        # Bad combinations and files: exit 2, naming the option.
        for args, words in (
                (["--chat-template", os.path.join(tmp, "none.jinja")], "--chat-template"),
                (["--chat-template", tmpl, "--model-dir", mdir], "keep one"),
                (["--model-dir", os.path.join(tmp, "nodir")], "--model-dir"),
                (["--model-dir", "a=" + mdir, "--model-dir", "a=" + mdir], "twice")):
            r = run(["profile", log, "-q", "-o", os.path.join(tmp, "bad"), "--salt-file",
                     os.path.join(tmp, "salt")] + args)
            assert r.returncode == 2 and words in r.stderr, (args, r.returncode, r.stderr)
        with open(os.path.join(tmp, "broken.jinja"), "w") as f:
            f.write("{% for m in messages %}{{ m.content }")
        r = run(["profile", log, "-q", "-o", os.path.join(tmp, "bad"), "--salt-file",
                 os.path.join(tmp, "salt"), "--chat-template", os.path.join(tmp, "broken.jinja")])
        assert r.returncode == 2 and "broken.jinja" in r.stderr and "1:" in r.stderr, r.stderr
    print("ok")


if __name__ == "__main__":
    main()
