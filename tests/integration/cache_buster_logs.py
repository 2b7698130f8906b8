"""Gateway logs with ONE injected cache buster each, and the truth about them (standard library).

Each scenario writes two CSV logs in the examples/generate_gateway_log.py format: the log with the
cause and the same traffic without it (the "fixed" log: same conversations, times and lengths).
The truth is computed here, independently of the tool: this module renders every request as the
documented fixed layouts do (docs/SEMANTICS.md "Layouts": tools-first ChatML for unknown models,
the Qwen3 reasoning rule, Llama 3's system header, the anthropic layout), cuts the text into blocks
of 64 code points (block size 16 with the approximate 4 code points per token) and replays an
unbounded cache over the prefixes. Lost tokens of the cause = for each request where the cause
was injected, (blocks it hits in the fixed log - blocks it hits in the log) x 16, where the fixed
request extends its previous turn (reasoning kept, no compaction, one model) for the causes whose
fix is not a same-length edit.

Scenarios: clock (an HH:MM:SS.mmm clock in one app's system prompt), tools (tool arrays reordered in
some conversations), compaction (history summarised mid-conversation), cache_control (the marker
moved to the newest user message every turn, Anthropic bodies), reasoning (Qwen3 tool loops whose
reasoning the template drops once a new user message follows), model (a model switch mid-way).
"""
import csv
import datetime
import json
import random

BLOCK_CPS = 64          # 16 tokens x 4 code points
BLOCK_TOKENS = 16
WORDS = ("account billing cache latency deploy error export invoice kernel ledger merge network "
         "order payment queue refund region release report request schema server session shard "
         "storage ticket timeout token update upgrade usage user version volume warning window "
         "worker build branch commit config cluster column table index query plan budget").split()
T0 = datetime.datetime(2026, 3, 2, 9, 0, 0, tzinfo=datetime.timezone.utc).timestamp()

TOOLS_PRE = ("# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
             "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n")
TOOLS_POST = ("</tools>\n\nFor each function call, return a json object with function name and "
              "arguments within <tool_call></tool_call> XML tags.")
LLAMA_HEAD = "<|im_start|>system\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n"


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def paragraph(rng, sentences):
    return " ".join(words(rng, 12).capitalize() + "." for _ in range(sentences))


def opening(rng, cid):
    # A first user message starting with its own letters, so two conversations' prompts part
    # where the user text starts.
    return f"{chr(65 + cid % 26)}{chr(97 + (cid // 26) % 26)} " + paragraph(rng, rng.randint(1, 3))


def tool(name, desc, params):
    return {"type": "function", "function": {
        "name": name, "description": desc,
        "parameters": {"type": "object",
                       "properties": {p: {"type": "string", "description": f"The {p}."}
                                      for p in params}}}}


# ---- rendering (our reading of the documented layouts, for ASCII string contents) ----

def render_chatml(body, reasoning=False):
    out = []
    tools = body.get("tools")
    if tools:
        out.append("<|im_start|>system\n" + TOOLS_PRE +
                   "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tools) +
                   TOOLS_POST + "<|im_end|>\n")
    msgs = body["messages"]
    out.append(render_messages(msgs, reasoning))
    return "".join(out)


def render_messages(msgs, reasoning, start=0):
    last_user = max((i for i, m in enumerate(msgs) if m["role"] == "user"), default=-1)
    out = []
    for i, m in enumerate(msgs):
        if i < start:
            continue
        head = "<|im_start|>" + m["role"]
        if m.get("tool_call_id"):
            head += " tool_call_id=" + m["tool_call_id"]
        out.append(head + "\n")
        if reasoning and m["role"] == "assistant" and i > last_user and m.get("reasoning"):
            out.append("<think>\n" + m["reasoning"] + "\n</think>\n\n")
        if m.get("content"):
            out.append(m["content"])
        for c in m.get("tool_calls") or []:
            fn = c["function"]
            out.append("\n<tool_call>\n{\"name\": " + json.dumps(fn["name"]) +
                       ", \"arguments\": " + fn["arguments"] + "}\n</tool_call>")
        out.append("<|im_end|>\n")
    return "".join(out)


