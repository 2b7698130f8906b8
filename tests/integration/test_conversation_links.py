"""Conversation inference without session ids (docs/SEMANTICS.md "Sessions and conversations"): a
request joins an earlier conversation only when its message list extends that request's whole
message list by at least one assistant turn, never on equal prompts. Checked through the bailian
export's chat_id / parent_chat_id / turn and profile's conversation count, against links worked out
by hand for each request of a small log."""
import csv
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import run, tempdir  # noqa: E402


def user(text):
    return {"role": "user", "content": text}


def assistant(text):
    return {"role": "assistant", "content": text}


SYSTEM = {"role": "system", "content": "You review pull requests. " * 20}
TASK = user("Review the attached diff for style problems. " * 10)
CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]}


def anthropic_text(text, marked):
    block = {"type": "text", "text": text}
    if marked:
        block["cache_control"] = {"type": "ephemeral"}
    return {"role": "user", "content": [block]}


# (body, the 0-based index of the earlier request it continues, or None for a new conversation)
REQUESTS = [
    ({"messages": [user("hi")]}, None),
    ({"messages": [user("hi")]}, None),  # equal prompt: a conversation of its own
    ({"messages": [user("hi"), assistant("Hello! How can I help?"), user("how are you")]}, 1),
    ({"messages": [SYSTEM, TASK]}, None),
    ({"messages": [SYSTEM, TASK]}, None),  # a retry or a second user: still not one conversation
    ({"messages": [SYSTEM, TASK]}, None),
    ({"messages": [SYSTEM, TASK, CALL, {"role": "tool", "tool_call_id": "call_1",
                                        "content": "diff text"}]}, 5),  # a tool turn joins
    # The same first message but a different answer path: extends request 5 too, not request 6.
    ({"messages": [SYSTEM, TASK, assistant("Which diff?"), user("the one above")]}, 5),
    # Anthropic body: the cache_control marker moves to the newest block; the history still links.
    ({"system": "You are Claude.", "messages": [anthropic_text("Summarize this file. " * 30, True)]},
     None),
    ({"system": "You are Claude.", "messages": [
        anthropic_text("Summarize this file. " * 30, False),
        {"role": "assistant", "content": [{"type": "text", "text": "It parses logs."}]},
        anthropic_text("And the tests?", True)]}, 8),
    # Extends request 9, whose own predecessor is request 8: the third turn of that conversation.
    ({"system": "You are Claude.", "messages": [
        anthropic_text("Summarize this file. " * 30, False),
        {"role": "assistant", "content": [{"type": "text", "text": "It parses logs."}]},
        anthropic_text("And the tests?", False),
        {"role": "assistant", "content": [{"type": "text", "text": "They replay traces."}]},
        anthropic_text("Thanks", True)]}, 9),
    # A different system prompt with the same history is another conversation.
    ({"system": "You are someone else.", "messages": [
        anthropic_text("Summarize this file. " * 30, False),
        {"role": "assistant", "content": [{"type": "text", "text": "It parses logs."}]},
        anthropic_text("And the tests?", True)]}, None),
]


def expected():
    """parent_chat_id and turn of every request (chat_id = index: the log is in time order); the
    export links each request to the latest earlier one of its conversation and numbers turns."""
    conv, parent, turn, last, count = [], [], [], {}, {}
    for i, (_, joins) in enumerate(REQUESTS):
        conv.append(i if joins is None else conv[joins])
        parent.append(last.get(conv[i], -1))
        count[conv[i]] = count.get(conv[i], 0) + 1
        turn.append(count[conv[i]])
        last[conv[i]] = i
    return parent, turn, len(set(conv))


def main():
    d = tempdir()
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["timestamp", "request_json", "response_json", "model_name", "status_code"])
    for i, (body, _) in enumerate(REQUESTS):
        body = dict(body, model="gpt-4o")
        response = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
        w.writerow([1753340000 + 10 * i, json.dumps(body), json.dumps(response), "gpt-4o", 200])
    log = os.path.join(d, "log.csv")
    with open(log, "w", newline="") as f:
        f.write(buf.getvalue())

    out = os.path.join(d, "trace.jsonl")
    p = run(["export", log, "--to", "bailian", "-o", out, "--salt-file", os.path.join(d, "salt")])
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in open(out)]
    assert len(rows) == len(REQUESTS), rows
    want_parent, want_turn, want_convs = expected()
    assert [r["chat_id"] for r in rows] == list(range(len(REQUESTS)))
    got = [(r["parent_chat_id"], r["turn"]) for r in rows]
    assert got == list(zip(want_parent, want_turn)), (got, list(zip(want_parent, want_turn)))
    assert f"{want_convs:,} conversations" in p.stdout, p.stdout

    rep_prefix = os.path.join(d, "report")
    p = run(["profile", log, "-o", rep_prefix, "-q", "--salt-file", os.path.join(d, "salt")])
    assert p.returncode == 0, p.stderr
    rep = json.load(open(rep_prefix + ".json"))
    assert rep["distributions"]["conversations"] == want_convs, rep["distributions"]["conversations"]
    print(f"{len(REQUESTS)} requests, {want_convs} conversations, links as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
