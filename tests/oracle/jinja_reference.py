#!/usr/bin/python3
"""Reference chat-template renderer for the oracle tests: Python's Jinja2 (Debian python3-jinja2)
configured exactly as transformers' apply_chat_template configures it
(src/transformers/utils/chat_template_utils.py, _compile_jinja_template, at
huggingface/transformers@5e43e2e8): ImmutableSandboxedEnvironment(trim_blocks=True,
lstrip_blocks=True, extensions=[AssistantTracker, jinja2.ext.loopcontrols]), tojson =
json.dumps(x, ensure_ascii=False, indent, separators, sort_keys), raise_exception raising
TemplateError, strftime_now formatting the request's own timestamp (not the clock).

Run with /usr/bin/python3 (the pyenv python3 first on PATH does not see Debian's packages).

  jinja_reference.py TEMPLATE --vars FILE.jsonl
      each line holds the template variables; "__now__" (unix seconds) feeds strftime_now.
  jinja_reference.py TEMPLATE --requests FILE.jsonl [--special-tokens JSON]
      each line is an OpenAI chat or Anthropic Messages body, converted to template variables by
      pre_template.py (written separately from the C++ rules, from the same engine sources).

Prints one JSON line per input: {"ok": true, "text": ...} or {"ok": false, "error": ...}.
"""
import datetime
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pre_template  # noqa: E402

_NOW = [0]


class AssistantTracker(jinja2.ext.Extension):
    """transformers' {% generation %} tag: renders its body unchanged."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    def _generation_support(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(format):
    return datetime.datetime.fromtimestamp(_NOW[0], datetime.timezone.utc).strftime(format)


def compile_template(source):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[AssistantTracker, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env.from_string(source)


def main():
    template_path, mode, data_path = sys.argv[1], sys.argv[2], sys.argv[3]
    special = {}
    if "--special-tokens" in sys.argv:
        special = json.loads(sys.argv[sys.argv.index("--special-tokens") + 1])
    with open(template_path, encoding="utf-8") as f:
        source = f.read()
    try:
        template = compile_template(source)
    except Exception as e:  # noqa: BLE001 - any compile error is the template's
        print(json.dumps({"parse_error": f"{type(e).__name__}: {e}"}))
        return
    content_format = pre_template.detect_content_format(template.environment, source)
    out = sys.stdout
    with open(data_path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            doc = json.loads(line)
            _NOW[0] = doc.pop("__now__", 0) if isinstance(doc, dict) else 0
            try:
                if mode == "--vars":
                    variables = doc
                else:
                    variables = pre_template.template_variables(doc, special, content_format)
            except pre_template.RequestRefused as e:
                out.write(json.dumps({"ok": False, "kind": "request", "error": str(e)}) + "\n")
                continue
            try:
                text = template.render(**variables)
                out.write(json.dumps({"ok": True, "text": text}, ensure_ascii=False) + "\n")
            except Exception as e:  # noqa: BLE001 - the template's own failure
                out.write(json.dumps({"ok": False, "kind": type(e).__name__, "error": str(e)},
                                     ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
