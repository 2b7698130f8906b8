"""Deterministic generator of mixed tokenizer test text (bytes), shared by the tokenizer oracle
tests and the tokenizer benchmark. Records are NUL-separated (NUL never occurs inside a record) so
they may contain newlines. Kinds: English prose with mixed-case contractions, code, JSON, CJK,
emoji and ZWJ sequences, long whitespace runs, digits of many scripts, random Unicode (including
letters added in Unicode 15-16), ill-formed UTF-8 next to text, and special-token look-alikes."""
import json
import random

WORDS = ("the of and to in is you that it he was for on are as with his they I at be this have "
         "from or one had by word but not what all were we when your can said there use an each "
         "which she do how their if will up other about out many then them these so some her would "
         "make like him into time has look two more write go see number no way could people my than "
         "first water been call who oil its now find long down day did get come made may part cache "
         "prefix token request gateway latency throughput model prompt").split()
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve", "'M", "'lL",
                "'D", "\u2019s", "'\u017f", "'x"]
EMOJI = ["\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466", "\U0001F3F3\uFE0F\u200D\U0001F308",
         "\U0001F44D\U0001F3FD", "\U0001F1EF\U0001F1F5", "1\uFE0F\u20E3", "\u2764\uFE0F", "\U0001F600",
         "\U0001F9D1\U0001F3FF\u200D\U0001F4BB", "\U0001FAE8", "\u263A", "\U0001F469\u200D\u2764\uFE0F\u200D\U0001F48B\u200D\U0001F468"]
WHITESPACE = [" ", "  ", "\t", "\n", "\r\n", "\n\n", " \n", "\u00a0", "\u3000", "\u2028", "\u180e",
              "\u200b", "\u0085", "\u2009", "\x0b", "\x0c", "\u205f", "\u1680"]
DIGITS = ["0123456789", "\uff10\uff11\uff12\uff13", "\u0660\u0661\u0662\u0663", "\u0966\u0967\u0968",
          "\u00b2\u00b3\u00b9", "\u00bd\u00bc", "\u2160\u216b", "\U0001D7CE\U0001D7CF", "\u0e50\u0e51"]
# Blocks whose letters or digits are new in Unicode 15-16 (PCRE2 10.42 knows Unicode 14).
NEW_BLOCKS = [(0x31350, 0x323AF), (0x2EBF0, 0x2EE5D), (0x10D40, 0x10D8F), (0x11380, 0x113FF),
              (0x11F00, 0x11F5F), (0x1E4D0, 0x1E4FF), (0x1E5D0, 0x1E5FF), (0x16D40, 0x16D7F),
              (0x11BC0, 0x11BFF), (0x10EC0, 0x10EFF), (0x1E030, 0x1E08F), (0x11B00, 0x11B5F),
              (0x1CC00, 0x1CEBF), (0x105C0, 0x105FF), (0x16100, 0x1613F), (0x0C5C, 0x0C5D),
              (0x1DF25, 0x1DF2A), (0xA7CB, 0xA7DC), (0x1C89, 0x1C8A), (0x10D4A, 0x10D65),
              (0x11F00, 0x11F10), (0x1F8B0, 0x1F8BB), (0x10EFC, 0x10EFF), (0x0CF3, 0x0CF3)]
INVALID = [b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xc0\xaf", b"\xe0\x80\x80",
           b"\xed\xa0\x80", b"\xf5\x80\x80\x80", b"\xf4\x90\x80\x80", b"\xff", b"\xfe", b"\xc2",
           b"\xe1\x80", b"\xf0\x80"]
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|fim_prefix|>", "<|endofprompt|>",
            "<|begin_of_text|>", "<|eot_id|>"]


def prose(r):
    out = []
    for _ in range(r.randint(3, 40)):
        w = r.choice(WORDS)
        c = r.random()
        if c < 0.1:
            w = w.upper()
        elif c < 0.3:
            w = w.capitalize()
        if r.random() < 0.08:
            w += r.choice(CONTRACTIONS)
        if r.random() < 0.05:
            w = str(r.randint(0, 10 ** r.randint(1, 12)))
        out.append(w)
        if r.random() < 0.1:
            out.append(r.choice([",", ".", "!", "?", ";", ":", " -", "...", "\"", "(", ")"]))
    return " ".join(out) + r.choice([".", "!\n", "?\n\n", ".\n", " ", "\n"])


def ident(r):
    parts = [r.choice(WORDS).lower() for _ in range(r.randint(1, 3))]
    return r.choice(["_".join(parts), parts[0] + "".join(p.capitalize() for p in parts[1:]),
                     "".join(p.capitalize() for p in parts), "_".join(parts).upper()])