def render_llama(body):
    msgs = body["messages"]
    out = LLAMA_HEAD
    start = 0
    if msgs and msgs[0]["role"] == "system":
        out += msgs[0]["content"]
        start = 1
    return out + "<|im_end|>\n" + render_messages(msgs, False, start)


def render_anthropic(body):
    out = ""
    if body.get("system"):
        out += "<system>\n" + body["system"] + "</system>\n"
    for m in body["messages"]:
        out += "\n\nAssistant: " if m["role"] == "assistant" else "\n\nHuman: "
        c = m["content"]
        out += c if isinstance(c, str) else "".join(b["text"] for b in c)
    return out


def render(body):
    model = body["model"]
    if "claude" in model:
        return render_anthropic(body)
    if "llama" in model:
        return render_llama(body)
    return render_chatml(body, reasoning="qwen3" in model)


# ---- blocks and the unbounded cache ----

def blocks(text):
    """Prefix keys of each block: full blocks by their whole prefix, a partial tail apart."""
    keys = []
    for end in range(BLOCK_CPS, len(text) + 1, BLOCK_CPS):
        keys.append(("f", text[:end]))
    if len(text) % BLOCK_CPS:
        keys.append(("p", text))
    return keys


class Cache:
    def __init__(self):
        self.seen = set()

    def hits(self, text):
        k = 0
        keys = blocks(text)
        while k < len(keys) and keys[k] in self.seen:
            k += 1
        self.seen.update(keys)
        return k


def tokens(text):
    return (len(text) + 3) // 4


# ---- scenarios: each yields conversations as lists of (body, injected?, fixed_body) ----

def clock_scenario(rng, n):
    """App A's system prompt carries the request's clock at ~850 characters in; app B is clean."""
    head_a = "You are the operations assistant of Example Cloud. " + paragraph(rng, 6)
    head_a = head_a[:850]
    tail_a = " " + paragraph(rng, 3)
    sys_b = "You are a billing helper. " + paragraph(rng, 5)
    convs = []
    for cid in range(n):
        app = "A" if cid % 3 != 2 else "B"
        msgs = [{"role": "user", "content": opening(rng, cid)}]
        turns = []
        for turn in range(rng.randint(3, 6)):
            turns.append(msgs)
            msgs = msgs + [{"role": "assistant", "content": paragraph(rng, 2)},
                           {"role": "user", "content": paragraph(rng, 1)}]
        convs.append((app, turns))
    out = []
    for cid, (app, turns) in enumerate(convs):
        reqs = []
        for msgs in turns:
            if app == "A":
                sysmsg = head_a + " Current time: {clock}." + tail_a
                fixed = sysmsg.replace("{clock}", "00:00:00.000")
            else:
                sysmsg = fixed = sys_b
            reqs.append({"model": "acme-chat-1", "system_template": sysmsg, "fixed_system": fixed,
                         "messages": msgs, "injected": app == "A"})
        out.append(reqs)
    return out, len(head_a) + len(" Current time: ")


def finish_clock(req, t):
    clock = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%H:%M:%S.%f")[:-3]
    s = req["system_template"].replace("{clock}", clock)
    body = {"model": req["model"], "messages": [{"role": "system", "content": s}] + req["messages"]}
    fixed = {"model": req["model"],
             "messages": [{"role": "system", "content": req["fixed_system"]}] + req["messages"]}
    return body, fixed


