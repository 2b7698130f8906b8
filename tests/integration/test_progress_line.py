"""The progress line: drawn on stderr only when stderr is a terminal (a pty here) and --quiet is not
given; never on a pipe. LTL_PROGRESS_DELAY_S=0 removes the one-second delay so the test does not
depend on how fast the machine is."""
import os
import pty
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_gen  # noqa: E402
import ltl_test_env as test_env  # noqa: E402

BIN = os.environ["LTL_BINARY"]


def run_with_pty_stderr(args, env):
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read()
    proc.wait()
    os.close(master)
    return proc.returncode, out.decode(), b"".join(chunks).decode(errors="replace")


def main():
    tmp = test_env.tempdir(prefix="ltl-progress-")
    path = os.path.join(tmp, "trace.jsonl")
    trace_gen.write_jsonl(path, trace_gen.bailian_trace(conversations=400))
    size = os.path.getsize(path)
    env = dict(os.environ, LTL_PROGRESS_DELAY_S="0")
    base = [BIN, "profile", path, "-o", os.path.join(tmp, "r")]

    rc, out, err = run_with_pty_stderr(base, env)
    assert rc == 0, err
    assert "reading %s" % path in err, repr(err)
    assert "\r" in err and "\x1b[K" in err, repr(err)
    assert " of %s (" % ("%.0f kB" % (size / 1e3) if size < 1e6 else "%.1f MB" % (size / 1e6)) in err, \
        repr(err)
    assert err.endswith("\r\x1b[K"), "the line is erased at the end: %r" % err[-40:]
    assert "wrote " in out and "reading" not in out  # stdout untouched

    rc, out, err = run_with_pty_stderr(base + ["--quiet"], env)
    assert rc == 0 and err == "", repr(err)

    res = subprocess.run(base, env=env, capture_output=True, text=True)
    assert res.returncode == 0 and "reading" not in res.stderr, repr(res.stderr)

    print("ok: progress line on a terminal, silent with --quiet and on a pipe")


if __name__ == "__main__":
    main()
