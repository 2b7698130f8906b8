"""Every registered gateway source, read with no flag: a realistic sample in the tool's own shape
(multi-turn tool-calling conversations resending their history, failed requests, client session
ids mixed with the filler ids some tools write on every request) must give exactly the replayable
request count, the failed count, the share of real session ids and the conversation count that the
workload was built with, and `export` must give the same request set.

The expected numbers come from the workload itself (independent of the reader): each conversation
has its own first user message, so conversations without a session id are still told apart."""
import csv
import io
import json
import os
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from ltl_test_env import run, tempdir  # noqa: E402

SYSTEM = "You are a coding agent. Follow the repository's conventions. " * 8
TOOLS = [{"type": "function", "function": {
    "name": n, "description": f"{n} a file or command " * 6,
    "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}}}}
    for n in ("read_file", "run_shell", "edit_file")]


def workload(n_conv=12, turns=4):
    """Calls in time order: dicts with conv, turn, messages (OpenAI shape, history resent), failed,
    session (a real client id or None), t (epoch seconds)."""
    calls = []
    t0 = 1767225600.0
    for c in range(n_conv):
        msgs = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"Task {c}: fix the failing test number {c * 7} " * 5}]
        real = f"sess-{c:04d}-client" if c % 3 == 0 else None
        for k in range(turns):
            failed = (c + k) % 5 == 4 and k > 0  # some later turns fail; every conv keeps one
            calls.append({"conv": c, "turn": k, "messages": [dict(m) for m in msgs],
                          "failed": failed, "session": real,
                          "t": t0 + c * 97.0 + k * 11.0})
            cid = f"call_{c}_{k}"
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function",
                 "function": {"name": "run_shell", "arguments": json.dumps({"arg": f"make {k}"})}}]})
            msgs.append({"role": "tool", "tool_call_id": cid, "content": f"output {c} {k} " * 9})
    calls.sort(key=lambda x: x["t"])
    return calls


def expected(calls):
    ok = [c for c in calls if not c["failed"]]
    real = sum(1 for c in ok if c["session"])
    return {"requests": len(ok), "failed": len(calls) - len(ok),
            "share": real / len(ok), "conversations": len({c["conv"] for c in ok})}


def iso(t):
    import datetime
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


def pg_time(t):
    import datetime
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S.%f")[:-3]


def body(c):
    return {"model": "gpt-4o", "messages": c["messages"], "tools": TOOLS}


def filler_or_real(c):
    return c["session"] or str(uuid.uuid4())


def otel_parts(messages):
    out, system = [], []
    for m in messages:
        if m["role"] == "system":
            system.append({"type": "text", "content": m["content"]})
        elif m["role"] == "tool":
            out.append({"role": "tool", "parts": [
                {"type": "tool_call_response", "id": m["tool_call_id"], "result": m["content"]}]})
        elif m.get("tool_calls"):
            out.append({"role": "assistant", "parts": [
                {"type": "tool_call", "id": tc["id"], "name": tc["function"]["name"],
                 "arguments": json.loads(tc["function"]["arguments"])} for tc in m["tool_calls"]]})
        else:
            out.append({"role": m["role"], "parts": [{"type": "text", "content": m["content"]}]})
    return out, system


def attr(k, v):
    if isinstance(v, int):
        return {"key": k, "value": {"intValue": str(v)}}
    return {"key": k, "value": {"stringValue": v}}


