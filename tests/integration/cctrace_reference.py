"""Independent reference for cache-trace block ids, written from the format's description with the
Python standard library only: the serialization (json.dumps and a hand-written re-implementation
that must agree with it byte for byte), the SHA-256 chain, per-file numbering, and the reference
replay (a set of seen ids per file, a fresh set per sub-agent). Token ids come from outside (the
tool's own `tokenize` command, or npm tiktoken under node)."""
import hashlib
import json

DROP = ("cache_control", "signature")


def strip(obj):
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items() if k not in DROP}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


def _str(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif 0x20 <= o < 0x7F:
            out.append(ch)
        elif o >= 0x10000:
            o -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
        else:
            out.append("\\u%04x" % o)
    out.append('"')
    return "".join(out)


def handwritten(obj):
    """json.dumps(obj, separators=(',', ':')) re-implemented by hand."""
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if isinstance(obj, int):
        return str(obj)
    if isinstance(obj, float):
        return repr(obj)
    if isinstance(obj, str):
        return _str(obj)
    if isinstance(obj, list):
        return "[" + ",".join(handwritten(v) for v in obj) + "]"
    return "{" + ",".join(_str(k) + ":" + handwritten(v) for k, v in obj.items()) + "}"


def serialize(body):
    """(whole, tools, system) strings of a request body, as the format defines them."""
    parts = []
    for key in ("tools", "system", "messages"):
        if key in body:
            s = dumps(strip(body[key]))
            assert s == handwritten(strip(body[key])), f"hand-written serializer disagrees on {key}"
            parts.append(s)
        else:
            parts.append("")
    return "".join(parts), parts[0], parts[1]


def chain(salt, tokens, block_size):
    out, prev = [], ""
    for i in range(len(tokens) // block_size):
        block = tokens[i * block_size:(i + 1) * block_size]
        content = f"{salt}:{prev}:{i}:" + " ".join(map(str, block))
        prev = hashlib.sha256(content.encode()).hexdigest()[:16]
        out.append(prev)
    return out


class Numbering:
    def __init__(self):
        self.ids = {}

    def __call__(self, hashes):
        return [self.ids.setdefault(h, len(self.ids) + 1) for h in hashes]


def prefix_match(ids, cache):
    n = 0
    for i in ids:
        if i not in cache:
            break
        n += 1
    return n


def simulate_cache(trace):
    """The format's reference replay: [hit blocks, blocks] for parent and sub-agent requests."""
    parent, sub = [0, 0], [0, 0]
    cache = set()
    for req in trace["requests"]:
        if req["type"] == "subagent":
            sc = set()
            for r in req["requests"]:
                sub[0] += prefix_match(r["hash_ids"], sc)
                sub[1] += len(r["hash_ids"])
                sc.update(r["hash_ids"])
        else:
            parent[0] += prefix_match(req["hash_ids"], cache)
            parent[1] += len(req["hash_ids"])
            cache.update(req["hash_ids"])
    return parent, sub
