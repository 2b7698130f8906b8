"""Jinja results that differed from Python's (issue 35, item 17), each checked against Debian's
python3-jinja2 through tests/oracle/jinja_reference.py (the oracle test's reference renderer):
where Python renders, we render the same text; where Python raises, we refuse (this engine's ints
are 64-bit, so a Python result beyond them is refused as "exceeds 64 bits", never wrapped).
Before: (-2**63)|abs was negative, 1e400|int and '1e400'|int were 0. ('%2147483648d' % 1, where
Python builds a 2 GiB string, is refused by the byte budget; see
tests/unit/chat_template_limits_test.cc.)

A tokenizer_config.json with two chat_template keys: transformers reads it with Python's json,
whose dict keeps the last one; so do we (before: the first)."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ltl_test_env as env  # noqa: E402

ORACLE = os.path.join(env.SOURCE_DIR, "tests", "oracle")
DRIVER = os.environ.get("LTL_CT_DRIVER",
                        os.path.join(env.SOURCE_DIR, "build", "chat_template_driver"))
PY = "/usr/bin/python3"

CASES = [
    "{{ (-2**63)|abs }}",
    "{{ (-2**63 + 1)|abs }}",
    "{{ 1e400|int }}",
    "{{ '1e400'|int }}",
    "{{ '-1e400'|int(7) }}",
    "{{ 'nan'|int(7) }}",
    "{{ 1e300|int }}",
    "{{ '2.5e3'|int }}",
    "{{ -2.9|int }}",
    "{{ '%5d' % 42 }}",
]


def render(tool, template_path, vars_path):
    cmd = ([PY, os.path.join(ORACLE, "jinja_reference.py")] if tool == "py" else [DRIVER])
    p = subprocess.run(cmd + [template_path, "--vars", vars_path], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(p.stderr[-2000:])
    out = json.loads(p.stdout.split("\n")[0])
    return {"ok": False, "error": out["parse_error"]} if "parse_error" in out else out


class JinjaPythonEdges(unittest.TestCase):
    def test_results_equal_python(self):
        if subprocess.run([PY, "-c", "import jinja2"]).returncode != 0:
            self.skipTest("Debian python3-jinja2 is not installed")
        d = env.tempdir()
        vars_path = os.path.join(d, "vars.jsonl")
        with open(vars_path, "w") as f:
            f.write("{}\n")
        for i, case in enumerate(CASES):
            with self.subTest(template=case):
                path = os.path.join(d, f"t{i}.jinja")
                with open(path, "w") as f:
                    f.write(case)
                ref, ours = render("py", path, vars_path), render("ours", path, vars_path)
                if ref["ok"]:
                    if ours["ok"]:
                        self.assertEqual(ours["text"], ref["text"])
                    else:  # only an int beyond 64 bits may be refused where Python renders
                        self.assertIn("exceeds 64 bits", ours["error"])
                        self.assertGreaterEqual(abs(int(ref["text"])), 2**63)
                else:
                    self.assertFalse(ours["ok"], (ref, ours))

    def test_duplicate_chat_template_keys_take_the_last(self):
        d = env.tempdir()
        # Written by hand: json.dumps cannot repeat a key.
        config = ('{"bos_token": "<s>", "chat_template": "{{ raise_exception(\'first\') }}", '
                  '"chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}"}')
        self.assertNotIn("raise_exception", json.loads(config)["chat_template"])  # Python's rule
        cfg = os.path.join(d, "tokenizer_config.json")
        with open(cfg, "w") as f:
            f.write(config)
        log = os.path.join(d, "log.jsonl")
        with open(log, "w") as f:
            for i in range(3):
                f.write(json.dumps({"timestamp": 1735787045 + i, "model": "m", "messages": [
                    {"role": "user", "content": f"question {i}"}]}) + "\n")
        out = os.path.join(d, "r")
        r = env.run(["profile", log, "-o", out, "-q", "--salt-file", os.path.join(d, "salt"),
                     "--chat-template", cfg])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out + ".json") as f:
            rep = json.load(f)
        self.assertEqual(rep["counts"]["requests"], 3, rep["counts"])
        self.assertEqual(rep["counts"]["skipped"], 0, rep["counts"])


if __name__ == "__main__":
    unittest.main()
