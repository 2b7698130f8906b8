#!/usr/bin/env python3
"""Generates examples/gateway.csv: a synthetic LLM gateway log (Python standard library only).

What it holds, and why (each is something `llmtrafficlens profile` should surface):
  * three shared system prompts with skewed popularity: a short support prompt used by most
    conversations, a long coding-agent prompt (with tools) used by fewer, a mid-size analyst
    prompt (with other tools) used rarely -- so the two prefix leaderboards disagree;
  * tool-calling loops that resend the whole history every turn (agentic traffic), and a few
    conversations whose tool set changes mid-way;
  * sparse session identifiers: an x-session-id column on some rows, prompt_cache_key in the body
    of others, nothing on most;
  * real timestamps (LiteLLM-style "YYYY-MM-DD HH:MM:SS.fff" UTC), interleaved conversations;
  * usage on some rows, with the cached tokens a hosted API reports: the support and analyst apps
    call OpenAI models (gpt-4.1-mini, gpt-4.1), whose cache this script plays by OpenAI's documented
    rules (prompts of >= 1,024 tokens, hits in 1,024 + 128 k increments, per model and
    prompt_cache_key, 5 minutes after the last use), except that a quarter of the requests land on
    a machine that does not hold the prefix (what a provider spreading load looks like); the agent
    app runs a self-hosted glm-4.5. Some support conversations pause longer than the TTL;
  * a few non-2xx rows, and one body truncated by the gateway.
All text is generated from word lists; nothing comes from real traffic.

Usage: generate_gateway_log.py [OUT.csv] [--seed N] [--conversations N]
"""
import argparse
import csv
import datetime
import json
import random

WORDS = ("account billing cache latency deploy error export invoice kernel ledger merge network "
         "order payment queue refund region release report request schema server session shard "
         "storage ticket timeout token update upgrade usage user version volume warning window "
         "worker build branch commit config cluster column table index query plan budget").split()


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def paragraph(rng, sentences, words=12):
    return " ".join(sentence(rng, words) for _ in range(sentences))


def tool(name, desc, params):
    return {"type": "function", "function": {
        "name": name, "description": desc,
        "parameters": {"type": "object",
                       "properties": {p: {"type": "string", "description": f"The {p}."} for p in params},
                       "required": list(params[:1])}}}


def build_prompts(rng):
    support = ("You are the support assistant of Example Cloud. Answer briefly and politely. "
               "If the question is about billing, ask for the invoice number.")
    agent = "You are a coding agent working in a repository. " + " ".join(
        f"Rule {i + 1}: {paragraph(rng, 3)}" for i in range(40))
    analyst = "You are a data analyst. " + paragraph(rng, 25)
    agent_tools = [tool("read_file", "Read a file from the repository.", ["path"]),
                   tool("run_tests", "Run the test suite and return the failures.", ["target", "filter"]),
                   tool("search_code", "Search the repository for a pattern.", ["pattern", "path"])]
    extra_tool = tool("open_pull_request", "Open a pull request with the current changes.", ["title", "body"])
    analyst_tools = [tool("sql_query", "Run a read-only SQL query.", ["query"]),
                     tool("plot", "Plot a column of the last result.", ["column", "kind"])]
    return {
        "support": {"system": support, "tools": None, "model": "gpt-4.1-mini", "weight": 0.6},
        "agent": {"system": agent, "tools": agent_tools, "extra": extra_tool, "model": "glm-4.5",
                  "weight": 0.25},
        "analyst": {"system": analyst, "tools": analyst_tools, "model": "gpt-4.1", "weight": 0.15},
    }


def conversation(rng, kind, spec, start, cid):
    """Yields (time, body, usage_fraction) for each request of one conversation."""
    messages = [{"role": "system", "content": spec["system"]},
                {"role": "user", "content": paragraph(rng, rng.randint(1, 3))}]
    tools = list(spec["tools"]) if spec["tools"] else None
    turns = rng.randint(1, 3) if kind == "support" else rng.randint(3, 7)
    changes_tools = kind == "agent" and rng.random() < 0.3
    t = start
    for turn in range(turns):
        body = {"model": spec["model"], "messages": [dict(m) for m in messages], "stream": rng.random() < 0.7}
        if tools:
            body["tools"] = tools
        yield t, body
        if kind == "support":
            messages.append({"role": "assistant", "content": paragraph(rng, 2)})
            messages.append({"role": "user", "content": paragraph(rng, 1)})
            # Some customers come back after a coffee: longer than the provider's 5-minute TTL.
            t += rng.uniform(360, 1200) if rng.random() < 0.15 else rng.uniform(20, 90)
        else:
            call_id = f"call_{cid}_{turn}"
            fn = rng.choice(tools)["function"]["name"]
            args = json.dumps({"path": f"src/{rng.choice(WORDS)}.py"})
            messages.append({"role": "assistant", "content": None,
                             "tool_calls": [{"id": call_id, "type": "function",
                                             "function": {"name": fn, "arguments": args}}]})
            messages.append({"role": "tool", "tool_call_id": call_id,
                             "content": paragraph(rng, rng.randint(20, 70))})
            t += rng.uniform(20, 150)
            if changes_tools and turn == 1:
                tools = tools + [spec["extra"]]


