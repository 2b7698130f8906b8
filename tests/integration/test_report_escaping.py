"""Input-derived strings reach report.html only escaped: a hostile file name, and a gateway CSV whose
model names and column names contain <script>alert(1)</script> and "><img src=x onerror=alert(1)>,
must show up as text, never as markup. Checked in the HTML source and, when Chromium is present, in
the live DOM (no script/img element, no dialog, no console error). Column names are not echoed into
the report at all (only the reader's error messages name columns), so for them the check is that no
unescaped form appears anywhere; the model names are shown (model mix) and must appear escaped."""
import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp_browser  # noqa: E402
import trace_gen  # noqa: E402
import ltl_test_env as env  # noqa: E402

BIN = os.environ["LTL_BINARY"]
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
ESCAPED = {SCRIPT: "&lt;script&gt;alert(1)&lt;/script&gt;",
           IMG: "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"}


def check_source(html, payloads):
    assert "<script" not in html.lower(), "a <script> element reached the page"
    assert "<img" not in html.lower(), "an <img> element reached the page"
    assert "onerror=alert(1)>" not in html, "the payload's closing > was not escaped"
    for p in payloads:
        assert ESCAPED[p] in html, "escaped form of %r missing" % p


def check_dom(html_path, payloads):
    chromium = cdp_browser.find_chromium()
    if not chromium:
        print("note: chromium absent, DOM check skipped")
        return
    url = "file://" + os.path.abspath(html_path)
    with cdp_browser.Browser(chromium) as b:
        b.open(url)
        assert b.evaluate("document.querySelectorAll('script, img').length") == 0
        assert not [e for e in b.events if e["method"] == "Page.javascriptDialogOpening"]
        assert not b.console_errors(), b.console_errors()
        text = b.evaluate("document.body.textContent")
        for p in payloads:
            assert p in text, "payload %r not shown as text" % p


def profile(args, prefix):
    return subprocess.run([BIN, "profile", *args, "-o", prefix, "--quiet"],
                          capture_output=True, text=True)


def main():
    tmp = env.tempdir(prefix="ltl-xss-")
    # 1. The file name: a directory "<script>alert(1)<" holding 'script>"><img ...>.jsonl', so the
    #    path as given contains both payloads.
    d = os.path.join(tmp, "<script>alert(1)<")
    os.makedirs(d)
    path = os.path.join(d, 'script>%s.jsonl' % IMG)
    assert SCRIPT + IMG in path
    trace_gen.write_jsonl(path, trace_gen.bailian_trace(conversations=30))
    prefix = os.path.join(tmp, "named")
    res = profile([path], prefix)
    assert res.returncode == 0, res.stderr
    with open(prefix + ".html", encoding="utf-8") as f:
        check_source(f.read(), [SCRIPT, IMG])
    with open(prefix + ".json", encoding="utf-8") as f:
        assert json.load(f)["input"]["file"] == path  # report.json keeps the name as it is
    check_dom(prefix + ".html", [SCRIPT, IMG])
    checked = ["file name"]

    # 2. A gateway CSV whose model name and column names carry the payloads.
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["request_json", "model_name", SCRIPT, IMG, "timestamp"])
    for i in range(30):
        body = {"model": SCRIPT, "messages": [
            {"role": "system", "content": "You are a careful assistant. " * 20},
            {"role": "user", "content": "question %d" % i}]}
        w.writerow([json.dumps(body), SCRIPT if i % 2 else IMG, "x", "y", 1753340000 + i])
    csv_path = os.path.join(tmp, "gateway.csv")
    with open(csv_path, "w", encoding="utf-8") as f:
        f.write(buf.getvalue())
    prefix = os.path.join(tmp, "gateway")
    res = profile([csv_path, "--format", "csv", "--salt-file", os.path.join(tmp, "salt")], prefix)
    assert res.returncode == 0, res.stderr
    with open(prefix + ".json", encoding="utf-8") as f:
        models = json.load(f)["distributions"]["models"]
    assert set(models) == {SCRIPT, IMG}, models  # both hostile names were read as models
    with open(prefix + ".html", encoding="utf-8") as f:
        html = f.read()
    check_source(html, [SCRIPT, IMG])
    check_dom(prefix + ".html", [SCRIPT, IMG])
    checked.append("model and column names")
    print("ok: escaped in report.html: " + ", ".join(checked))


if __name__ == "__main__":
    main()
