"""Generated request bodies for the chat-template oracle (Python standard library only):
agentic tool loops, parallel tool calls, reasoning (reasoning / thinking, <think> in content),
content-part arrays (text, images), system / developer / no system, non-alternating roles,
Anthropic Messages bodies, tool-call ids of 9 alphanumerics (Mistral) or not, unicode, escapes,
numbers in tool arguments and schemas, empty and null content, chat_template_kwargs.

    chat_corpus.py N SEED > requests.jsonl
"""
import json
import random
import sys

WORDS = ("the a file read write list search query result value error fix test build run data "
         "path config user model token cache block prefix tool call weather city price").split()
UNICODE = ["héllo", "naïve", "日本語のテキスト", "Привет", "😀 emoji", "ß→SS", "İstanbul", "\u2028sep",
           "tab\there", "quote\"s", "back\\slash", "<tags> & 'apos'", "ümlaut Ünïcode"]


def words(rng, lo=1, hi=12):
    n = rng.randint(lo, hi)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.08:
            out.append(rng.choice(UNICODE))
        elif r < 0.12:
            out.append(str(rng.randint(0, 10 ** rng.randint(1, 6))))
        else:
            out.append(rng.choice(WORDS))
    s = " ".join(out)
    r = rng.random()
    if r < 0.08:
        s = "  " + s + "\n\n"
    elif r < 0.12:
        s = s + "\n" + " ".join(rng.choice(WORDS) for _ in range(3))
    return s


def schema(rng):
    props = {}
    for i in range(rng.randint(0, 4)):
        kind = rng.choice(["string", "number", "integer", "boolean", "array", "object", "enum"])
        p = {"type": kind if kind != "enum" else "string"}
        if rng.random() < 0.7:
            p["description"] = words(rng, 2, 8)
        if kind == "array":
            p["items"] = {"type": rng.choice(["string", "number", "integer", "boolean", "object"])}
        if kind == "enum":
            p["enum"] = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
        if kind == "number" and rng.random() < 0.3:
            p["default"] = rng.choice([0.5, 1e-05, 100.0, 3, -2.25])
        if kind == "object" and rng.random() < 0.5:
            p["properties"] = {"inner": {"type": "string"}}
        props["arg_%d_%s" % (i, rng.choice(WORDS))] = p
    s = {"type": "object", "properties": props}
    if props and rng.random() < 0.7:
        s["required"] = rng.sample(sorted(props), rng.randint(1, len(props)))
    return s


def tool(rng, i):
    fn = {"name": "tool_%d_%s" % (i, rng.choice(WORDS))}
    if rng.random() < 0.9:
        fn["description"] = words(rng, 3, 15)
    if rng.random() < 0.95:
        fn["parameters"] = schema(rng)
    if rng.random() < 0.1:
        fn["strict"] = True
    return {"type": "function", "function": fn}


def arguments(rng, t):
    props = t["function"].get("parameters", {}).get("properties", {})
    args = {}
    for name, p in props.items():
        if rng.random() < 0.3:
            continue
        ty = p["type"]
        if ty == "string":
            args[name] = words(rng, 1, 5)
        elif ty == "number":
            args[name] = rng.choice([1.5, 0.1, 2.0, 1e-07, 12345.678, -3.0])
        elif ty == "integer":
            args[name] = rng.randint(-5, 1000)
        elif ty == "boolean":
            args[name] = rng.random() < 0.5
        elif ty == "array":
            args[name] = [rng.choice(WORDS) for _ in range(rng.randint(0, 3))]
        else:
            args[name] = {"inner": words(rng, 1, 3), "n": None}
    r = rng.random()
    if r < 0.04:
        return "not json {"
    if r < 0.08:
        return ""
    sep = rng.choice([(", ", ": "), (",", ":")])
    return json.dumps(args, separators=sep, ensure_ascii=rng.random() < 0.5)


def call_id(rng):
    if rng.random() < 0.6:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789ABCDEF") for _ in range(9))
    return "call_%d" % rng.randint(0, 10 ** 8)


def content_value(rng, text):
    r = rng.random()
    if r < 0.15:
        parts = [{"type": "text", "text": w} for w in text.split(" ", 2)]
        if rng.random() < 0.3:
            parts.insert(rng.randint(0, len(parts)), {"type": "image_url",
                                                         "image_url": {"url": "data:image/png;base64,AAAA"}})
        return parts
    return text