def otlp_lines(calls, flat):
    lines = []
    for i in range(0, len(calls), 5):  # the file exporter writes one request per batch of spans
        spans = [{"name": "http GET", "startTimeUnixNano": str(int(calls[i]["t"] * 1e9)),
                  "status": {}, "attributes": [attr("http.method", "GET")]}]
        for c in calls[i:i + 5]:
            a = [attr("gen_ai.request.model", "gpt-4o"), attr("gen_ai.usage.input_tokens", 900)]
            if flat:
                a.append(attr("llm.request.type", "chat"))
                for j, m in enumerate(c["messages"]):
                    a.append(attr(f"gen_ai.prompt.{j}.role", m["role"]))
                    a.append(attr(f"gen_ai.prompt.{j}.content", m.get("content") or ""))
                    for q, tc in enumerate(m.get("tool_calls") or []):
                        a.append(attr(f"gen_ai.prompt.{j}.tool_calls.{q}.id", tc["id"]))
                        a.append(attr(f"gen_ai.prompt.{j}.tool_calls.{q}.name", tc["function"]["name"]))
                        a.append(attr(f"gen_ai.prompt.{j}.tool_calls.{q}.arguments",
                                      tc["function"]["arguments"]))
                    if m.get("tool_call_id"):
                        a.append(attr(f"gen_ai.prompt.{j}.tool_call_id", m["tool_call_id"]))
                for j, t in enumerate(TOOLS):
                    f = t["function"]
                    a.append(attr(f"llm.request.functions.{j}.name", f["name"]))
                    a.append(attr(f"llm.request.functions.{j}.description", f["description"]))
                    a.append(attr(f"llm.request.functions.{j}.parameters", json.dumps(f["parameters"])))
                if c["session"]:
                    a.append(attr("traceloop.association.properties.session_id", c["session"]))
            else:
                msgs, system = otel_parts(c["messages"])
                a += [attr("gen_ai.operation.name", "chat"),
                      attr("gen_ai.input.messages", json.dumps(msgs)),
                      attr("gen_ai.system_instructions", json.dumps(system)),
                      attr("gen_ai.tool.definitions", json.dumps(
                          [{"type": "function", **t["function"]} for t in TOOLS]))]
                if c["session"]:
                    a.append(attr("gen_ai.conversation.id", c["session"]))
            spans.append({"name": "chat gpt-4o", "startTimeUnixNano": str(int(c["t"] * 1e9)),
                          "endTimeUnixNano": str(int(c["t"] * 1e9) + 10**9),
                          "status": {"code": 2 if c["failed"] else 1}, "attributes": a})
        lines.append(json.dumps({"resourceSpans": [{"resource": {"attributes": []},
                                                    "scopeSpans": [{"spans": spans}]}]}))
    return "\n".join(lines) + "\n"


def spendlog_row(c):
    return {"request_id": str(uuid.uuid4()), "call_type": "acompletion", "api_key": "hashed",
            "spend": 0.001, "total_tokens": 0, "prompt_tokens": 0, "completion_tokens": 0,
            "startTime": pg_time(c["t"]), "endTime": pg_time(c["t"] + 2), "model": "gpt-4o",
            "metadata": "{}", "session_id": filler_or_real(c),
            "status": "failure" if c["failed"] else "success",
            "proxy_server_request": json.dumps(body(c))}