def rendered(body):
    """The prompt roughly as a ChatML template renders it (tools first), for token counts."""
    out = ""
    if body.get("tools"):
        out += "<|im_start|>system\n" + "".join(json.dumps(t) + "\n" for t in body["tools"]) + "<|im_end|>\n"
    for m in body["messages"]:
        out += "<|im_start|>" + m["role"] + "\n" + (m.get("content") or "")
        for c in m.get("tool_calls") or []:
            out += json.dumps(c["function"])
        out += "<|im_end|>\n"
    return out


class OpenAiCache:
    """OpenAI's automatic prompt caching as documented (developers.openai.com/api/docs/guides/
    prompt-caching): whole prompts of >= 1,024 tokens cached per (model, prompt_cache_key), alive 5
    minutes after their last use; a hit is the longest exact prefix, reported as 1,024 + 128 k."""

    def __init__(self):
        self.entries = {}

    def request(self, t, body, text, tokens, elsewhere):
        if tokens < 1024:
            return 0
        part = self.entries.setdefault((body["model"], body.get("prompt_cache_key")), [])
        match = 0
        if not elsewhere:
            for old, expiry in part:
                if t <= expiry:
                    n = 0
                    while n < min(len(old), len(text)) and old[n] == text[n]:
                        n += 1
                    match = max(match, n // 4)
        part.append((text, t + 300))
        return 0 if match < 1024 else 1024 + 128 * ((min(match, tokens) - 1024) // 128)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default="examples/gateway.csv")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--conversations", type=int, default=100)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    prompts = build_prompts(rng)
    kinds = list(prompts)
    weights = [prompts[k]["weight"] for k in kinds]
    t0 = datetime.datetime(2025, 7, 24, 9, 0, 0, tzinfo=datetime.timezone.utc).timestamp()
    rows = []
    start = t0
    for cid in range(a.conversations):
        start += rng.expovariate(1 / 20.0)
        kind = rng.choices(kinds, weights)[0]
        session_kind = rng.random()
        session = f"sess-{cid:04d}-{rng.randrange(16**8):08x}"
        for t, body in conversation(rng, kind, prompts[kind], start, cid):
            header = ""
            if session_kind < 0.12:
                header = session                   # a gateway header column
            elif session_kind < 0.22:
                body["prompt_cache_key"] = session  # the client's cache key
            rows.append([t, body, header])
    rows.sort(key=lambda r: r[0])

    cache = OpenAiCache()
    with open(a.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["request_id", "startTime", "model_name", "status_code", "x-session-id",
                    "request_json", "response_json"])
        for i, (t, body, header) in enumerate(rows):
            status = 200
            r = rng.random()
            if r < 0.02:
                status = 429
            elif r < 0.03:
                status = 500
            text = json.dumps(body)
            if i == len(rows) // 2:  # one body cut by the gateway's logging limit
                msg = body["messages"][1]
                content = msg["content"]
                msg["content"] = content[:20] + f"... (litellm_truncated skipped {len(content) * 3} chars) ..." + content[-40:]
                text = json.dumps(body)
            response = ""
            prompt = rendered(body)
            prompt_tokens = (len(prompt) + 3) // 4
            # Every successful request goes through the provider's cache; 40% of rows log usage.
            cached = cache.request(t, body, prompt, prompt_tokens, rng.random() < 0.25) if status == 200 else 0
            if status == 200 and rng.random() < 0.4:
                out_tokens = rng.randint(20, 400)
                response = json.dumps({
                    "id": f"chatcmpl-{i}", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": sentence(rng, 10)},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": out_tokens,
                              "prompt_tokens_details": {"cached_tokens": cached}}})
            stamp = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
            w.writerow([f"req-{i:05d}", stamp, body["model"], status, header, text, response])


if __name__ == "__main__":
    main()