def code(r):
    ind = r.choice(["  ", "    ", "\t"])
    lines = []
    for _ in range(r.randint(2, 20)):
        depth = r.randint(0, 4)
        kind = r.random()
        if kind < 0.2:
            line = f"def {ident(r)}({ident(r)}, {ident(r)}={r.randint(0, 99)}):"
        elif kind < 0.4:
            line = f"if ({ident(r)} != nullptr && {ident(r)}->{ident(r)}() >= {r.randint(0, 9999)}) {{"
        elif kind < 0.55:
            line = f"// {prose(r).strip()}"
        elif kind < 0.7:
            line = f"const {ident(r)} = \"{r.choice(WORDS)}\\n\" + `${{{ident(r)}}}`;"
        elif kind < 0.85:
            line = f"for (int i = 0; i < {ident(r)}.size(); ++i) {{ sum += v[i] * 0x{r.randint(0, 65535):04X}; }}"
        else:
            line = r.choice(["}", "};", "return None", "    ", "#include <vector>", "fn main() -> Result<(), Box<dyn Error>> {"])
        lines.append(ind * depth + line + r.choice([" ", "", "  "]) * (r.random() < 0.1))
    return r.choice(["\n", "\r\n"]).join(lines) + "\n"


def json_value(r, depth=0):
    c = r.random()
    if depth > 3 or c < 0.3:
        return r.choice([r.randint(-10 ** 9, 10 ** 9), r.random() * 1e6, True, None, prose(r).strip(),
                         random_unicode(r, 5)])
    if c < 0.65:
        return {ident(r): json_value(r, depth + 1) for _ in range(r.randint(1, 5))}
    return [json_value(r, depth + 1) for _ in range(r.randint(1, 5))]


def json_text(r):
    v = json_value(r)
    return json.dumps(v, ensure_ascii=r.random() < 0.3, indent=r.choice([None, 2, 4, "\t"])) + "\n"


def cjk(r):
    out = []
    for _ in range(r.randint(5, 80)):
        c = r.random()
        if c < 0.5:
            out.append(chr(r.randint(0x4E00, 0x9FFF)))
        elif c < 0.65:
            out.append(chr(r.randint(0x3041, 0x3096)))
        elif c < 0.75:
            out.append(chr(r.randint(0x30A1, 0x30FA)))
        elif c < 0.85:
            out.append(chr(r.randint(0xAC00, 0xD7A3)))
        elif c < 0.92:
            out.append(r.choice(["\u3002", "\u3001", "\u300c", "\u300d", "\uff01", "\uff1f", "\uff08"]))
        else:
            out.append(r.choice(WORDS) + r.choice(["", " "]))
    return "".join(out)


def emoji(r):
    return "".join(r.choice(EMOJI) + r.choice(["", " ", "", "\u200d"]) for _ in range(r.randint(1, 12)))


def whitespace(r):
    out = []
    for _ in range(r.randint(1, 10)):
        c = r.random()
        if c < 0.2:
            out.append(" " * r.randint(1, 600))
        elif c < 0.3:
            out.append("\n" * r.randint(1, 30))
        elif c < 0.4:
            out.append("\t" * r.randint(1, 20))
        else:
            out.append("".join(r.choice(WHITESPACE) for _ in range(r.randint(1, 12))))
        if r.random() < 0.5:
            out.append(r.choice(WORDS + ["!", "}", "1", "\u4e2d", "\U0001F600"]))
    return "".join(out)


def digits(r):
    out = []
    for _ in range(r.randint(1, 10)):
        c = r.random()
        if c < 0.5:
            out.append(str(r.randint(0, 10 ** r.randint(1, 40))))
        elif c < 0.7:
            out.append(f"{r.random() * 10 ** r.randint(0, 9):.{r.randint(0, 6)}f}")
        else:
            d = r.choice(DIGITS)
            out.append("".join(r.choice(d) for _ in range(r.randint(1, 9))))
        out.append(r.choice(["", " ", ",", ".", "x", "\u4e00", "-"]))
    return "".join(out)


def random_unicode(r, n=None):
    out = []
    for _ in range(n or r.randint(1, 60)):
        c = r.random()
        if c < 0.35:
            cp = r.randint(0x80, 0x2FFFF)
        elif c < 0.6:
            lo, hi = r.choice(NEW_BLOCKS)
            cp = r.randint(lo, hi)
        elif c < 0.7:
            cp = r.randint(0x300, 0x36F)  # combining marks
        elif c < 0.8:
            cp = r.randint(0x20, 0x7E)
        else:
            cp = r.randint(0x80, 0x10FFFF)
        if 0xD800 <= cp <= 0xDFFF:
            cp = 0xFFFD
        out.append(chr(cp))
    return "".join(out)


def specials(r):
    return r.choice(SPECIALS) + r.choice(["", "\n", "user", " ", "assistant\n"])


KINDS = [(prose, 30), (code, 15), (json_text, 10), (cjk, 10), (emoji, 5), (whitespace, 8),
         (digits, 7), (random_unicode, 10), (specials, 3)]


def record(r, with_invalid=True, kinds=None):
    """One record of mixed text (bytes, without NUL)."""
    parts = []
    funcs, weights = zip(*(kinds or KINDS))
    for _ in range(r.randint(1, 12)):
        parts.append(r.choices(funcs, weights)[0](r).encode("utf-8"))
        if with_invalid and r.random() < 0.04:
            parts.append(r.choice(INVALID))
    return b"".join(parts).replace(b"\0", b"")


def corpus(size_bytes, seed=1, with_invalid=True, kinds=None):
    """NUL-separated records totalling at least size_bytes; `kinds` = [(generator, weight)]."""
    r = random.Random(seed)
    out = bytearray()
    while len(out) < size_bytes:
        out += record(r, with_invalid, kinds) + b"\0"
    return bytes(out)
