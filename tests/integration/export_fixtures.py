"""Generated hashed traces for the export tests, and an independent Python model of the export's
id rules (docs/EXPORT.md) and of the unbounded-cache ceiling, written separately from the C++."""
import hashlib
import json
import random

MASK63 = 2**63 - 1
M64 = 2**64 - 1


def chained_id(parent, content, tail_tokens=0):
    """A 63-bit chained block id (stand-in for the salted hash): a partial block's id includes its
    length, so it never equals a full block's id (the gateway reader's rule)."""
    h = hashlib.blake2b(f"{parent}|{content}|{tail_tokens}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") & MASK63


def mix64(x):
    """splitmix64's finalizer."""
    x ^= x >> 30
    x = (x * 0xbf58476d1ce4e5b9) & M64
    x ^= x >> 27
    x = (x * 0x94d049bb133111eb) & M64
    x ^= x >> 31
    return x


def extended_id(prev):
    return mix64(prev ^ 0x6c746c2d65787465) & MASK63


def tail_id(chained, tail_tokens):
    return mix64((mix64(chained ^ 0x6c746c2d7461696c) + tail_tokens) & M64) & MASK63


def expected_export_ids(ids, input_length, in_bs, out_bs):
    """The export's id list for one record, computed from the rules in docs/EXPORT.md."""
    ratio = out_bs // in_bs
    coarse = [ids[min((k + 1) * ratio, len(ids)) - 1] & MASK63
              for k in range(-(-len(ids) // ratio))]
    want = -(-input_length // out_bs)
    out = coarse[:want]
    while len(out) < want:
        out.append(extended_id(out[-1]))
    if input_length % out_bs:
        out[-1] = tail_id(out[-1], input_length % out_bs)
    return out


class Request:
    def __init__(self, time_s, ids, input_length, output_length, conversation, kind="text"):
        self.time_s, self.ids, self.input_length = time_s, ids, input_length
        self.output_length, self.conversation, self.kind = output_length, conversation, kind


def generate_requests(seed, n, bs, conversations=True):
    """Chat-like traffic: three shared system prompts with skewed popularity, conversations that
    resend their whole history each turn, one-off prompts, partial tail blocks, tied times."""
    rng = random.Random(seed)
    systems = [[f"sys{s}-{b}" for b in range(nb)] for s, nb in enumerate((40, 8, 2))]
    convs = []  # [system index, history contents, conversation key]
    reqs = []
    t = 1_700_000_000.0 + rng.random()
    for i in range(n):
        t += rng.choice((0.0, 0.0, 0.001, 0.25, 1.5, 7.0))
        if conversations and convs and rng.random() < 0.55:
            conv = rng.choice(convs)
        else:
            sys_i = rng.choices((0, 1, 2), weights=(6, 3, 1))[0]
            conv = [sys_i, [], f"c{len(convs)}"]
            convs.append(conv)
        conv[1] += [f"r{i}-{b}" for b in range(rng.randint(1, 12))]
        contents = systems[conv[0]] + conv[1]
        tail = rng.choice((0, 1, bs // 2, bs - 1))
        ids, parent = [], None
        for c in contents:
            parent = chained_id(parent, c)
            ids.append(parent)
        if tail:
            ids.append(chained_id(parent, f"tail{i}", tail))
        length = len(contents) * bs + tail
        out = rng.choice((1, 17, 256, 900))
        kind = rng.choices(("text", "image", "file"), weights=(8, 1, 1))[0]
        reqs.append(Request(t, ids, length, out, conv[2] if conversations else "", kind))
    return reqs


def write_mooncake(path, reqs, bs, block_size_field=True):
    t0 = reqs[0].time_s
    with open(path, "w") as f:
        for r in reqs:
            line = {"timestamp": round((r.time_s - t0) * 1000), "input_length": r.input_length,
                    "output_length": r.output_length, "hash_ids": r.ids}
            if block_size_field:
                line["block_size"] = bs
            f.write(json.dumps(line) + "\n")


def write_bailian(path, reqs, seed=0):
    """chat_ids are deliberately not sequential, so the export's renumbering is visible."""
    rng = random.Random(seed)
    chat_ids = rng.sample(range(10_000, 10_000 + 50 * len(reqs)), len(reqs))
    last = {}
    turns = {}
    t0 = reqs[0].time_s
    with open(path, "w") as f:
        for r, cid in zip(reqs, chat_ids):
            parent = last.get(r.conversation, -1) if r.conversation else -1
            turn = turns.get(r.conversation, 0) + 1
            if r.conversation:
                last[r.conversation], turns[r.conversation] = cid, turn
            f.write(json.dumps({"chat_id": cid, "parent_chat_id": parent,
                                "timestamp": round(r.time_s - t0, 6),
                                "input_length": r.input_length, "output_length": r.output_length,
                                "type": r.kind, "turn": turn, "hash_ids": r.ids}) + "\n")


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def steady_ceiling(lines, bs, warmup=0.5):
    """Unbounded prefix-cache hit tokens over the measured requests, replaying `lines` (dicts with
    hash_ids and input_length) in the order given: hit = min(leading seen ids * bs, length)."""
    first = int(len(lines) * warmup)
    seen = set()
    hit = measured = 0
    for i, line in enumerate(lines):
        ids = line["hash_ids"]
        if i >= first:
            k = 0
            while k < len(ids) and ids[k] in seen:
                k += 1
            hit += min(k * bs, line["input_length"])
            measured += line["input_length"]
        seen.update(ids)
    return hit, measured


def write_gateway_csv(path, seed, n, canary="", usage_share=0.3):
    """An OpenAI-format gateway CSV: three shared system prompts (skewed popularity), tool-calling
    conversations that resend their history, sparse session ids, some non-2xx rows, usage on some
    rows (its prompt_tokens deliberately off the 4-code-points estimate). `canary` is planted in
    every free-text field: system, user, assistant and tool messages, tool definitions, names,
    tool-call ids, user, metadata, model name, session id, the response and an extra column."""
    import csv
    rng = random.Random(seed)
    c = canary
    systems = [f"{c} You are assistant {k}. " + ("Follow the policy carefully. " * (40 * (k + 1)))
               for k in range(3)]
    tools = [{"type": "function", "function": {
        "name": f"lookup{c.replace('-', '_')}", "description": f"Look things up {c}",
        "parameters": {"type": "object", "properties": {"q": {"type": "string",
                                                              "description": c}}}}}]
    convs = []
    t = 1_753_340_000.0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestamp", "request_json", "response_json", "model_name", "status_code",
                    "session_id", "note"])
        for i in range(n):
            t += rng.choice((0.0, 0.2, 1.0, 3.5))
            if convs and rng.random() < 0.5:
                conv = rng.choice(convs)
            else:
                k = rng.choices((0, 1, 2), weights=(6, 3, 1))[0]
                conv = {"messages": [{"role": "system", "content": systems[k]}],
                        "sid": f"{c}sess{len(convs)}" if rng.random() < 0.3 else "",
                        "tools": rng.random() < 0.5}
                convs.append(conv)
            msgs = conv["messages"]
            msgs.append({"role": "user", "content": f"{c} question {i} " + "word " * rng.randint(1, 200)})
            body = {"model": f"gpt-4o{c}", "messages": list(msgs), "user": f"{c}user",
                    "metadata": {"note": c}}
            if conv["tools"]:
                body["tools"] = tools
            answer = f"{c} answer {i} " + "text " * rng.randint(1, 60)
            response = {"choices": [{"message": {"role": "assistant", "content": answer}}]}
            if rng.random() < usage_share:
                est = sum(len(m["content"] or "") for m in msgs) // 4
                response["usage"] = {"prompt_tokens": max(1, est + rng.randint(-40, 40)),
                                     "completion_tokens": rng.randint(1, 300)}
            if conv["tools"] and rng.random() < 0.5:
                call = {"id": f"call_{c}{i}", "type": "function",
                        "function": {"name": tools[0]["function"]["name"],
                                     "arguments": json.dumps({"q": c})}}
                msgs.append({"role": "assistant", "content": None, "tool_calls": [call]})
                msgs.append({"role": "tool", "tool_call_id": call["id"], "content": f"{c} result"})
            else:
                msgs.append({"role": "assistant", "content": answer})
            status = 200 if rng.random() > 0.05 else 500
            stamp = t if i % 2 else f"{t:.3f}"
            w.writerow([stamp, json.dumps(body), json.dumps(response), f"gpt-4o{c}", status,
                        conv["sid"], c])
