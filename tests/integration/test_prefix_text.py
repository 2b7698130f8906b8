"""--show-prefix-text N is the only way prompt text reaches the reports: without it a canary in the
shared system prompt appears in no output; with it, the first N characters of each top prefix are in
report.json, escaped in report.html, and control-escaped on the terminal."""
import csv
import io
import json
import os
import subprocess
import sys
import ltl_test_env as env

BIN = os.environ["LTL_BINARY"]
CANARY = "CANARY7f3a<b>bold</b>"


def make_log(path):
    system = CANARY + " You are the billing assistant of Example Corp.\nAlways answer briefly. " * 8
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["request_json", "model_name", "timestamp"])
    for i in range(40):
        body = {"model": "glm-4.5", "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": "invoice question number %d, please look it up" % i}]}
        w.writerow([json.dumps(body), "glm-4.5", 1753340000 + 7 * i])
    with open(path, "w", encoding="utf-8") as f:
        f.write(buf.getvalue())


def run(args, cwd):
    res = subprocess.run([BIN, "profile", *args, "--quiet"], capture_output=True, text=True, cwd=cwd)
    assert res.returncode == 0, res.stderr
    return res


def main():
    tmp = env.tempdir(prefix="ltl-prefixtext-")
    log = os.path.join(tmp, "gateway.csv")
    make_log(log)
    res = run([log, "-o", "plain"], tmp)
    if "not readable yet" in res.stderr:
        print("skipped: gateway logs are not readable in this build")
        sys.exit(77)
    outputs = [res.stdout, res.stderr]
    for ext in (".json", ".html"):
        with open(os.path.join(tmp, "plain" + ext), encoding="utf-8") as f:
            outputs.append(f.read())
    for text in outputs:
        assert "CANARY7f3a" not in text, "prompt text leaked without --show-prefix-text"

    n = 60
    res = run([log, "-o", "shown", "--show-prefix-text", str(n)], tmp)
    with open(os.path.join(tmp, "shown.json"), encoding="utf-8") as f:
        rep = json.load(f)
    top = rep["prefixes"]["by_volume"][0]
    text = top["text"]
    assert 0 < len(text) <= n, text
    assert CANARY in text, text  # the shared system prompt opens the prefix
    # Every shown row has text, and each is a prefix of the longest one shown (one conversation
    # family here).
    rows = rep["prefixes"]["by_volume"] + rep["prefixes"]["by_count"]
    assert all(r.get("text") for r in rows)
    assert len(text) == n or len(text) <= top["blocks"] * 16 * 4
    with open(os.path.join(tmp, "shown.html"), encoding="utf-8") as f:
        html = f.read()
    assert "CANARY7f3a&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<b>" not in html
    # The terminal shows it on the line after the top prefix, with newlines escaped.
    lines = res.stdout.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("top prefix by volume"))
    assert lines[i + 1].strip().startswith('"') and "CANARY7f3a" in lines[i + 1], lines[i + 1]
    assert "\x1b" not in res.stdout
    # A named FIFO (or process substitution) can be read once: the option is refused before the
    # first read, with one line, instead of hanging on the second pass (issue 35, item 15). No
    # writer ever opens the FIFO: reading it at all would block until the timeout.
    fifo = os.path.join(tmp, "log.fifo")
    os.mkfifo(fifo)
    res = subprocess.run([BIN, "profile", fifo, "-o", "fifo", "--show-prefix-text", "20",
                          "--quiet"], capture_output=True, text=True, cwd=tmp, timeout=120)
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert "--show-prefix-text needs a re-readable file" in res.stderr, res.stderr
    assert fifo in res.stderr, res.stderr
    assert not os.path.exists(os.path.join(tmp, "fifo.json"))
    print("ok: no text by default; %d characters with --show-prefix-text" % len(text))


if __name__ == "__main__":
    main()