def tool_loop_turns(rng, cid, tools, turns, reasoning=False):
    """Message lists of a tool-calling conversation: a user task, then assistant tool calls with
    results, a new user message every third turn."""
    msgs = [{"role": "user", "content": opening(rng, cid)}]
    out = []
    for turn in range(turns):
        out.append(msgs)
        if turn % 3 == 2:
            msgs = msgs + [{"role": "assistant", "content": paragraph(rng, 1)},
                           {"role": "user", "content": paragraph(rng, 1)}]
            continue
        call_id = f"call_{cid}_{turn}"
        fn = rng.choice(tools)["function"]["name"] if tools else "lookup"
        a = {"role": "assistant", "content": None,
             "tool_calls": [{"id": call_id, "type": "function",
                             "function": {"name": fn,
                                          "arguments": json.dumps({"path": words(rng, 1)})}}]}
        if reasoning:
            a["reasoning"] = paragraph(rng, rng.randint(2, 5))
        msgs = msgs + [a, {"role": "tool", "tool_call_id": call_id,
                           "content": paragraph(rng, rng.randint(4, 12))}]
    return out


def anthropic_messages(msgs):
    """A tool loop as Anthropic text messages (consecutive same-role messages merged)."""
    merged = []
    for m in msgs:
        role = "user" if m["role"] in ("user", "tool") else "assistant"
        text = m["content"] or "Calling " + m["tool_calls"][0]["function"]["name"]
        if merged and merged[-1]["role"] == role:
            merged[-1] = {"role": role, "content": merged[-1]["content"] + "\n" + text}
        else:
            merged.append({"role": role, "content": text})
    return merged


def scenario(name, seed=11, conversations=36):
    """Rows in time order: dicts with time, body, fixed (the body in the fixed log), session,
    injected (the cause acts on this request) and fix ("log": the fixed log's hits are the truth;
    "extend": the fixed request would extend its previous turn). Plus extra facts."""
    rng = random.Random(seed)
    extra = {}
    sys_text = "You are a coding agent working in a repository. " + paragraph(rng, 8)
    agent_tools = [tool("read_file", "Read a file.", ["path"]),
                   tool("run_tests", "Run the tests.", ["target", "filter"]),
                   tool("search_code", "Search the code.", ["pattern", "path"]),
                   tool("write_file", "Write a file.", ["path", "text"]),
                   tool("list_dir", "List a directory.", ["path"])]
    convs = []  # per conversation: [(body or clock request, fixed, injected, fix)]
    if name == "clock":
        reqs, extra["clock_char"] = clock_scenario(rng, conversations)
        for rs in reqs:
            convs.append([(r, None, r["injected"], "log") for r in rs])
    for cid in range(conversations if name != "clock" else 0):
        turns = rng.randint(4, 8)
        at = rng.randint(2, turns - 2)
        rs = []
        if name == "tools":
            reordered = cid % 3 == 0
            perm = agent_tools[:]
            while perm == agent_tools:
                rng.shuffle(perm)
            for k, msgs in enumerate(tool_loop_turns(rng, cid, agent_tools, turns)):
                use = perm if reordered and k >= at else agent_tools
                body = {"model": "acme-chat-1", "tools": use,
                        "messages": [{"role": "system", "content": sys_text}] + msgs}
                rs.append((body, dict(body, tools=agent_tools), reordered and k == at, "log"))
        elif name == "compaction":
            compacts = cid % 2 == 0
            summary = {"role": "user", "content": "Summary of the work so far: " +
                       paragraph(rng, 3)}
            loop = tool_loop_turns(rng, cid, agent_tools, turns)
            for k, msgs in enumerate(loop):
                full = [{"role": "system", "content": sys_text}] + msgs
                shown = full
                if compacts and k >= at:
                    # What turn at-1 sent is replaced by a summary; later messages are kept.
                    shown = [full[0], summary] + full[len(loop[at - 1]) + 1:]
                body = {"model": "acme-chat-1", "tools": agent_tools, "messages": shown}
                rs.append((body, dict(body, messages=full), compacts and k == at, "extend"))
        elif name == "reasoning":
            prev = None
            for msgs in tool_loop_turns(rng, cid, None, turns, reasoning=True):
                body = {"model": "qwen3-32b",
                        "messages": [{"role": "system", "content": sys_text}] + msgs}
                text = render(body)
                injected = prev is not None and "<think>" in prev and not text.startswith(prev)
                rs.append((body, None, injected, "extend"))
                prev = text
        elif name == "model":
            switches = cid % 3 == 0
            for k, msgs in enumerate(tool_loop_turns(rng, cid, None, turns)):
                model = "llama-3.1-8b-instruct" if switches and k >= at else "acme-chat-1"
                body = {"model": model,
                        "messages": [{"role": "system", "content": sys_text}] + msgs}
                rs.append((body, dict(body, model="acme-chat-1"), switches and k == at, "extend"))
        elif name == "cache_control":
            for k, msgs in enumerate(tool_loop_turns(rng, cid, None, turns)):
                plain = anthropic_messages(msgs)
                marked = [dict(m) for m in plain]
                marked[-1] = {"role": marked[-1]["role"], "content": [
                    {"type": "text", "text": marked[-1]["content"],
                     "cache_control": {"type": "ephemeral"}}]}
                body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": sys_text,
                        "messages": marked}
                rs.append((body, dict(body, messages=plain), k > 0, "log"))
        else:
            raise ValueError(name)
        convs.append(rs)
    # Conversations start 25 s apart, turns 40 s apart: a later conversation's first turn sees
    # earlier conversations' turns.
    rows = []
    for cid, rs in enumerate(convs):
        for k, (body, fixed, injected, fix) in enumerate(rs):
            t = T0 + cid * 25.0 + k * 40.0 + rng.uniform(0, 5)
            if name == "clock":
                body, fixed = finish_clock(body, t)
            rows.append({"time": t, "body": body, "fixed": fixed if fixed is not None else body,
                         "session": f"sess-{name}-{cid:03d}", "injected": injected, "fix": fix})
    rows.sort(key=lambda r: r["time"])
    return rows, extra


