"""A hand-built Anthropic Messages log (JSONL) for the cache-trace export tests: tools and system
blocks with cache_control, thinking with signature, tool use/result loops, a Task sub-agent, a
streaming + non-streaming pair per turn, a long gap, a context reset, a second session, and a bad
and a failed row. Returns the lines and the calls (bodies, times) the tests check against."""
import json
import random

SESSION_A = "8712b46f-04e1-4c8e-9a61-0f5e7d2c9b10"
SESSION_B = "f99f3001-351a-4b7c-8d2e-112233445566"
T0 = 1764500000.0  # epoch seconds
PROMPT = "Explore the repository and list every file that reads the configuration."


def words(seed, n):
    rng = random.Random(seed)
    vocab = ["cache", "prefix", "block", "token", "café", "naïve", "日本語", "データ", "😀",
             "résumé", "tool", "result", "x=1.5e-7", "Ωmega", "{\"k\": [1, 2]}", "\\path\\to",
             "line\nbreak", "tab\there", "quote\"d", "emoji🚀", "zero\u200bwidth"]
    return " ".join(rng.choice(vocab) for _ in range(n))


def tools():
    return [
        {"name": "Read", "description": words(1, 150),
         "input_schema": {"type": "object", "properties": {
             "path": {"type": "string", "description": words(2, 40)},
             "limit": {"type": "number", "default": 1.0, "minimum": 1e-7, "maximum": 1e22}},
             "required": ["path"]}},
        {"name": "Task", "description": words(3, 120),
         "input_schema": {"type": "object", "properties": {
             "prompt": {"type": "string"}, "subagent_type": {"type": "string"}}},
         "cache_control": {"type": "ephemeral"}},
    ]


def system():
    return [{"type": "text", "text": "You are Claude Code. " + words(4, 200)},
            {"type": "text", "text": words(5, 180), "cache_control": {"type": "ephemeral"}}]


