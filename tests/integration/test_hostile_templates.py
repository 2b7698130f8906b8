"""Hostile chat templates through the command line (issue 35, items 2, 3, 4, 7, 9): each of these
crashed the process (segfault, or an uncaught std::out_of_range: exit 134), took gigabytes, or put
request text into stderr and the reports. Now a template too deep to parse is refused at load with
one line (exit 2), and a request the template cannot render is skipped with a reason that names
the error kind or the limit and holds no request text; the other requests are profiled, with any
thread count. The engine's own cases are in tests/unit/chat_template_limits_test.cc."""
import json
import os
import unittest

import ltl_test_env as env

CANARY = "CANARY-7f3a-quokka"

# One template, a branch per hostile case, chosen by the last message's content.
TEMPLATE = """{% set c = messages[-1].content %}
{% if c == 'ns' %}{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ ns }}{% endif %}
{% if c == 'width' %}{{ '%99999999999999999999s' % 1 }}{% endif %}
{% if c == 'format' %}{{ '{99999999999999999999}'.format() }}{% endif %}
{% if c == 'map' %}{{ messages|map(attribute='99999999999999999999')|list|length }}{% endif %}
{% if c == 'budget' %}{{ '%0999999999d' % 1 }}{% endif %}
{% if c == 'repeat' %}{{ ('x' * 200000000)|length }}{% endif %}
{% if c.startswith('secret') %}{{ raise_exception('bad: %s' % c) }}{% endif %}
{% if c.startswith('listed') %}{{ raise_exception(messages) }}{% endif %}
{% for m in messages %}<{{ m.role }}>{{ m.content }}
{% endfor %}"""

CONTENTS = ["hello", "ns", "width", "format", "map", "budget", "repeat", "secret " + CANARY,
            "listed " + CANARY, "hello again", "one more", "and more", "last one", "ok", "fine",
            "good"]


class HostileTemplates(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = env.tempdir()
        cls.tmpl = os.path.join(cls.dir, "t.jinja")
        with open(cls.tmpl, "w") as f:
            f.write(TEMPLATE)
        cls.log = os.path.join(cls.dir, "log.jsonl")
        with open(cls.log, "w") as f:
            for i, c in enumerate(CONTENTS):
                f.write(json.dumps({"timestamp": 1735787045 + i, "model": "m", "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": c}]}) + "\n")

    def profile(self, *extra, tmpl=None, name="r"):
        out = os.path.join(self.dir, name)
        r = env.run(["profile", self.log, "-o", out, "--salt-file",
                     os.path.join(self.dir, "salt"), "--chat-template", tmpl or self.tmpl]
                    + list(extra))
        return r, out

    def test_bad_requests_are_skipped_with_the_limit_named(self):
        reports = []
        for threads in ("1", "2"):
            r, out = self.profile("--threads", threads, name="r" + threads)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out + ".json") as f:
                text = f.read()
            with open(out + ".html") as f:
                html = f.read()
            for where in (text, html, r.stdout, r.stderr):
                self.assertNotIn(CANARY, where)
            rep = json.loads(text)
            skips = {}
            for k, v in rep["counts"]["skipped_by_reason"].items():
                key = k.split(" (line")[0]
                skips[key] = skips.get(key, 0) + v["count"]
            self.assertEqual(skips, {
                "chat template error: type error": 2,  # width, format: ValueError in Python
                "chat template limit: template allocated more than its byte budget of 512 MiB": 1,
                "chat template raised: \u2026": 2,  # '%s' % content, a list of messages
            }, rep["counts"]["skipped_by_reason"])
            self.assertEqual(rep["counts"]["requests"], len(CONTENTS) - 5)
            reports.append(rep["counts"])
        self.assertEqual(reports[0], reports[1])

    def test_too_deep_template_is_refused_at_load(self):
        for name, source in (("parens", "{{ " + "(" * 10000 + "1" + ")" * 10000 + " }}"),
                             ("plus", "{{ 1" + "+1" * 50000 + " }}"),
                             ("ifs", "{% if true %}" * 20000 + "x" + "{% endif %}" * 20000),
                             ("filters", "{{ 'a'" + "|trim" * 200000 + " }}"),
                             ("nots", "{{ " + "not " * 200000 + "true }}")):
            with self.subTest(name=name):
                path = os.path.join(self.dir, name + ".jinja")
                with open(path, "w") as f:
                    f.write(source)
                r, out = self.profile(tmpl=path, name=name)
                self.assertEqual(r.returncode, 2, r.stderr)
                lines = r.stderr.splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn("nested too deeply", lines[0])
                self.assertFalse(os.path.exists(out + ".json"))


if __name__ == "__main__":
    unittest.main()
