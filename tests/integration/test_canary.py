"""Privacy canary: a marker planted in every input field of CSV and JSONL gateway logs (OpenAI and
Anthropic bodies, responses, headers, session ids, metadata, tool definitions and calls, attachment
data, unknown columns, bad rows) must not appear in any output file, stdout or stderr, nor in the
error messages of failing runs; the cache-busters section is exercised with every cause. The model name is the one field reports print by design, so its
canary is a different marker, checked to come out only as the (sanitized) label. The salt file's
content must not appear anywhere either."""
import base64
import json
import os
import shutil
import unittest

import ltl_test_env as env

CANARY = "CnRy7q1Zx"  # short and distinctive: any copy of a field would carry it


def c(tag):
    return f"{CANARY}-{tag}"


def openai_body(i):
    return {
        "model": c("bodymodel") if i == 0 else "gpt-4o",
        "messages": [
            {"role": "system", "content": c(f"system{i}")},
            {"role": "user", "name": c("name"), "content": [
                {"type": "text", "text": c("usertext")},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64," +
                                                    base64.b64encode(c("img").encode()).decode()}},
                {"type": "input_audio", "input_audio": {"data": c("audio"), "format": "wav"}},
                {"type": c("unknownpart"), c("unknownkey"): c("unknownvalue")}]},
            {"role": "assistant", "content": c("assistant"), "tool_calls": [
                {"id": c("callid"), "type": "function",
                 "function": {"name": c("fname"), "arguments": json.dumps({"q": c("args")})}}]},
            {"role": "tool", "tool_call_id": c("callid2"), "content": c("toolresult")},
            {"role": "user", "content": c(f"turn{i}")}],
        "tools": [{"type": "function", "function": {
            "name": c("toolname"), "description": c("tooldesc"),
            "parameters": {"type": "object", "properties": {c("prop"): {"type": "string"}}}}}],
        "user": c("user"),
        "prompt_cache_key": c("cachekey"),
        "metadata": {"session_id": c("metasession")},
        "stream": True,
        c("topkey"): c("topvalue"),
    }


def anthropic_body(i):
    return {
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": c("asystem"), "cache_control": {"type": "ephemeral"}}],
        "tools": [{"name": c("atool"), "description": c("atooldesc"),
                   "input_schema": {"type": "object", "properties": {c("aprop"): {}}}}],
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": c(f"auser{i}")},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": c("aimage")}},
                {"type": "document", "source": {"type": "text", "data": c("adoc")}}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": c("think"), "signature": c("sig")},
                {"type": "redacted_thinking", "data": c("redacted")},
                {"type": "tool_use", "id": c("tuid"), "name": c("tuname"),
                 "input": {"q": c("tuinput")}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c("trid"),
                 "content": [{"type": "text", "text": c("trtext")}], "is_error": True}]}],
        "metadata": {"user_id": f"user_{'ab' * 32}_account__session_{c('ccsession')}"},
    }


def response(i):
    return {"id": c("respid"), "choices": [{"message": {"role": "assistant",
                                                        "content": c(f"answer{i}")}}],
            "usage": {"prompt_tokens": 300 + i, "completion_tokens": 20,
                      "prompt_tokens_details": {"cached_tokens": 100}}}


def csvq(s):
    return '"' + s.replace('"', '""') + '"'


MODEL_MARK = "ModelMk9\x1b[31m"  # the model label, with a terminal escape that must not survive