def writers():
    """source name -> function(calls) -> file text."""
    def csv_text(rows):
        f = io.StringIO()
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        return f.getvalue()

    def helicone_record(c):
        r = {"response_id": str(uuid.uuid4()), "response_created_at": iso(c["t"] + 2),
             "response_status": 500 if c["failed"] else 200, "request_created_at": iso(c["t"]),
             "request_body": body(c), "request_properties": {}, "model": "gpt-4o"}
        if c["session"]:
            r["request_properties"]["Helicone-Session-Id"] = c["session"]
        return r

    def helicone_csv(calls):
        # The exporter's convertToCSVRow: objects JSON.stringify'd with quotes doubled, then the
        # whole value quoted with quotes doubled again.
        cols = ["response_id", "response_created_at", "response_status", "request_created_at",
                "request_body", "request_properties", "request_user_id", "model", "prompt_tokens",
                "completion_tokens", "latency", "cost_usd"]
        out = [",".join(cols)]
        for c in calls:
            r = helicone_record(c)
            cells = []
            for k in cols:
                v = r.get(k)
                if isinstance(v, (dict, list)):
                    v = json.dumps(v, separators=(",", ":")).replace('"', '""')
                cells.append("" if v is None else '"' + str(v).replace('"', '""') + '"')
            out.append(",".join(cells))
        return "\n".join(out) + "\n"

    def portkey(c):
        return {"id": str(uuid.uuid4()), "trace_id": filler_or_real(c), "created_at": iso(c["t"]),
                "response_status_code": 500 if c["failed"] else 200, "ai_model": "gpt-4o",
                "request": {"body": body(c)}, "response": {"body": {"usage": {}}}}

    def portkey_legacy(c):
        return {"created_at": iso(c["t"]), "trace_id": filler_or_real(c),
                "request.body": body(c), "response.status": 500 if c["failed"] else 200}

    def portkey_api(c):
        return {"request": {"url": "https://api.openai.com/v1/chat/completions", "method": "POST",
                            "headers": {}, "body": body(c)},
                # Portkey-AI/docs api-reference/logs.md: response.time, metadata.traceId. The
                # documented object has no time field; created_at is the reader's assumption.
                "response": {"status": 500 if c["failed"] else 200, "headers": {}, "body": {},
                             "time": 800},
                "metadata": {"traceId": filler_or_real(c), "created_at": iso(c["t"])}}

    def langfuse(c):
        r = {"id": str(uuid.uuid4()), "traceId": str(uuid.uuid4()), "type": "GENERATION",
             "name": "chat", "startTime": iso(c["t"]), "model": "gpt-4o",
             "level": "ERROR" if c["failed"] else "DEFAULT",
             "input": {"messages": c["messages"], "tools": TOOLS}}
        if c["session"]:
            r["sessionId"] = c["session"]
        return r

    def langfuse_lines(calls):
        out = []
        for c in calls:
            out.append(json.dumps({"id": str(uuid.uuid4()), "traceId": "t", "type": "SPAN",
                                   "name": "retrieve", "startTime": iso(c["t"]), "input": "q"}))
            out.append(json.dumps(langfuse(c)))
        return "\n".join(out) + "\n"

    def langfuse_csv(calls):
        rows = []
        for c in calls:
            r = langfuse(c)
            rows.append({"id": r["id"], "traceId": r["traceId"], "sessionId": r.get("sessionId", ""),
                         "type": r["type"], "startTime": r["startTime"], "model": r["model"],
                         "level": r["level"], "input": json.dumps(r["input"])})
        return csv_text(rows)

    def payload(c):
        return {"id": str(uuid.uuid4()), "trace_id": filler_or_real(c), "call_type": "acompletion",
                "status": "failure" if c["failed"] else "success", "startTime": c["t"],
                "endTime": c["t"] + 2.0, "model": "gpt-4o", "messages": c["messages"],
                "model_parameters": {"tools": TOOLS, "temperature": 0}, "response": {}}

    def kong_base(c):
        return {"started_at": int(c["t"] * 1000), "request": {"headers": (
            {"x-session-id": c["session"]} if c["session"] else {})},
            "response": {"status": 500 if c["failed"] else 200}}

    def kong(c):
        # Kong >= 3.8: everything under the "proxy" namespace (serialize-analytics.lua).
        return dict(kong_base(c), ai={"proxy": {
            "payload": {"request": json.dumps(body(c)), "response": "{}"},
            "meta": {"request_model": "gpt-4o", "llm_latency": 800},
            "usage": {"prompt_tokens": 0, "completion_tokens": 0}}})

    def kong_37(c):
        # Kong 3.6/3.7: the body at ai.payload.request, statistics per plugin name.
        return dict(kong_base(c), ai={"payload": {"request": json.dumps(body(c))},
                                      "ai-proxy": {"meta": {"request_model": "gpt-4o"},
                                                   "usage": {"prompt_token": 0}}})

    def anthropic_params(c):
        msgs = []
        for m in c["messages"][1:]:
            if m["role"] == "tool":
                msgs.append({"role": "user", "content": [{"type": "tool_result",
                             "tool_use_id": m["tool_call_id"], "content": m["content"]}]})
            elif m.get("tool_calls"):
                msgs.append({"role": "assistant", "content": [{"type": "tool_use",
                             "id": tc["id"], "name": tc["function"]["name"],
                             "input": json.loads(tc["function"]["arguments"])}
                             for tc in m["tool_calls"]]})
            else:
                msgs.append(m)
        return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": SYSTEM,
                "messages": msgs, "tools": [{"name": t["function"]["name"],
                "description": t["function"]["description"],
                "input_schema": t["function"]["parameters"]} for t in TOOLS]}

    jl = lambda f: lambda calls: "".join(json.dumps(f(c)) + "\n" for c in calls)  # noqa: E731
    return {
        "litellm-spendlogs": ("csv", lambda calls: csv_text([spendlog_row(c) for c in calls])),
        "litellm-spendlogs-array": ("json", lambda calls: json.dumps(
            [dict(spendlog_row(c), proxy_server_request=body(c)) for c in calls], indent=2)),
        "litellm-payload": ("json", lambda calls: "".join(json.dumps(payload(c)) for c in calls)),
        "helicone": ("jsonl", jl(helicone_record)),
        "helicone-csv": ("csv", helicone_csv),
        "portkey-export": ("jsonl", jl(portkey)),
        "portkey-legacy": ("jsonl", jl(portkey_legacy)),
        "portkey-logs-api": ("json", lambda calls: json.dumps([portkey_api(c) for c in calls])),
        "langfuse": ("jsonl", langfuse_lines),
        "langfuse-csv": ("csv", langfuse_csv),
        "otel-genai": ("jsonl", lambda calls: otlp_lines(calls, flat=False)),
        "openllmetry": ("jsonl", lambda calls: otlp_lines(calls, flat=True)),
        "openai-batch": ("jsonl", jl(lambda c: {"custom_id": f"r{c['conv']}-{c['turn']}",
                                                 "method": "POST", "url": "/v1/chat/completions",
                                                 "body": body(c)})),
        "anthropic-batch": ("json", lambda calls: json.dumps({"requests": [
            {"custom_id": f"r{c['conv']}-{c['turn']}", "params": anthropic_params(c)}
            for c in calls]}, indent=2)),
        "kong-ai": ("jsonl", jl(kong)),
        "kong-ai-3.7": ("jsonl", jl(kong_37)),
    }


