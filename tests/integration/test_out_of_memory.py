"""Running out of memory ends every run the same way (issue 35, items 5 and 6): one line,
`out of memory; nothing was written`, exit 2, no report, whatever thread or parser met the failure,
and no core dump can hold prompt text.

Before: with default threads a worker's std::bad_alloc aborted the process (exit 134) where
`--threads 1` ended cleanly; simdjson's allocation failures (MEMALLOC) were read as `invalid JSON`,
so a valid 42 MB row was skipped and the run exited 0 without it, and a parser whose buffers failed
half-way crashed on the next row.

The memory limit is RLIMIT_AS set in the child (`ulimit -v`), swept across the range where the
42 MB row stops fitting: at every limit the outcome must be either the complete report (all 7
requests, nothing skipped) or the clean exit; never an abort, a crash or a lost row. Not under the
sanitizers: AddressSanitizer reserves terabytes of address space and cannot run under RLIMIT_AS."""
import json
import os
import resource
import signal
import subprocess
import unittest

import ltl_test_env as env

if os.environ.get("LTL_SANITIZED") in ("1", "ON", "TRUE", "true"):
    env.skip("RLIMIT_AS cannot be combined with AddressSanitizer's shadow memory")

MIB = 1 << 20
OOM_LINE = "llmtrafficlens: out of memory; nothing was written"


class OutOfMemory(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = env.tempdir()
        cls.log = os.path.join(cls.dir, "big.jsonl")
        small = json.dumps({"model": "gpt-4o", "messages": [{"role": "user",
                                                             "content": "hello there"}]})
        # One request of 1,000,000 messages (42 MB of JSON) between six small ones.
        big = json.dumps({"model": "gpt-4o", "messages": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"}
            for i in range(1000000)]})
        with open(cls.log, "w") as f:
            f.write((small + "\n") * 3 + big + "\n" + (small + "\n") * 3)

    def run_limited(self, limit_mib, threads):
        out = os.path.join(self.dir, f"r-{limit_mib}-{threads}")

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (limit_mib * MIB, limit_mib * MIB))
        args = [env.BINARY, "profile", self.log, "-o", out]
        if threads is not None:
            args += ["--threads", str(threads)]
        p = subprocess.run(args, cwd=self.dir, capture_output=True, text=True, preexec_fn=limit,
                           timeout=300)
        return p, out

    def test_every_limit_ends_complete_or_cleanly(self):
        outcomes = {}
        for threads in (None, 1, 2):  # None: the default, every core
            for limit_mib in (300, 450, 550, 650, 800, 1000, 1200, 4000):
                with self.subTest(threads=threads, limit_mib=limit_mib):
                    p, out = self.run_limited(limit_mib, threads)
                    self.assertIn(p.returncode, (0, 2), p.stderr)  # not 134 (abort), not -11
                    if p.returncode == 2:
                        self.assertEqual(p.stderr.splitlines(), [OOM_LINE])
                        self.assertFalse(os.path.exists(out + ".json"))
                        self.assertFalse(os.path.exists(out + ".html"))
                        self.assertEqual([n for n in os.listdir(self.dir) if ".tmp" in n], [])
                    else:
                        with open(out + ".json") as f:
                            counts = json.load(f)["counts"]
                        self.assertEqual(counts["requests"], 7, p.stderr)  # the big row too
                        self.assertEqual(counts.get("skipped", 0), 0, p.stderr)
                        self.assertNotIn("invalid JSON", p.stderr)
                    outcomes.setdefault(p.returncode, []).append((threads, limit_mib))
        # The sweep covers both sides: some limits are too small, the largest is enough.
        self.assertIn(2, outcomes)
        self.assertIn(0, outcomes)

    def test_no_core_dump(self):
        # The process holds prompt text and the salt; an abort must not write them to disk. The
        # child is given an unlimited core size (soft limit up to the hard one), so only the
        # tool's own RLIMIT_CORE 0 / PR_SET_DUMPABLE 0 prevent a core here.
        soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
        if hard == 0:
            env.skip("the hard core-size limit is already 0: nothing to show")

        def allow_cores():
            resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
        d = env.tempdir()
        p = subprocess.Popen([env.BINARY, "profile", "-", "--format", "mooncake", "-o",
                              os.path.join(d, "r")], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=d,
                             preexec_fn=allow_cores)
        # More than a pipe holds: when write() returns, main() has run and the process reads.
        line = json.dumps({"timestamp": 0, "input_length": 16, "output_length": 1,
                           "hash_ids": [1]}) + "\n"
        p.stdin.write((line * 40000).encode())
        p.stdin.flush()
        with open(f"/proc/{p.pid}/limits") as f:
            core = [ln for ln in f if ln.startswith("Max core file size")]
        self.assertEqual(core[0].split()[4:6], ["0", "0"], core)
        p.send_signal(signal.SIGABRT)
        _, status = os.waitpid(p.pid, 0)
        p.returncode = -signal.SIGABRT
        p.stdin.close()
        self.assertTrue(os.WIFSIGNALED(status))
        self.assertEqual(os.WTERMSIG(status), signal.SIGABRT)
        self.assertFalse(os.WCOREDUMP(status))
        self.assertEqual([n for n in os.listdir(d) if n.startswith("core")], [])


if __name__ == "__main__":
    unittest.main()
