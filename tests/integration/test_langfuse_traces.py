"""Langfuse observations (issue 35, item 20): a trace groups the model calls of ONE agent turn (a
tool loop, a title or summary call beside it), not a conversation; sessions live on traces
(Trace.sessionId), which the observations export does not carry. So traceId is not a session
identifier: the session share is 0 and conversations come from the resent history, across traces.

The generated export: conversations of several user turns; each user turn is one trace holding a
tool loop (each call resends the history and the previous call's tool turn) and a title call with
a prompt of its own. The truth is the generator's: a conversation is one user's resent history
(all its tool-loop calls), and every title call is a conversation of its own."""
import datetime
import json
import os
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import run, tempdir  # noqa: E402

SYSTEM = "You are a support agent for Example Cloud. Answer from the runbooks. " * 6
TITLE = "Write a five-word title for this conversation."
T0 = 1767225600.0


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


def observation(trace, t, messages):
    return {"id": str(uuid.uuid4()), "traceId": trace, "type": "GENERATION", "name": "chat",
            "startTime": iso(t), "model": "gpt-4o", "level": "DEFAULT",
            "input": messages}


def export(conversations=7, user_turns=3, tool_calls=2):
    """(JSONL lines in time order, generations, true conversation count)."""
    rows = []
    truth = 0
    for c in range(conversations):
        truth += 1  # the tool loop's conversation
        msgs = [{"role": "system", "content": SYSTEM}]
        t = T0 + c * 600.0
        for u in range(user_turns):
            trace = str(uuid.uuid4())  # one trace per user turn (one agent run)
            rows.append({"type": "SPAN", "id": str(uuid.uuid4()), "traceId": trace,
                         "name": "agent-run", "startTime": iso(t), "input": "q"})
            msgs = msgs + [{"role": "user",
                            "content": f"Customer {c} asks question {u}: why is job {c * 31 + u} "
                                       "stuck in the queue? " * 4}]
            for k in range(tool_calls + 1):
                rows.append(observation(trace, t, msgs))
                t += 3.0
                if k < tool_calls:
                    cid = f"call_{c}_{u}_{k}"
                    msgs = msgs + [
                        {"role": "assistant", "content": None, "tool_calls": [
                            {"id": cid, "type": "function", "function": {
                                "name": "search_runbooks",
                                "arguments": json.dumps({"q": f"job {c} {u} {k}"})}}]},
                        {"role": "tool", "tool_call_id": cid,
                         "content": f"runbook section {c}.{u}.{k} " * 12}]
            # The final answer of this turn, resent by the next turn's first call.
            msgs = msgs + [{"role": "assistant", "content": f"Answer {c}.{u}: restart it. " * 5}]
            # A title call in the same trace: its own prompt, its own conversation.
            rows.append(observation(trace, t, [
                {"role": "system", "content": TITLE},
                {"role": "user", "content": f"Customer {c} turn {u}: job {c * 31 + u} stuck"}]))
            truth += 1
            t += 60.0
    rows.sort(key=lambda r: r["startTime"])
    gens = sum(1 for r in rows if r["type"] == "GENERATION")
    return "".join(json.dumps(r) + "\n" for r in rows), gens, truth


class LangfuseTraces(unittest.TestCase):
    def test_trace_id_is_no_session(self):
        d = tempdir()
        text, gens, truth = export()
        path = os.path.join(d, "observations.jsonl")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(d, "r")
        r = run(["profile", path, "-o", out, "-q", "--salt-file", os.path.join(d, "salt")])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out + ".json") as f:
            rep = json.load(f)
        self.assertEqual(rep["input"]["detection"]["source"], "langfuse")
        self.assertEqual(rep["counts"]["requests"], gens)
        # No observation carries a session: traceId is one agent turn, not a session.
        self.assertEqual(rep["session_ids"]["share"], 0.0, rep["session_ids"])
        self.assertEqual(rep["gateway"]["session_identifiers"]["requests"], 0)
        # 7 conversations of 3 user turns (one trace each) + 21 title calls.
        self.assertEqual(truth, 7 + 7 * 3)
        self.assertEqual(rep["gateway"]["conversations"]["total"], truth, rep["gateway"])
        self.assertEqual(rep["distributions"]["conversations"], truth)


if __name__ == "__main__":
    unittest.main()