class Canary(unittest.TestCase):
    def setUp(self):
        self.dir = env.tempdir()
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.out)
        self.salt = os.path.join(self.dir, "salt")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def csv_log(self):
        header = ["request_json", "response_json", "model_name", "status_code", "startTime",
                  "session_id", "x-session-id", "user", "end_user", "api_key", "metadata",
                  "spend", "extra_" + "col", "prompt_tokens", "completion_tokens"]
        rows = [",".join(header)]
        for i in range(6):
            body = anthropic_body(i) if i % 2 else openai_body(i)
            ts = "2025-01-02T03:04:%02dZ" % i if i != 5 else c("timestamp")  # row 5: bad time
            rows.append(",".join([
                csvq(json.dumps(body)), csvq(json.dumps(response(i))), csvq(MODEL_MARK),
                "200" if i != 4 else c("status"), ts, c(f"session{i % 2}"), c("xsession"),
                c("usercol"), c("enduser"), c("apikey"), csvq(json.dumps({"k": c("metacol")})),
                "0.01", c("extra"), "300", "20"]))
        # Bad rows: broken JSON holding the canary, a field-count mismatch, an unterminated quote.
        rows.append(csvq('{"messages": [' + c("brokenjson")) + "," + ",".join([""] * 14))
        rows.append(csvq(json.dumps(openai_body(9))) + "," + c("shortrow"))
        rows.append('"' + c("unterminated") + ',,')
        return self.write("log.csv", "\n".join(rows) + "\n")

    def jsonl_log(self):
        lines = []
        for i in range(6):
            body = anthropic_body(i) if i % 2 else openai_body(i)
            rec = {"timestamp": 1735787045 + i, "model_name": MODEL_MARK, "status_code": 200,
                   "request_json": json.dumps(body) if i % 3 == 0 else body,
                   "response_json": response(i),
                   "headers": {"X-Session-Id": c("hsession"), "Authorization": c("auth"),
                               "x-claude-code-session-id": c("ccheader")},
                   "litellm_session_id": c("litellm"), "user": c("topuser"),
                   c("unknownfield"): [c("nested")]}
            lines.append(json.dumps(rec))
        # Portkey-style nesting and bad lines.
        lines.append(json.dumps({"request": {"headers": {"x-portkey-trace-id": c("portkey")},
                                             "body": json.dumps(openai_body(7))},
                                 "response": {"status": 200, "body": response(7)}}))
        lines.append('{"request_json": "' + c("notjson") + '"}')
        lines.append('{"messages": "' + c("notarray") + '"}')
        lines.append(c("garbage") + " {")
        lines.append(json.dumps({"timestamp": c("badtime"), "messages": [
            {"role": "user", "content": "x"}]}))
        return self.write("log.jsonl", "\n".join(lines) + "\n")

    def outputs(self, r):
        texts = {"stdout": r.stdout, "stderr": r.stderr}
        for root, _, files in os.walk(self.dir):
            for n in files:
                p = os.path.join(root, n)
                if p == self.salt or not p.startswith(self.out):
                    continue
                with open(p, "rb") as f:
                    texts[p] = f.read().decode("utf-8", "replace")
        return texts

    def assert_clean(self, r):
        with open(self.salt) as f:
            salt = f.read().strip()
        self.assertEqual(len(salt), 32)
        for where, text in self.outputs(r).items():
            self.assertNotIn(CANARY, text, where)
            self.assertNotIn(CANARY.lower(), text.lower(), where)
            self.assertNotIn(salt, text.lower(), where)
            self.assertNotIn("\x1b", text, where)  # the model's terminal escape was neutralised
            # Base64 of the image canary would be a copy too.
            self.assertNotIn(base64.b64encode(c("img").encode()).decode()[:12], text, where)

    def profile(self, path, *extra):
        return env.run(["profile", path, "-o", os.path.join(self.out, "report"),
                        "--salt-file", self.salt, *extra], cwd=self.dir)

    def export(self, path):
        """Runs export to both trace formats (when the command exists); returns the runs."""
        if env.run(["export", "--help"]).returncode != 0:
            return []
        return [env.run(["export", path, "--to", to, "-o", os.path.join(self.out, f"trace.{to}"),
                         "--salt-file", self.salt], cwd=self.dir)
                for to in ("mooncake", "bailian")]

    def test_csv_log(self):
        for e in self.export(self.csv_log()):
            self.assertIn(e.returncode, (0, 1), e.stderr)
            self.assert_clean(e)
        r = self.profile(self.csv_log())
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertIn("row skipped", r.stderr)  # the skipped-row warnings were exercised
        with open(os.path.join(self.out, "report.json")) as f:
            rep = json.load(f)
        self.assertGreaterEqual(rep["counts"]["requests"], 4)
        self.assertIn("ModelMk9?[31m", json.dumps(rep))  # the label, sanitized
        self.assert_clean(r)

    def test_jsonl_log(self):
        for e in self.export(self.jsonl_log()):
            self.assertIn(e.returncode, (0, 1), e.stderr)
            self.assert_clean(e)
        r = self.profile(self.jsonl_log())
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertIn("row skipped", r.stderr)
        with open(os.path.join(self.out, "report.json")) as f:
            self.assertGreaterEqual(json.load(f)["counts"]["requests"], 6)
        self.assert_clean(r)

    def busters_log(self):
        """Conversations whose prompts break in every way the cache-busters section names, each
        field holding the canary: a clock in the system prompt, a reordered tool array, dropped
        reasoning, a summarised history, a model switch, a moved cache_control marker."""
        tools = [{"type": "function", "function": {"name": c(f"bt{k}"), "description": c("btd"),
                                                   "parameters": {"type": "object"}}}
                 for k in range(3)]
        rows = ["request_json,model_name,status_code,startTime,x-session-id"]
        for conv in range(3):
            msgs = [{"role": "user", "content": c(f"bu{conv}") + " " + "w " * 80}]
            for turn in range(5):
                system = c("bsys") + " " + "s " * 60 + f" now 12:0{turn}:3{conv} " + c("bsys2")
                body = {"messages": [{"role": "system", "content": system}] + msgs,
                        "tools": tools if turn < 2 else tools[::-1]}
                if turn == 3:  # compaction
                    body["messages"] = [body["messages"][0],
                                        {"role": "user", "content": c("bsummary")}] + msgs[-2:]
                model = "qwen3-32b" if turn < 4 else "llama-3.1-8b"
                msgs = msgs + [{"role": "assistant", "content": c(f"ba{turn}"),
                                "reasoning": c("breason") + " r" * 40,
                                "cache_control": {"type": "ephemeral"}},
                               {"role": "user", "content": c(f"bn{turn}") + " u" * 40}]
                rows.append(",".join([csvq(json.dumps(body)), model, "200",
                                      "2025-01-02T03:%02d:%02dZ" % (conv, turn * 7),
                                      c(f"bsession{conv}")]))
        return self.write("busters.csv", "\n".join(rows) + "\n")

    def test_cache_busters_section(self):
        # The section's positions and causes are a fixed vocabulary: no field reaches it.
        r = self.profile(self.busters_log())
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.out, "report.json")) as f:
            b = json.load(f)["cache_busters"]
        self.assertGreater(b["breaks"], 0)
        self.assertTrue([x for x in b["causes"] if not x["natural"] and x["lost_tokens"] > 0], b)
        with open(os.path.join(self.out, "report.html")) as f:
            self.assertIn('<section id="cache-busters">', f.read())
        self.assertIn("cache busters", r.stdout)
        self.assert_clean(r)

    def test_error_messages(self):
        # Failing runs print one line; none may echo field content.
        log = self.csv_log()
        self.profile(log)  # creates the salt
        runs = [self.profile(log, "--ts-column", "no_such_column"),
                self.profile(self.write("headerless.csv",
                                        csvq(json.dumps(openai_body(1))) + "," + c("x") + "\n")),
                self.profile(self.write("weird.txt", c("plain") + "\n")),
                self.profile(self.write("dup.csv", "request_json,request_json\n" +
                                        csvq(json.dumps(openai_body(1))) + "," + c("dup") + "\n"))]
        for r in runs:
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assert_clean(r)


if __name__ == "__main__":
    unittest.main()
