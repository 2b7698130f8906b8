"""What an engine does to a request body before the chat template (test reference, standard
library + jinja2 only): vLLM's OpenAI server rules as docs/SEMANTICS.md states them, written
from vLLM's source independently of the C++ implementation
(src/jinja/template_messages.cc), so the oracle test checks both.

Sources (vllm-project/vllm): entrypoints/chat_utils.py @ 001eadcf, renderers/hf.py @ 02e64f58,
openai/chat_completion/protocol.py @ 002032ee, openai/engine/protocol.py @ 040a2cc2,
anthropic/serving.py @ 0001948b.
"""
import json

import jinja2.nodes as nodes


class RequestRefused(Exception):
    """The engine would answer 400 before rendering."""


# --- vLLM's content-format detection ------------------------------------------------------------

def _name_is(node, var):
    return isinstance(node, nodes.Name) and node.ctx == "load" and node.name == var


def _key_of(node, var, key):
    if isinstance(node, nodes.Getitem):
        return _name_is(node.node, var) and isinstance(node.arg, nodes.Const) and node.arg.value == key
    if isinstance(node, nodes.Getattr):
        return _name_is(node.node, var) and node.attr == key
    return False


def _reads(node, var, key=None):
    """var (or var[key]) possibly behind filters, tests or a slice."""
    if isinstance(node, (nodes.Filter, nodes.Test)):
        return node.node is not None and _reads(node.node, var, key)
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
        return _reads(node.node, var, key)
    return _key_of(node, var, key) if key else _name_is(node, var)


def detect_content_format(env, source):
    try:
        tree = env.parse(source)
    except Exception:  # noqa: BLE001
        return "string"
    related = ["messages"]
    i = 0
    while i < len(related):
        for assign in tree.find_all(nodes.Assign):
            if isinstance(assign.target, nodes.Name) and _reads(assign.node, related[i]):
                if assign.target.name not in related:
                    related.append(assign.target.name)
        i += 1
    loop_vars = []
    for loop in tree.find_all(nodes.For):
        if isinstance(loop.target, nodes.Name) and any(_reads(loop.iter, v) for v in related):
            loop_vars.append(loop.target.name)
    for loop in tree.find_all(nodes.For):
        if any(_reads(loop.iter, v, "content") for v in loop_vars):
            return "openai"
    return "string"


# --- Anthropic Messages -> OpenAI chat (vLLM anthropic/serving.py) ------------------------------

def is_anthropic(body):
    if "system" in body:
        return True
    if any(isinstance(t, dict) and "input_schema" in t for t in body.get("tools") or []):
        return True
    for m in body.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") in (
                        "tool_use", "tool_result", "thinking", "redacted_thinking", "document", "image"):
                    return True
    return False


def _image_url(source):
    source = source or {}
    if source.get("type") == "url":
        return source.get("url", "")
    return "data:%s;base64,%s" % (source.get("media_type", "image/jpeg"), source.get("data", ""))


def anthropic_to_openai(body):
    out = []
    system = []

    def add_system(content):
        if isinstance(content, str):
            system.append(content)
        elif isinstance(content, list):
            for b in content:
                text = b.get("text") if isinstance(b, dict) else None
                if b.get("type") == "text" and text and not text.startswith("x-anthropic-billing-header"):
                    system.append(text)

    if body.get("system"):
        add_system(body["system"])
    for m in body.get("messages") or []:
        if m.get("role") == "system":
            add_system(m.get("content"))
    if system:
        out.append({"role": "system", "content": "".join(system)})
    for m in body.get("messages") or []:
        role = m.get("role")
        if role == "system":
            continue
        om = {"role": role}
        content = m.get("content")
        if isinstance(content, str):
            om["content"] = content
        elif isinstance(content, list):
            parts, calls, thinking = [], [], []
            for b in content:
                t = b.get("type")
                if t == "text" and b.get("text"):
                    parts.append({"type": "text", "text": b["text"]})
                elif t == "image" and b.get("source"):
                    parts.append({"type": "image_url", "image_url": {"url": _image_url(b["source"])}})
                elif t == "thinking" and b.get("thinking") is not None:
                    thinking.append(b["thinking"])
                elif t == "tool_use":
                    calls.append({"id": b.get("id") or "call_0", "type": "function",
                                  "function": {"name": b.get("name") or "",
                                               "arguments": json.dumps(b.get("input") or {})}})
                elif t == "tool_result":
                    if role == "user":
                        c = b.get("content")
                        images = []
                        if isinstance(c, str):
                            text = c
                        elif isinstance(c, list):
                            texts = []
                            for item in c:
                                if not isinstance(item, dict):
                                    continue
                                if item.get("type") == "text":
                                    texts.append(item.get("text", ""))
                                elif item.get("type") == "image":
                                    images.append(_image_url(item.get("source", {})))
                            text = "\n".join(texts)
                        else:
                            text = ""
                        out.append({"role": "tool", "tool_call_id": b.get("tool_use_id") or "",
                                    "content": text or ""})
                        if images:
                            out.append({"role": "user", "content": [
                                {"type": "image_url", "image_url": {"url": u}} for u in images]})
                    else:
                        c = b.get("content")
                        parts.append({"type": "text", "text": "Tool result: %s" % (str(c) if c else "")})
            if thinking:
                om["reasoning"] = "".join(thinking)
            if calls:
                om["tool_calls"] = calls
            if parts:
                om["content"] = parts[0]["text"] if len(parts) == 1 and parts[0]["type"] == "text" else parts
        if not (role == "user" and "content" not in om):
            out.append(om)
    req = {"messages": out}
    if body.get("tools"):
        req["tools"] = [{"type": "function", "function": {
            "name": t.get("name"), "description": t.get("description"),
            "parameters": t.get("input_schema")}} for t in body["tools"]]
    if "chat_template_kwargs" in body:
        req["chat_template_kwargs"] = body["chat_template_kwargs"]
    return req