def sub_tools():
    return [{"name": "Read", "description": words(6, 80),
             "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]


def sub_system():
    return [{"type": "text", "text": "You are a file search specialist. " + words(7, 120)}]


def with_cache_control_on_last(messages):
    """Claude Code sends content as blocks and marks the last block of the last message, so between
    turns only the cache_control key moves."""
    out = json.loads(json.dumps(messages))
    for m in out:
        if isinstance(m["content"], str):
            m["content"] = [{"type": "text", "text": m["content"]}]
        for b in m["content"]:
            b.pop("cache_control", None)
    out[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return out


def response(content, stop, usage_in, out_tokens, cache_read=0, cache_write=0):
    return {"id": "msg_x", "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
            "content": content, "stop_reason": stop,
            "usage": {"input_tokens": usage_in, "cache_read_input_tokens": cache_read,
                      "cache_creation_input_tokens": cache_write, "output_tokens": out_tokens}}


def build(pad=0):
    """Returns (lines, calls); calls are dicts with the body, response, time and timing. `pad`
    appends that many " ok" (one cl100k token each) to the first user message, so a test can make
    the first request's serialization end exactly at a block boundary."""
    calls = []
    user_id = f"user_{'ab' * 32}_account__session_{SESSION_A}"
    model = "claude-sonnet-4-20250514"

    def parent_call(t, messages, resp, stream, dur_ms, ttft_ms, session=user_id, tl=None, sy=None):
        body = {"model": model, "max_tokens": 32000,
                "tools": tl if tl is not None else tools(),
                "system": sy if sy is not None else system(),
                "messages": with_cache_control_on_last(messages),
                "metadata": {"user_id": session}, "stream": stream}
        calls.append({"t": t, "body": body, "response": resp, "duration_ms": dur_ms,
                      "ttft_ms": ttft_ms})

    thinking = {"type": "thinking", "thinking": words(8, 30), "signature": "sig-" + "Q" * 40}
    task_use = {"type": "tool_use", "id": "toolu_1", "name": "Task",
                "input": {"description": "explore", "prompt": PROMPT, "subagent_type": "Explore"}}
    # Turn 1: a streaming and a non-streaming call with the same messages.
    m1 = [{"role": "user", "content": "Where is the configuration read? " + words(9, 60) +
           " ok" * pad}]
    r1 = response([thinking, {"type": "text", "text": "Let me look."}, task_use], "tool_use",
                  40, 120, cache_read=9000, cache_write=300)
    parent_call(T0, m1, r1, True, 4200, 850)
    parent_call(T0 + 0.5, m1, r1, False, 3900, None)
    # The sub-agent: its own tools and system, the Task prompt as first user message.
    sub_m1 = [{"role": "user", "content": PROMPT}]
    read_use = {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"path": "a.cfg"}}
    sub_r1 = response([{"type": "text", "text": "Reading."}, read_use], "tool_use", 10, 30,
                      cache_read=2000)
    sub_body = lambda msgs, stream: {  # noqa: E731
        "model": "claude-haiku-4-5-20251001", "max_tokens": 8000, "tools": sub_tools(),
        "system": sub_system(), "messages": with_cache_control_on_last(msgs),
        "metadata": {"user_id": user_id}, "stream": stream}
    calls.append({"t": T0 + 5.0, "body": sub_body(sub_m1, True), "response": sub_r1,
                  "duration_ms": 1500, "ttft_ms": 300})
    sub_m2 = sub_m1 + [{"role": "assistant", "content": [{"type": "text", "text": "Reading."},
                                                          read_use]},
                       {"role": "user", "content": [{"type": "tool_result",
                                                     "tool_use_id": "toolu_2",
                                                     "content": words(10, 300)}]}]
    sub_r2 = response([{"type": "text", "text": "Found a.cfg."}], "end_turn", 12, 40,
                      cache_read=2100)
    calls.append({"t": T0 + 7.0, "body": sub_body(sub_m2, True), "response": sub_r2,
                  "duration_ms": 2000, "ttft_ms": 400})
    # Turn 2: the tool result comes back; cache_control moves to the new last block.
    m2 = m1 + [{"role": "assistant", "content": [thinking, {"type": "text", "text": "Let me look."},
                                                 task_use]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                             "content": "Found a.cfg. " + words(11, 1500)}]}]
    r2 = response([{"type": "text", "text": "It is read in a.cfg. " + words(12, 20)}],
                  "end_turn", 30, 80, cache_read=9500, cache_write=800)
    parent_call(T0 + 12.0, m2, r2, True, 3000, 700)
    parent_call(T0 + 12.4, m2, r2, False, 2800, None)
    # Turn 3, after a two-hour gap: the user types again.
    m3 = m2 + [{"role": "assistant", "content": [{"type": "text",
                                                  "text": "It is read in a.cfg. " + words(12, 20)}]},
               {"role": "user", "content": "Thanks. " + words(13, 50)}]
    r3 = response([{"type": "text", "text": "You are welcome."}], "end_turn", 20, 10,
                  cache_read=10000)
    parent_call(T0 + 7200.0, m3, r3, True, 2000, 500)
    # Turn 4: the context is compacted (a major reset), with an image in the summary message.
    m4 = [{"role": "user", "content": [
        {"type": "text", "text": "Summary of the conversation so far: " + words(14, 40)},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}]}]
    r4 = response([{"type": "text", "text": "Continuing."}], "end_turn", 500, 15)
    parent_call(T0 + 7260.0, m4, r4, True, 1000, 200)

    # Session B: two plain turns, no sub-agents.
    user_b = json.dumps({"device_id": "d", "account_uuid": "", "session_id": SESSION_B})
    b1 = [{"role": "user", "content": "Explain prefix caching. " + words(15, 80)}]
    rb1 = response([{"type": "text", "text": words(16, 30)}], "end_turn", 2000, 60)
    parent_call(T0 + 100.0, b1, rb1, False, 5000, None, session=user_b)
    b2 = b1 + [{"role": "assistant", "content": [{"type": "text", "text": words(16, 30)}]},
               {"role": "user", "content": "And eviction? " + words(17, 40)}]
    rb2 = response([{"type": "text", "text": words(18, 30)}], "end_turn", 2200, 70)
    parent_call(T0 + 130.0, b2, rb2, False, 4000, None, session=user_b)

    lines = []
    for c in calls:
        rec = {"timestamp": c["t"], "request": c["body"], "response": c["response"],
               "status_code": 200, "duration_ms": c["duration_ms"]}
        if c["ttft_ms"] is not None:
            rec["ttft_ms"] = c["ttft_ms"]
        lines.append(json.dumps(rec, ensure_ascii=False))
    lines.insert(3, "{not json")
    failed = {"timestamp": T0 + 1.0, "request": calls[0]["body"], "status_code": 529,
              "response": {"type": "error"}}
    lines.insert(5, json.dumps(failed))
    return lines, calls