def write_csv(path, rows, fixed=False, sessions=True):
    """The log as a gateway CSV; sessions=False leaves the x-session-id column out, so
    conversations can only be inferred from the resent history."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        session_col = ["x-session-id"] if sessions else []
        w.writerow(["request_id", "startTime", "model_name", "status_code", *session_col,
                    "request_json", "response_json"])
        for i, r in enumerate(rows):
            b = r["fixed"] if fixed else r["body"]
            stamp = datetime.datetime.fromtimestamp(r["time"], datetime.timezone.utc).strftime(
                "%Y-%m-%d %H:%M:%S.%f")[:-3]
            session = [r["session"]] if sessions else []
            w.writerow([f"req-{i:05d}", stamp, b["model"], 200, *session, json.dumps(b), ""])


def truth(rows, warmup=0.5):
    """The generator's own figures: lost tokens of the injected cause and the requests it acts
    on; the unbounded-cache ceilings (steady state: the first floor(n * warmup) requests only
    fill the cache) of the log and of the fixed log."""
    cache, fixed_cache = Cache(), Cache()
    last_text = {}
    lost = injected = 0
    first = int(len(rows) * warmup)
    hit = fixed_hit = measured = fixed_measured = 0
    for i, r in enumerate(rows):
        text, ftext = render(r["body"]), render(r["fixed"])
        k_broken, k_fixed = cache.hits(text), fixed_cache.hits(ftext)
        if i >= first:
            hit += min(k_broken * BLOCK_TOKENS, tokens(text))
            measured += tokens(text)
            fixed_hit += min(k_fixed * BLOCK_TOKENS, tokens(ftext))
            fixed_measured += tokens(ftext)
        if r["injected"]:
            injected += 1
            would = k_fixed if r["fix"] == "log" else len(last_text[r["session"]]) // BLOCK_CPS
            lost += max(0, would - k_broken) * BLOCK_TOKENS
        last_text[r["session"]] = text
    return {"lost_tokens": lost, "injected": injected,
            "ceiling": hit / measured if measured else 0,
            "fixed_ceiling": fixed_hit / fixed_measured if fixed_measured else 0,
            "measured_tokens": measured, "hit_tokens": hit}