# --- vLLM chat_utils: messages as the template sees them ----------------------------------------

TEXT_TYPES = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal",
              "thinking": "thinking"}
MEDIA_TYPES = {"image_url": "image", "input_image": "image", "image_pil": "image",
               "image_embeds": "image", "audio_url": "audio", "input_audio": "audio",
               "audio_embeds": "audio", "video_url": "video"}


def _part(part, openai):
    """(kept, value) for one content part."""
    if isinstance(part, str):
        return True, ({"type": "text", "text": part} if openai else part)
    if not isinstance(part, dict):
        raise RequestRefused("content part is not an object")
    ptype = part.get("type")
    modality = None
    if isinstance(ptype, str) and part.get("uuid") is None:
        if ptype in TEXT_TYPES:
            text = part.get(TEXT_TYPES[ptype])
            if text is None:
                return False, None
            if not isinstance(text, str):
                raise RequestRefused("content part text is not a string")
            return True, ({"type": "text", "text": text} if openai else text)
        if ptype in MEDIA_TYPES:
            modality = MEDIA_TYPES[ptype]
        elif ptype == "tool_reference":
            name = part.get("name")
            return True, ({"type": "tool_reference", "name": name} if openai else name)
        elif ptype == "prompt_embeds":
            raise RequestRefused("prompt_embeds")
        else:
            raise RequestRefused("unsupported chat content part type")
    elif ptype is not None and not isinstance(ptype, str):
        raise RequestRefused("invalid 'type' field")
    else:
        if "image_url" in part or "image_pil" in part or "image_embeds" in part:
            modality = "image"
        elif "audio_embeds" in part or "audio_url" in part or part.get("input_audio") is not None:
            modality = "audio"
        elif "video_url" in part:
            modality = "video"
        elif "prompt_embeds" in part:
            raise RequestRefused("prompt_embeds")
        elif "tool_reference" in part:
            return False, None
        else:
            raise RequestRefused("missing 'type' field")
    if not openai:
        return False, None  # the model's own placeholder; not modelled
    return True, {"type": modality}


def _tool_call(call):
    if not isinstance(call, dict):
        raise RequestRefused("tool call is not an object")
    fn = call.get("function")
    if not isinstance(fn, dict):
        raise RequestRefused("tool call without a function")
    out = {}
    if "id" in call:
        out["id"] = call["id"]
    args = fn.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            args = {}
    elif not isinstance(args, (dict, list)):
        args = {}
    f = {"arguments": args}
    if "name" in fn:
        f["name"] = fn["name"]
    out["function"] = f
    if "type" in call:
        out["type"] = call["type"]
    return out


def _message(m, openai):
    if not isinstance(m, dict):
        raise RequestRefused("message is not an object")
    role = m.get("role")
    if not isinstance(role, str):
        raise RequestRefused("message without a role")
    content = m.get("content")
    if content is None:
        parts = []
    elif isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        parts = content
    else:
        raise RequestRefused("bad content")
    kept = []
    for p in parts:
        ok, v = _part(p, openai)
        if ok:
            kept.append(v)
    r = {"role": role, "content": kept if openai else "\n".join(kept)}
    if role == "assistant":
        calls = m.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise RequestRefused("tool_calls is not a list")
            if calls:
                r["tool_calls"] = [_tool_call(c) for c in calls]
        if m.get("reasoning") is not None:
            r["reasoning"] = m["reasoning"]
            r["reasoning_content"] = m["reasoning"]
    if role == "tool":
        if "tool_call_id" in m:
            r["tool_call_id"] = m["tool_call_id"]
        c = r["content"]
        if isinstance(c, list) and all(isinstance(x, dict) and x.get("type") == "text" for x in c):
            r["content"] = "\n".join(x.get("text", "") for x in c)
    if isinstance(m.get("name"), str):
        r["name"] = m["name"]
    if isinstance(m.get("task"), str):
        r["task"] = m["task"]
    if role == "developer":
        r["tools"] = m.get("tools")
    return r


def _tool(t):
    fn = t.get("function") if isinstance(t.get("function"), dict) else {}
    f = {"name": fn.get("name"), "description": fn.get("description"), "parameters": fn.get("parameters")}
    defer = fn.get("defer_loading")
    if defer is None:
        defer = t.get("defer_loading")
    if defer is not None:
        f["defer_loading"] = defer
    for k, v in fn.items():
        if k not in ("name", "description", "parameters", "defer_loading"):
            f[k] = v
    out = {"type": t.get("type", "function"), "function": f}
    if t.get("defer_loading") is not None:
        out["defer_loading"] = t["defer_loading"]
    return out


def template_variables(body, special_tokens, content_format):
    if not isinstance(body, dict):
        raise RequestRefused("body is not an object")
    req = anthropic_to_openai(body) if is_anthropic(body) else body
    messages = req.get("messages")
    if not isinstance(messages, list):
        raise RequestRefused("no messages")
    openai = content_format == "openai"
    conv = [_message(m, openai) for m in messages]
    variables = dict(special_tokens)
    for k, v in (req.get("chat_template_kwargs") or {}).items():
        if k not in ("messages", "tools", "documents", "add_generation_prompt", "chat_template", "tokenize"):
            variables[k] = v
    tools = req.get("tools")
    variables["messages"] = conv
    variables["tools"] = [_tool(t) for t in tools] if isinstance(tools, list) and tools else None
    variables["documents"] = req.get("documents")
    variables["add_generation_prompt"] = True
    return variables