def openai_body(rng):
    tools = [tool(rng, i) for i in range(rng.choice([0, 0, 1, 2, 3, 5]))]
    msgs = []
    sys_kind = rng.random()
    if sys_kind < 0.55:
        msgs.append({"role": "system", "content": content_value(rng, words(rng, 3, 20))})
    elif sys_kind < 0.62:
        msgs.append({"role": "developer", "content": words(rng, 3, 10)})
    turns = rng.randint(1, 6)
    alternate = rng.random() < 0.8
    for t in range(turns):
        msgs.append({"role": "user", "content": content_value(rng, words(rng))})
        if not alternate and rng.random() < 0.3:
            msgs.append({"role": "user", "content": words(rng)})
        if t == turns - 1 and rng.random() < 0.7:
            break
        loops = rng.randint(0, 3) if tools else 0
        for _ in range(loops):
            n = 1 if rng.random() < 0.6 else rng.randint(2, 3)
            calls = []
            for _ in range(n):
                tt = rng.choice(tools)
                calls.append({"id": call_id(rng), "type": "function",
                              "function": {"name": tt["function"]["name"], "arguments": arguments(rng, tt)}})
            m = {"role": "assistant", "content": rng.choice([None, None, "", words(rng, 1, 6)]),
                 "tool_calls": calls}
            r = rng.random()
            if r < 0.3:
                m["reasoning"] = words(rng, 2, 10)
            elif r < 0.4:
                m["reasoning_content"] = words(rng, 2, 10)
            msgs.append(m)
            for c in calls:
                res = {"role": "tool", "tool_call_id": c["id"], "content": words(rng, 1, 15)}
                if rng.random() < 0.1:
                    res["content"] = [{"type": "text", "text": words(rng)}, {"type": "text", "text": words(rng)}]
                if rng.random() < 0.2:
                    res["name"] = c["function"]["name"]
                msgs.append(res)
        a = {"role": "assistant", "content": words(rng, 1, 20)}
        r = rng.random()
        if r < 0.15:
            a["content"] = "<think>\n" + words(rng) + "\n</think>\n\n" + words(rng)
        elif r < 0.3:
            a["reasoning"] = words(rng, 2, 8)
        if not alternate and rng.random() < 0.2:
            msgs.append({"role": "assistant", "content": words(rng)})
        msgs.append(a)
    if rng.random() < 0.05:
        msgs.append({"role": "assistant", "content": words(rng)})
    body = {"model": "m", "messages": msgs}
    if tools:
        body["tools"] = tools
    if rng.random() < 0.15:
        body["chat_template_kwargs"] = {"enable_thinking": rng.random() < 0.5}
    if rng.random() < 0.05:
        body["messages"] = []
    return body


def anthropic_body(rng):
    tools = [{"name": "tool_%d" % i, "description": words(rng, 2, 8), "input_schema": schema(rng)}
             for i in range(rng.choice([0, 1, 2, 4]))]
    msgs = []
    turns = rng.randint(1, 5)
    for t in range(turns):
        if rng.random() < 0.5:
            msgs.append({"role": "user", "content": words(rng)})
        else:
            msgs.append({"role": "user", "content": [{"type": "text", "text": words(rng)}]})
        if t == turns - 1:
            break
        for _ in range(rng.randint(0, 2) if tools else 0):
            blocks = []
            if rng.random() < 0.4:
                blocks.append({"type": "thinking", "thinking": words(rng), "signature": "sig"})
            if rng.random() < 0.3:
                blocks.append({"type": "text", "text": words(rng)})
            ids = []
            for _ in range(rng.randint(1, 2)):
                tt = rng.choice(tools)
                tid = call_id(rng)
                ids.append(tid)
                props = tt["input_schema"]["properties"]
                blocks.append({"type": "tool_use", "id": tid, "name": tt["name"],
                               "input": {k: words(rng, 1, 3) for k in props}})
            msgs.append({"role": "assistant", "content": blocks})
            results = []
            for tid in ids:
                c = words(rng) if rng.random() < 0.6 else [{"type": "text", "text": words(rng)}]
                results.append({"type": "tool_result", "tool_use_id": tid, "content": c})
            if rng.random() < 0.3:
                results.append({"type": "text", "text": words(rng)})
            msgs.append({"role": "user", "content": results})
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": words(rng)}]})
    body = {"model": "claude", "messages": msgs, "max_tokens": 100}
    r = rng.random()
    if r < 0.4:
        body["system"] = words(rng, 3, 12)
    elif r < 0.7:
        body["system"] = [{"type": "text", "text": words(rng)}, {"type": "text", "text": words(rng),
                                                                  "cache_control": {"type": "ephemeral"}}]
    if tools:
        body["tools"] = tools
    return body


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    for i in range(n):
        body = anthropic_body(rng) if rng.random() < 0.2 else openai_body(rng)
        body["__now__"] = 1700000000 + rng.randint(0, 10 ** 8)
        sys.stdout.write(json.dumps(body, ensure_ascii=rng.random() < 0.5) + "\n")


if __name__ == "__main__":
    main()
