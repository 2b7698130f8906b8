"""Generated chat logs and the tool's documented draws, shared by the named-router integration tests
(test_named_routers.py, test_llmd_router.py, test_aibrix_router.py, test_dynamo_router.py,
test_sglang_router.py). Standard library only; imported from the tests' own directory.

Each test keeps its own reference implementation and says in its generator's docstring what its
traffic exercises; what is here is only what they had in common:
- chat_bodies: conversations over a few shared system prompts resending their history (tool calls
  with null contents, list contents with an image block, messages without content, replies) and
  one-off requests, in arrival order;
- bursty_calls: arrival times a quarter second apart in bursts separated by quiet stretches, with
  a duration per call;
- litellm_payload_jsonl: the calls as LiteLLM payload records with logged startTime/endTime;
- splitmix_finalizer (the tool's draws: one SplitMix64 stream from --seed, state += 0x9e37...
  then this finalizer) and f32 (a float32 rounding, as the tool's float scores and durations).
The random draws happen in a fixed order for given arguments: the routes the tests compare were
validated on these sequences, so a change here changes every test's log.
"""
import json
import struct

M64 = (1 << 64) - 1
T0 = 1767225600  # 2026-01-01T00:00:00Z, the first call of a LiteLLM payload log

# Word counts of chat_bodies: an int is fixed, a pair (lo, hi) is drawn with rng.randint.
SHORT_TURNS = {"system": (10, 60), "first_user": (3, 30), "one_off": (1, 3), "tool": (5, 40),
               "list": (6, 3, 5), "bare_user": 8, "reply": (5, 30), "user": (3, 20)}
LONG_TURNS = {"system": (20, 120), "first_user": (3, 60), "one_off": 5, "tool": (5, 80),
              "list": (10, 4, 8), "bare_user": 12, "reply": (5, 60), "user": (3, 40)}


def splitmix_finalizer(x):
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M64
    return x ^ (x >> 31)


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def chat_bodies(rng, conversations, turns, alphabet, lengths=SHORT_TURNS,
                image_url="http://x/y.png"):
    """Returns (bodies in arrival order, the system prompts). Each conversation starts with a system
    prompt drawn from four and a user message and is sent `turns` times, its history growing
    between sends by one of: an assistant tool call with a null content and the tool's reply
    (30%), list contents (assistant text blocks, user text and image_url blocks; 15%), an assistant
    message without content and a user message (5%), or an assistant reply and a user message.
    After 8% of the sends comes a one-off single-message request."""
    def count(spec):
        return spec if isinstance(spec, int) else rng.randint(*spec)

    def words(n):
        return " ".join("".join(rng.choice(alphabet) for _ in range(rng.randint(2, 9)))
                        for _ in range(n))

    n = lengths
    systems = [words(count(n["system"])) for _ in range(4)]
    live = [[{"role": "system", "content": rng.choice(systems)},
             {"role": "user", "content": words(count(n["first_user"]))}]
            for _ in range(conversations)]
    pending = list(range(conversations))
    turn = [0] * conversations
    bodies = []
    while pending:
        c = rng.choice(pending)
        msgs = live[c]
        bodies.append({"model": "m", "messages": [dict(m) for m in msgs]})
        if rng.random() < 0.08:
            bodies.append({"model": "m", "messages": [
                {"role": "user", "content": words(count(n["one_off"]))}]})
        turn[c] += 1
        if turn[c] >= turns:
            pending.remove(c)
            continue
        kind = rng.random()
        if kind < 0.3:
            msgs.append({"role": "assistant", "content": None,
                         "tool_calls": [{"id": "t", "type": "function",
                                         "function": {"name": "f", "arguments": "{}"}}]})
            msgs.append({"role": "tool", "tool_call_id": "t", "content": words(count(n["tool"]))})
        elif kind < 0.45:
            first, second, user = n["list"]
            msgs.append({"role": "assistant", "content": [{"type": "text", "text": words(first)},
                                                          {"type": "text", "text": words(second)}]})
            msgs.append({"role": "user", "content": [{"type": "text", "text": words(user)},
                                                     {"type": "image_url",
                                                      "image_url": {"url": image_url}}]})
        elif kind < 0.5:
            msgs.append({"role": "assistant"})
            msgs.append({"role": "user", "content": words(count(n["bare_user"]))})
        else:
            msgs.append({"role": "assistant", "content": words(count(n["reply"]))})
            msgs.append({"role": "user", "content": words(count(n["user"]))})
    return bodies, systems


def bursty_calls(rng, bodies, burst, quiet_s, duration):
    """Calls {"t": seconds from the first, "d": duration s, "body"}: 1/4 to 1 s apart (multiples
    of 1/4 s), a quiet stretch drawn from quiet_s before every burst-th call, duration(body) drawn
    after the call's gap."""
    calls, t = [], 0.0
    for i, body in enumerate(bodies):
        if i % burst == 0 and i:
            t += rng.choice(quiet_s)
        t += 0.25 * rng.randint(1, 4)
        calls.append({"t": t, "d": duration(body), "body": body})
    return calls


def litellm_payload_jsonl(calls):
    lines = []
    for i, c in enumerate(calls):
        lines.append(json.dumps({
            "id": f"chatcmpl-{i}", "trace_id": f"tr-{i}", "call_type": "acompletion",
            "status": "success", "startTime": T0 + c["t"], "endTime": T0 + c["t"] + c["d"],
            "model": "m", "messages": c["body"]["messages"], "model_parameters": {},
            "response": {}}, ensure_ascii=False))
    return "\n".join(lines) + "\n"
