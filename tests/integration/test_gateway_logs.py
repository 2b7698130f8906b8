"""Gateway logs through the command line: one-line errors, bad rows skipped and counted with their
row numbers, the salt file, privacy (a canary planted in every field never reaches any output or
message), and properties checked on generated logs against bounds computed here, independently of
the tool's rendering: resent history hits, unrelated prompts share nothing, two salts give the same
hit rates."""
import csv
import io
import json
import os
import random
import stat
import string
import unittest

import ltl_test_env as env

CANARY = "CANARY7f3a9"


def slurp(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def csv_text(header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


class GatewayLogs(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.salt = os.path.join(self.dir, "salt")

    def write(self, name, text):
        p = os.path.join(self.dir, name)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return p

    def profile(self, path, *extra, out="r", salt=None):
        return env.run(["profile", path, "-o", os.path.join(self.dir, out), "--salt-file",
                        salt or self.salt, *extra], cwd=self.dir)

    def report(self, out="r"):
        with open(os.path.join(self.dir, out + ".json")) as f:
            return json.load(f)

    def test_missing_request_column_is_one_line_naming_the_columns(self):
        p = self.write("x.csv", "id,Prompt,model\n1,hi,m\n")
        r = self.profile(p)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, f"llmtrafficlens: {p}:1: no request_json column (found: id, "
                                   "prompt, model); --body-field COLUMN names the request body (also "
                                   "--status-field, --session-field, --time-field, --model-field), "
                                   "--source NAME picks a known log shape (llmtrafficlens "
                                   "list-sources)\n")

    def test_bad_rows_are_skipped_counted_and_located(self):
        good = json.dumps({"messages": [{"role": "user", "content": "hello there"}]})
        text = csv_text(["request_json", "status_code"], [
            [good, "200"], ["{broken", "200"], [json.dumps({"model": "m"}), "200"],
            [good, "503"], [good, "200"]])
        text += '"{}"garbage,200\r\n'
        p = self.write("bad.csv", text)
        r = self.profile(p)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        c = rep["counts"]
        self.assertEqual(c["requests"], 2)
        self.assertEqual(c["filtered_status"], 1)
        self.assertEqual(c["skipped"], 3)
        by = c["skipped_by_reason"]
        self.assertEqual(by["invalid JSON in request_json"]["first_lines"], [3])
        self.assertEqual(by["missing messages"]["first_lines"], [4])
        self.assertEqual(by["text after a closing quote in a CSV field"]["first_lines"], [7])
        self.assertIn(f"{p}:3: invalid JSON in request_json (row skipped)", r.stderr)

    def test_salt_file_created_private_and_never_printed(self):
        p = self.write("one.jsonl", json.dumps({"messages": [{"role": "user", "content": "x"}]}) + "\n")
        r = env.run(["profile", p, "-o", os.path.join(self.dir, "r")], cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        salt = os.path.join(self.dir, ".ltl-salt")
        mode = os.stat(salt).st_mode
        self.assertEqual(stat.S_IMODE(mode), 0o600)
        key = slurp(salt).strip()
        self.assertEqual(len(key), 32)
        for text in (r.stdout, r.stderr, slurp(os.path.join(self.dir, "r.json"))):
            self.assertNotIn(key, text)
        os.chmod(salt, 0o666)
        r = env.run(["profile", p, "-o", os.path.join(self.dir, "r")], cwd=self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("writable by group or others", r.stderr)
        self.assertNotIn(key, r.stderr)

    def canary_log(self):
        c = CANARY
        tools = [{"type": "function", "function": {
            "name": f"tool_{c}", "description": f"desc {c}",
            "parameters": {"type": "object", "properties": {f"p_{c}": {"type": "string",
                                                                       "description": c}}}}}]
        rows = []
        for i in range(30):
            body = {
                "model": "glm-4.5", "user": f"user-{c}", "prompt_cache_key": f"key-{c}-{i % 3}",
                "metadata": {"session_id": f"s-{c}", "user_id": f"user_{c}"},
                "messages": [
                    {"role": "system", "content": f"system {c} " * 5},
                    {"role": "user", "name": f"n_{c}", "content": [
                        {"type": "text", "text": f"question {c} {i}"},
                        {"type": "image_url", "image_url": {"url": f"https://{c}.example/img.png"}}]},
                    {"role": "assistant", "content": f"answer {c}", "reasoning_content": c,
                     "tool_calls": [{"id": f"call_{c}", "type": "function",
                                     "function": {"name": f"tool_{c}", "arguments": json.dumps({"a": c})}}]},
                    {"role": "tool", "tool_call_id": f"call_{c}", "content": f"result {c}"},
                    {"role": "user", "content": f"more {c} " * (i + 1)}],
                "tools": tools}
            if i == 5:
                body["messages"][1]["content"][0]["text"] += f" ... (litellm_truncated skipped 9 chars) ... {c}"
            response = {"choices": [{"message": {"role": "assistant", "content": f"reply {c}"}}],
                        "usage": {"prompt_tokens": 100 + i, "completion_tokens": 5,
                                  "prompt_tokens_details": {"cached_tokens": 64}}}
            rows.append([f"2025-07-24 10:{i:02d}:00", json.dumps(body),
                         json.dumps(response) if i % 2 else f"not json {c}", "200",
                         f"sess-{c}", f"extra {c}"])
        rows.append([f"2025-07-24 11:00:00", "{" + c, "", "200", "", ""])  # invalid JSON
        rows.append([f"2025-07-24 11:00:01", json.dumps({"prompt": c}), "", "200", "", ""])
        rows.append([f"not a time {c}", json.dumps({"messages": [{"role": "user", "content": c}]}),
                     "", "200", "", ""])
        return csv_text(["timestamp", "request_json", "response_json", "status_code",
                         "x-session-id", "note"], rows)

    def assert_no_canary_anywhere(self, result):
        self.assertNotIn(CANARY, result.stdout)
        self.assertNotIn(CANARY, result.stderr)
        for name in os.listdir(self.dir):
            path = os.path.join(self.dir, name)
            if name.startswith("log") or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                self.assertNotIn(CANARY.encode(), f.read(), name)

    def test_canary_in_every_field_never_reaches_any_output(self):
        p = self.write("log.csv", self.canary_log())
        for tmpl in ("auto", "tools-first", "tools-in-system", "tools-in-first-user", "anthropic",
                     "no-tools", "tools-before-last-user", "system-in-last-user", "harmony"):
            r = self.profile(p, "--template", tmpl, out="r-" + tmpl)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assert_no_canary_anywhere(r)
            self.assertEqual(self.report("r-" + tmpl)["counts"]["skipped"], 3)
        # JSON lines with an Anthropic body and a wrapper, plus a broken line.
        c = CANARY
        body = {"model": "claude-x", "system": [{"type": "text", "text": c, "cache_control": {"type": "ephemeral"}}],
                "metadata": {"user_id": f"user_{'a' * 64}_account__session_{c}"},
                "tools": [{"name": c, "description": c, "input_schema": {"type": "object"}}],
                "messages": [{"role": "user", "content": [{"type": "text", "text": c},
                                                          {"type": "document", "source": {"type": "text", "data": c}}]},
                             {"role": "assistant", "content": [{"type": "thinking", "thinking": c, "signature": c},
                                                               {"type": "tool_use", "id": c, "name": c, "input": {c: c}}]},
                             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": c, "content": c}]}]}
        lines = [json.dumps({"request": {"body": body, "headers": {"x-session-id": c}}, "created_at": 1753351200}),
                 json.dumps(body), "{" + c, json.dumps({"request_json": {"model": c}})]
        p = self.write("log.jsonl", "\n".join(lines) + "\n")
        r = self.profile(p, out="rj")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.report("rj")["counts"]["requests"], 2)
        self.assert_no_canary_anywhere(r)

    def conversation_log(self, turns, seed):
        """One conversation resending its history every turn; returns (csv, shared lower bounds)."""
        rng = random.Random(seed)
        words = lambda n: " ".join("".join(rng.choice(string.ascii_lowercase) for _ in range(6))
                                   for _ in range(n))
        messages = [{"role": "system", "content": words(40)}, {"role": "user", "content": words(30)}]
        rows, bounds = [], []
        for t in range(turns):
            rows.append([str(1753351200 + 10 * t), json.dumps({"messages": [dict(m) for m in messages]})])
            if t > 0:
                # The previous request's messages are a prefix of this one: at least their
                # contents' code points are shared.
                shared = sum(len(m["content"]) for m in prev)
                bounds.append(max(0, shared // 64 - 1))
            prev = [dict(m) for m in messages]
            messages.append({"role": "assistant", "content": words(rng.randint(5, 60))})
            messages.append({"role": "user", "content": words(rng.randint(5, 60))})
        return csv_text(["ts", "request_json"], rows), bounds

    def test_resent_history_hits_at_least_the_shared_blocks(self):
        text, bounds = self.conversation_log(12, seed=3)
        p = self.write("conv.csv", text)
        r = self.profile(p, "--warmup", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertGreaterEqual(rep["cold_ceiling"]["hit_tokens"], 16 * sum(bounds))
        self.assertGreater(sum(bounds), 50)

    def test_unrelated_prompts_share_nothing(self):
        rng = random.Random(11)
        rows = []
        for i in range(40):
            s = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(10, 400)))
            rows.append([json.dumps({"messages": [{"role": "user", "content": s}]})])
        p = self.write("unrelated.csv", csv_text(["request_json"], rows))
        r = self.profile(p, "--warmup", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report()
        self.assertEqual(rep["cold_ceiling"]["hit_tokens"], 0)
        self.assertGreater(rep["cold_ceiling"]["measured_tokens"], 1000)

    def test_two_salts_give_identical_reports(self):
        text, _ = self.conversation_log(8, seed=5)
        p = self.write("conv.csv", text)
        a = self.profile(p, out="a", salt=os.path.join(self.dir, "salt-a"))
        b = self.profile(p, out="b", salt=os.path.join(self.dir, "salt-b"))
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(b.returncode, 0, b.stderr)
        self.assertNotEqual(slurp(os.path.join(self.dir, "salt-a")),
                            slurp(os.path.join(self.dir, "salt-b")))
        ra, rb = self.report("a"), self.report("b")
        self.assertEqual(ra["ceiling"], rb["ceiling"])
        self.assertEqual(ra["curve"], rb["curve"])
        self.assertEqual(a.stdout.replace("a.json", "b.json").replace("a.html", "b.html"),
                         b.stdout)

    def test_example_log_profiles(self):
        p = os.path.join(env.SOURCE_DIR, "examples", "gateway.csv")
        r = env.run(["profile", p, "-o", os.path.join(self.dir, "ex"), "--salt-file", self.salt])
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = self.report("ex")
        self.assertEqual(rep["counts"]["skipped"], 0)
        self.assertGreater(rep["counts"]["requests"], 250)
        g = rep["gateway"]
        self.assertGreater(g["session_identifiers"]["share"], 0)
        self.assertLess(g["session_identifiers"]["share"], 0.5)
        self.assertGreater(g["tool_changes"]["conversations"], 0)
        self.assertEqual(g["truncated_bodies"]["requests"], 1)
        self.assertIn("session identifiers", r.stdout)


if __name__ == "__main__":
    unittest.main()
