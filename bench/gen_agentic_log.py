#!/usr/bin/env python3
"""Generates an agentic gateway log for the chat-template speed bench (bench/run-chat-template-
speed.sh): JSON lines of OpenAI chat bodies with "timestamp" and "model", in time order, of about
--mb megabytes. Constant memory: a pool of concurrently active conversations, each a coding or
support agent that runs tool loops (1-2 calls per step, a quarter parallel), resends its whole
history on every request, sometimes carries reasoning_content, and sometimes changes its tool set;
system prompts and tool sets are shared across conversations (cross-conversation reuse).
Deterministic for a given --seed. Plain python3 (no packages).

Usage: gen_agentic_log.py OUT.jsonl [--mb 1024] [--seed 11] [--active 48]
"""
import argparse
import json
import os
import random

WORDS = ("the of and to in is it that for on with as was at by this from are be or an have not "
         "file line error test build cache block token prefix model request tool call result "
         "status value check read write open close list find path user agent plan step done "
         "schema json parse render hash route worker queue memory latency budget").split()
CODE = ("def", "return", "if", "else:", "for", "in", "import", "class", "self.", "None", "=", "==",
        "(", ")", "[", "]", "{", "}", ":", "+", "-", "0", "1", "42", "x", "y", "name", "value")
SYSTEMS = [
    "You are a coding agent working in a repository. Follow the user's instructions precisely, "
    "use the tools to read and change files, run the tests, and explain what you did. " * 6,
    "You are a support assistant for a cloud provider. Answer briefly and cite the documentation "
    "page you used. Never reveal internal identifiers or credentials. " * 6,
    "You are a data analyst. Use SQL through the query tool, check row counts before you "
    "conclude, and show the query you ran. " * 6,
]


def tool(name, params):
    return {"type": "function", "function": {
        "name": name, "description": f"{name.replace('_', ' ')} in the workspace; returns text",
        "parameters": {"type": "object", "properties": {p: {"type": "string", "description": p}
                                                        for p in params}, "required": params[:1]}}}


TOOLSETS = [
    [tool("read_file", ["path"]), tool("write_file", ["path", "content"]), tool("run", ["command"]),
     tool("grep", ["pattern", "path"])],
    [tool("search_docs", ["query"]), tool("open_ticket", ["title", "body"])],
    [tool("query", ["sql"]), tool("list_tables", ["schema"]), tool("describe", ["table"])],
]


def words(rng, lo, hi):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def code(rng, lo, hi):
    lines = []
    for _ in range(rng.randint(lo, hi)):
        lines.append("    " * rng.randint(0, 3) + " ".join(rng.choice(CODE) for _ in range(rng.randint(3, 12))))
    return "\n".join(lines)


def dump(x):
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


class Conversation:
    """One agent session: next() returns the messages (serialized once each) of its next request,
    or None when it has ended."""

    def __init__(self, rng, cid):
        self.rng = rng
        kind = cid % len(SYSTEMS)
        self.toolset = kind
        self.msgs = [dump({"role": "system", "content": SYSTEMS[kind]})]
        self.turns = rng.randint(1, 4)
        self.steps = 0  # tool steps left in the current user turn
        self.turn = 0
        self.pending_user = True

    def _assistant_calls(self):
        rng = self.rng
        tools = TOOLSETS[self.toolset]
        n = 1 if rng.random() < 0.75 else 2
        calls = []
        for _ in range(n):
            t = rng.choice(tools)["function"]
            args = {p: words(rng, 1, 4) for p in t["parameters"]["properties"]}
            calls.append({"id": "call_%08d" % rng.randint(0, 10 ** 8), "type": "function",
                          "function": {"name": t["name"], "arguments": dump(args)}})
        a = {"role": "assistant", "content": rng.choice([None, "", words(rng, 2, 12)]), "tool_calls": calls}
        if rng.random() < 0.6:
            a["reasoning_content"] = words(rng, 10, 60)
        self.msgs.append(dump(a))
        for c in calls:
            result = code(rng, 5, 60) if rng.random() < 0.5 else words(rng, 20, 300)
            self.msgs.append(dump({"role": "tool", "tool_call_id": c["id"], "content": result}))

    def next(self):
        rng = self.rng
        if self.pending_user:
            if self.turn == self.turns:
                return None
            self.msgs.append(dump({"role": "user", "content": words(rng, 5, 60)}))
            self.pending_user = False
            self.steps = rng.randint(0, 6)
            return self.msgs
        if self.steps > 0:
            self.steps -= 1
            self._assistant_calls()
            return self.msgs
        a = {"role": "assistant", "content": words(rng, 10, 80)}
        if rng.random() < 0.5:
            a["reasoning_content"] = words(rng, 5, 30)
        self.msgs.append(dump(a))
        self.turn += 1
        self.pending_user = True
        if rng.random() < 0.15:  # the tool set changes mid-conversation
            self.toolset = rng.randrange(len(TOOLSETS))
        return self.next()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=1024)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--active", type=int, default=48)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    limit = int(a.mb * 1_000_000)
    tools_json = [dump(t) for t in TOOLSETS]
    cid = 0
    pool = []
    for _ in range(a.active):
        pool.append(Conversation(rng, cid))
        cid += 1
    t = 1718000000.0
    written = 0
    with open(a.out + ".tmp", "w", encoding="utf-8") as f:
        while written < limit:
            i = rng.randrange(len(pool))
            msgs = pool[i].next()
            if msgs is None:
                pool[i] = Conversation(rng, cid)
                cid += 1
                continue
            t += rng.random() * 0.5
            line = ('{"timestamp":%.3f,"model":"Qwen/Qwen3-8B","messages":[%s],"tools":%s}\n'
                    % (t, ",".join(msgs), tools_json[pool[i].toolset]))
            f.write(line)
            written += len(line.encode("utf-8"))
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
