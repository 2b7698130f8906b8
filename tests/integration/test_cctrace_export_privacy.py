"""Privacy canary for `export --to cctrace`: a marker planted in every text-bearing field of an
Anthropic log (tools, system, user and assistant text, thinking and its signature, tool calls and
results, attachments, Task prompts, unknown keys and values, headers, the response, a bad row)
must not appear in any exported file, in stdout or in stderr. The cache-trace format carries the
model name (when it has the shape of a model identifier; free text becomes "other") and the first 12
characters of the session id by design; neither holds the marker here. A stop_reason outside
Anthropic's documented set is written as "other" (issue 17, item 6).
Skips when the cl100k_base vocabulary is not installed."""
import json
import os
import shutil

from ltl_test_env import DATA_DIR, run, skip, tempdir

CANARY = "CnRy7q1Zx"


def c(tag):
    return f"{CANARY}-{tag}"


def body(i, stream):
    prompt = c("taskprompt")
    msgs = [{"role": "user", "content": [{"type": "text", "text": c(f"user{i}")},
                                         {"type": "image", "source": {"type": "base64",
                                                                      "media_type": "image/png",
                                                                      "data": c("img")}}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": c("think"), "signature": c("sig")},
                {"type": "redacted_thinking", "data": c("redacted")},
                {"type": c("unknowntype"), c("k"): c("v")},
                {"type": "tool_use", "id": c("tuid"), "name": "Task",
                 "input": {"prompt": prompt, "subagent_type": c("subtype")}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": c("trid"),
                                          "content": [{"type": "text", "text": c("trtext")}],
                                          "cache_control": {"type": "ephemeral"}}]}]
    if i == 2:  # the sub-agent: the Task prompt is its first user message
        msgs = [{"role": "user", "content": prompt}]
    model = "claude-sonnet-4-5" if i != 1 else c("free text in the model field")
    return {"model": model, "max_tokens": 100, "stream": stream,
            "system": [{"type": "text", "text": c("system"), "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": c("toolname"), "description": c("tooldesc"),
                       "input_schema": {"type": "object", "properties": {c("prop"): {}}}}],
            "messages": msgs, c("topkey"): c("topvalue"),
            "metadata": {"user_id": "user_" + "ab" * 32 + "_account__session_" +
                         "0123456789ab-cdef-4000-8000-000000000000"}}


def main():
    if not os.path.exists(os.path.join(DATA_DIR, "cl100k_base.tiktoken")):
        skip(f"cl100k_base vocabulary not installed: run scripts/fetch-vocab.sh {DATA_DIR}")
    d = tempdir()
    try:
        lines = []
        for i, stream in enumerate([True, False, True]):
            resp = {"id": c("respid"), "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": c(f"answer{i}")},
                                {"type": "tool_use", "id": c("rtu"), "name": c("rtool"),
                                 "input": {"q": c("rinput")}}],
                    "stop_reason": "end_turn" if i != 1 else c("stop"), "usage": {"input_tokens": 10, "output_tokens": 5}}
            lines.append(json.dumps({"timestamp": 1764500000 + i, "request": body(i, stream),
                                     "response": resp, "headers": {"x-api-key": c("apikey")},
                                     c("col"): c("colvalue"), "duration_ms": 100}))
        lines.append('{"request": {"messages": [' + c("brokenjson"))
        src = os.path.join(d, "log.jsonl")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        out = os.path.join(d, "traces")
        p = run(["export", src, "--to", "cctrace", "-o", out, "--include-subagents",
                 "--data-dir", DATA_DIR])
        assert p.returncode == 0, p.stderr
        assert CANARY not in p.stdout and CANARY not in p.stderr, (p.stdout, p.stderr)
        names = os.listdir(out)
        assert names == ["0123456789ab.json"], names
        with open(os.path.join(out, names[0]), encoding="utf-8") as f:
            text = f.read()
        assert CANARY not in text, text
        doc = json.loads(text)
        assert doc["requests"][-1]["type"] == "subagent"
        assert "other" in doc["requests"][1]["input_types"], doc["requests"][1]
        # A sub-agent type that is not one of Claude Code's built-in ones is written as "custom",
        # an unknown content block type as "other".
        assert doc["requests"][-1]["subagent_type"] == "custom"
        assert doc["requests"][1]["stop"] == "other", doc["requests"][1]
        assert doc["requests"][1]["model"] == "other", doc["requests"][1]
        assert doc["requests"][0]["model"] == "claude-sonnet-4-5", doc["requests"][0]
        print("ok")
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
