"""The salt file (.ltl-salt): created 0600 whatever the umask (the mode is set at open, so there is
no window with wider permissions), 32 hex digits, reused by later runs; refused with one clear line
when it is group- or world-writable, a directory, a FIFO (without hanging) or malformed; never
printed (test_canary.py also greps every output for it). A group- or world-readable one is made
owner-only with one warning (issue 17, item 11), but only after it proved to be a salt, and a
symbolic link is never followed (issue 35, item 1)."""
import json
import os
import shutil
import stat
import subprocess
import unittest

import ltl_test_env as env

BODY = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hello there"}]})


class SaltFile(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.log = os.path.join(self.dir, "log.jsonl")
        with open(self.log, "w") as f:
            f.write(BODY + "\n" + BODY + "\n")
        self.salt = os.path.join(self.dir, ".ltl-salt")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def profile(self, umask=None):
        def preexec():
            if umask is not None:
                os.umask(umask)
        p = subprocess.run([env.BINARY, "profile", self.log, "-o", os.path.join(self.dir, "r")],
                           cwd=self.dir, capture_output=True, text=True, preexec_fn=preexec,
                           timeout=60)  # a hang (e.g. on a FIFO) fails instead of blocking CI
        return p

    def test_created_private_and_reused(self):
        r = self.profile(umask=0)  # even with umask 000 the file must be 0600
        self.assertEqual(r.returncode, 0, r.stderr)
        st = os.lstat(self.salt)
        self.assertTrue(stat.S_ISREG(st.st_mode))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
        with open(self.salt) as f:
            salt = f.read()
        self.assertRegex(salt, r"^[0-9a-f]{32}\n$")
        self.assertEqual([n for n in os.listdir(self.dir) if "tmp" in n], [])
        with open(os.path.join(self.dir, "r.json")) as f:
            first = f.read()
        r = self.profile()
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.salt) as f:
            self.assertEqual(f.read(), salt)  # reused, not replaced
        with open(os.path.join(self.dir, "r.json")) as f:
            self.assertEqual(f.read(), first)  # same key, same report
        for text in (r.stdout, r.stderr, first):
            self.assertNotIn(salt.strip(), text)

    def refused(self, pattern):
        r = self.profile()
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], "^llmtrafficlens: " + pattern + "$")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "r.json")))

    def test_group_or_world_writable_refused(self):
        for mode in (0o620, 0o602, 0o666):
            with self.subTest(mode=oct(mode)):
                with open(self.salt, "w") as f:
                    f.write("00112233445566778899aabbccddeeff\n")
                os.chmod(self.salt, mode)
                self.refused(r"\.ltl-salt: salt file is writable by group or others; "
                             r"run chmod 600 on it")
                os.unlink(self.salt)

    def test_group_or_world_readable_made_private_with_a_warning(self):
        for mode in (0o640, 0o604, 0o644):
            with self.subTest(mode=oct(mode)):
                with open(self.salt, "w") as f:
                    f.write("00112233445566778899aabbccddeeff\n")
                os.chmod(self.salt, 0o600)
                r = self.profile()
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(os.path.join(self.dir, "r.json")) as f:
                    private = json.load(f)
                os.chmod(self.salt, mode)
                r = self.profile()
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(".ltl-salt: salt file was readable by group or others; its mode is "
                              "now owner-only (0600)", r.stderr)
                self.assertEqual(stat.S_IMODE(os.stat(self.salt).st_mode), 0o600)
                with open(os.path.join(self.dir, "r.json")) as f:
                    tightened = json.load(f)
                self.assertEqual(tightened["ceiling"], private["ceiling"])  # the same key
                r = self.profile()
                self.assertNotIn("salt file", r.stderr)  # warned once, when it was changed
                os.unlink(self.salt)

    def test_directory_refused(self):
        os.mkdir(self.salt)
        self.refused(r"\.ltl-salt: salt file is not a regular file")

    def test_fifo_refused_without_hanging(self):
        os.mkfifo(self.salt, 0o600)
        self.refused(r"\.ltl-salt: salt file is not a regular file")

    def test_malformed_refused(self):
        with open(self.salt, "w") as f:
            f.write("not hex at all\n")
        os.chmod(self.salt, 0o600)
        self.refused(r"\.ltl-salt: salt file must hold 32 hexadecimal digits")

    def test_symlink_refused_target_unchanged(self):
        # Issue 35, item 1: a .ltl-salt link planted in the working directory was followed and its
        # target made owner-only before the content was checked. The link is refused, and neither
        # a valid salt nor any other file it points at changes mode.
        for content in ("00112233445566778899aabbccddeeff\n", "root:x:0:0:root:/root:/bin/sh\n"):
            with self.subTest(content=content[:8]):
                target = os.path.join(self.dir, "elsewhere")
                with open(target, "w") as f:
                    f.write(content)
                os.chmod(target, 0o644)
                os.symlink(target, self.salt)
                self.refused(r"\.ltl-salt: salt file is a symbolic link; name the file itself "
                             r"\(links are not followed\)")
                self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o644)
                with open(target) as f:
                    self.assertEqual(f.read(), content)
                os.unlink(self.salt)
                os.unlink(target)

    def test_dangling_symlink_refused_nothing_created(self):
        target = os.path.join(self.dir, "made-by-the-link")
        os.symlink(target, self.salt)
        self.refused(r"\.ltl-salt: salt file is a symbolic link; name the file itself "
                     r"\(links are not followed\)")
        self.assertFalse(os.path.lexists(target))

    def test_malformed_readable_refused_unchanged(self):
        # A group-readable file that is not a salt keeps its mode: validated before any chmod.
        with open(self.salt, "w") as f:
            f.write("not hex at all\n")
        os.chmod(self.salt, 0o644)
        self.refused(r"\.ltl-salt: salt file must hold 32 hexadecimal digits")
        self.assertEqual(stat.S_IMODE(os.stat(self.salt).st_mode), 0o644)

    def test_salt_file_option_link_refused(self):
        target = os.path.join(self.dir, "target")
        with open(target, "w") as f:
            f.write("00112233445566778899aabbccddeeff\n")
        os.chmod(target, 0o640)
        link = os.path.join(self.dir, "named-link")
        os.symlink(target, link)
        r = subprocess.run([env.BINARY, "profile", self.log, "-o", os.path.join(self.dir, "r"),
                            "--salt-file", link], cwd=self.dir, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("named-link: salt file is a symbolic link", r.stderr)
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o640)


if __name__ == "__main__":
    unittest.main()