# Samples of an older shape of the same source.
SAMPLE_SOURCE = {"kong-ai-3.7": "kong-ai"}


# Sources whose shape carries no status or session: the workload is written without them.
NO_STATUS = {"openai-batch", "anthropic-batch"}


class GatewaySources(unittest.TestCase):
    def setUp(self):
        self.dir = tempdir()

    def check(self, name, ext, text):
        calls = workload()
        if name in NO_STATUS:
            for c in calls:
                c["failed"], c["session"] = False, None
        text = text(calls)
        exp = expected(calls)
        path = os.path.join(self.dir, f"{name}.{ext}")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(self.dir, name + ".report")
        r = run(["profile", path, "-o", out, "-q", "--salt-file",
                 os.path.join(self.dir, "salt")])
        self.assertEqual(r.returncode, 0, f"{name}: {r.stderr}")
        with open(out + ".json") as f:
            rep = json.load(f)
        source = SAMPLE_SOURCE.get(name, name.replace("-csv", "").replace("-array", ""))
        self.assertEqual(rep["input"]["detection"]["source"], source, name)
        self.assertEqual(rep["counts"]["requests"], exp["requests"], name)
        self.assertEqual(rep["counts"]["filtered_status"], exp["failed"], name)
        self.assertEqual(rep["counts"]["skipped"], 0, f"{name}: {rep['counts']['skipped_by_reason']}")
        self.assertAlmostEqual(rep["session_ids"]["share"], exp["share"], places=12, msg=name)
        self.assertEqual(rep["distributions"]["conversations"], exp["conversations"], name)
        # Resent history is reused: the ceiling is far above zero.
        self.assertGreater(rep["ceiling"]["hit_rate"], 0.3, name)
        trace = os.path.join(self.dir, name + ".mooncake.jsonl")
        e = run(["export", path, "--to", "mooncake", "-o", trace, "-q", "--salt-file",
                 os.path.join(self.dir, "salt")])
        self.assertEqual(e.returncode, 0, f"{name}: {e.stderr}")
        with open(trace) as f:
            self.assertEqual(sum(1 for line in f if line.strip()), exp["requests"], name)

    def test_every_source(self):
        for name, (ext, text) in writers().items():
            with self.subTest(source=name):
                self.check(name, ext, text)

    def test_framings_are_read_completely(self):
        """A 1 MiB first line, a JSON array, concatenated objects, CR-only line ends and a
        document holding its records, plain and compressed: every record is read."""
        import gzip
        calls = workload(6, 3)
        recs = [{"timestamp": c["t"], "request_json": body(c)} for c in calls]
        recs[0]["request_json"]["messages"][1]["content"] += "x" * (1 << 20)
        shapes = {
            "long-first-line.jsonl": "".join(json.dumps(r) + "\n" for r in recs),
            "array.json": json.dumps(recs),
            "array-pretty-trailing-comma.json": "[\n" + "".join(
                json.dumps(r, indent=2) + ",\n" for r in recs) + "]\n",
            "concatenated.json": "".join(json.dumps(r) for r in recs),
            "pretty-concatenated.json": "\n".join(json.dumps(r, indent=2) for r in recs),
            "cr-only.jsonl": "".join(json.dumps(r) + "\r" for r in recs),
            "document.json": json.dumps({"object": "list", "data": recs}),
        }
        for name, text in shapes.items():
            for comp in ("", ".gz"):
                with self.subTest(shape=name + comp):
                    path = os.path.join(self.dir, name + comp)
                    data = text.encode()
                    with open(path, "wb") as f:
                        f.write(gzip.compress(data) if comp else data)
                    out = os.path.join(self.dir, "framing")
                    r = run(["profile", path, "-o", out, "-q", "--salt-file",
                             os.path.join(self.dir, "salt")])
                    self.assertEqual(r.returncode, 0, f"{name}: {r.stderr}")
                    with open(out + ".json") as f:
                        rep = json.load(f)
                    self.assertEqual(rep["counts"]["requests"], len(recs), name)
                    self.assertEqual(rep["counts"]["skipped"], 0, name)
                    self.assertEqual(rep["input"]["format"], "jsonl", name)

    def test_list_sources_names_every_source_with_an_example(self):
        r = run(["list-sources"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in {SAMPLE_SOURCE.get(n, n.replace("-csv", "").replace("-array", ""))
                     for n in writers()}:
            self.assertIn(name, r.stdout)
        self.assertIn("generic", r.stdout)

    def test_forced_source_and_field_overrides(self):
        calls = workload(4, 2)
        rows = [{"when": pg_time(c["t"]), "payload": json.dumps(body(c)),
                 "outcome": "failure" if c["failed"] else "success",
                 "conv": c["session"] or ""} for c in calls]
        f = io.StringIO()
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        path = os.path.join(self.dir, "custom.csv")
        with open(path, "w") as fh:
            fh.write(f.getvalue())
        r = run(["profile", path, "-o", os.path.join(self.dir, "c"), "-q"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--body-field", r.stderr)
        r = run(["profile", path, "-o", os.path.join(self.dir, "c"), "-q",
                 "--body-field", "payload", "--status-field", "outcome", "--time-field", "when",
                 "--session-field", "conv", "--salt-file", os.path.join(self.dir, "salt")])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "c.json")) as fh:
            rep = json.load(fh)
        exp = expected(calls)
        self.assertEqual(rep["counts"]["requests"], exp["requests"])
        self.assertEqual(rep["counts"]["filtered_status"], exp["failed"])
        self.assertAlmostEqual(rep["session_ids"]["share"], exp["share"], places=12)
        r = run(["profile", path, "--source", "nope", "-o", os.path.join(self.dir, "c")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown --source 'nope'", r.stderr)


if __name__ == "__main__":
    unittest.main()
