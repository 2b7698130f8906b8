#!/usr/bin/env python3
"""Derives src/tokenize/unicode_delta.cc: the code points that tiktoken's regex engine (Rust, Unicode
16) puts in \\p{L}, \\p{N}, \\p{Lu}, \\p{Ll}, \\p{Lt}, \\p{Lm}, \\p{Lo} or \\p{M}, and that Hugging Face
tokenizers' puts in \\p{P} or \\p{S} (DeepSeek-V3's split patterns), but PCRE2 10.42 (Unicode 14) does
not. Development tool, run once per PCRE2 / reference upgrade:

    tests/oracle/setup-node-oracle.sh build/node-oracle
    NODE_PATH=build/node-oracle/node_modules scripts/derive-unicode-delta.py > src/tokenize/unicode_delta.cc

How: Python 3.11's unicodedata is Unicode 14.0, the version PCRE2 10.42 was built with. Node's
regex engine (ICU) knows a newer Unicode; every code point whose relevant category differs between
the two is then classified by tiktoken itself, through encodings whose token ids reveal the split:
  N: cl100k_base "1" c "23" ends with the token "3" only if c joins the digit run \\p{N}{1,3};
  L: cl100k_base c "'s" ends with the token "'s" only if c is a letter or digit (otherwise c and the
     apostrophe form one punctuation piece and "s" stands alone);
  M: the same probe with o200k_base, whose letter runs include \\p{M}.
A code point tiktoken treats as letter/digit/mark takes its subcategory from node's Unicode data.
P and S are asked of npm `tokenizers` directly: a tokenizer whose only pre-tokenizer is
Split(\\p{P} or \\p{S}, Removed) and whose WordLevel model maps every piece to one unknown token
gives no token for a code point exactly when its regex engine puts it in the class.
"""
import json
import os
import subprocess
import sys
import unicodedata

assert unicodedata.unidata_version == "14.0.0", unicodedata.unidata_version

PROPS = ["L", "N", "Lu", "Ll", "Lt", "Lm", "Lo", "M"]
HF_PROPS = ["P", "S"]

NODE = r"""
const { get_encoding } = require("tiktoken");
const cl = get_encoding("cl100k_base"), o2 = get_encoding("o200k_base");
const props = %s;
const res = props.map(p => new RegExp("^\\p{" + p + "}$", "u"));
const last = (enc, s) => { const ids = enc.encode_ordinary(s); return ids[ids.length - 1]; };
const three = last(cl, "3"), apos_s = last(cl, "'s"), apos_s_o2 = last(o2, "'s");
const out = {};
for (let cp = 0; cp <= 0x10FFFF; cp++) {
  if (cp >= 0xD800 && cp <= 0xDFFF) continue;
  const c = String.fromCodePoint(cp);
  const node = props.filter((p, i) => res[i].test(c));
  out[cp] = node;
}
const cands = JSON.parse(require("fs").readFileSync(0, "utf8"));
const probe = {};
for (const cp of cands) {
  const c = String.fromCodePoint(cp);
  probe[cp] = {
    N: last(cl, "1" + c + "23") === three,
    LN: last(cl, c + "'s") === apos_s,
    LNM: last(o2, c + "'s") === apos_s_o2,
  };
}
process.stdout.write(JSON.stringify({ node: out, probe }));
"""

HF_NODE = r"""
const { Tokenizer } = require("tokenizers");
const props = %s;
const cands = JSON.parse(require("fs").readFileSync(0, "utf8"));
(async () => {
  const out = {};
  for (const p of props) {
    const tok = Tokenizer.fromString(JSON.stringify({
      version: "1.0", added_tokens: [], normalizer: null, post_processor: null, decoder: null,
      pre_tokenizer: { type: "Split", pattern: { Regex: "\\p{" + p + "}" }, behavior: "Removed",
                       invert: false },
      model: { type: "WordLevel", vocab: { "[UNK]": 0 }, unk_token: "[UNK]" } }));
    const texts = cands.map(cp => String.fromCodePoint(cp));
    const enc = await tok.encodeBatch(texts);
    out[p] = cands.filter((cp, i) => enc[i].getIds().length === 0);
  }
  process.stdout.write(JSON.stringify(out));
})();
"""


def hf_classes(cps):
    """{prop: [code points npm tokenizers puts in \\p{prop}]} among cps, for HF_PROPS."""
    return json.loads(subprocess.run(["node", "-e", HF_NODE % json.dumps(HF_PROPS)],
                                     input=json.dumps(cps), capture_output=True, text=True,
                                     check=True).stdout)


def u14(cp):
    cat = unicodedata.category(chr(cp))
    s = {cat}
    if cat[0] in "LNM":
        s.add(cat[0])
    return {p for p in PROPS if p in s}


def main():
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    # First pass: node classes for everything (probe list empty), to find candidates.
    run = lambda cands: json.loads(subprocess.run(
        ["node", "-e", NODE % json.dumps(PROPS)], input=json.dumps(cands), capture_output=True,
        text=True, check=True).stdout)
    first = run([])
    cands = [cp for cp in cps if set(first["node"][str(cp)]) != u14(cp)]
    data = run(cands)
    extra = {p: [] for p in PROPS}
    missing = {p: [] for p in PROPS}
    for cp in cands:
        pr = data["probe"][str(cp)]
        node = set(data["node"][str(cp)])
        is_n = pr["N"]
        is_l = pr["LN"] and not is_n
        is_m = pr["LNM"] and not pr["LN"]
        ref = set()
        if is_n:
            ref.add("N")
        if is_l:
            ref.add("L")
            ref |= {p for p in node if p in ("Lu", "Ll", "Lt", "Lm", "Lo")}
            if not ref & {"Lu", "Ll", "Lt", "Lm", "Lo"}:
                ref.add("Lo")
        if is_m:
            ref.add("M")
        old = u14(cp)
        for p in PROPS:
            if p in ref and p not in old:
                extra[p].append(cp)
            if p in old and p not in ref:
                missing[p].append(cp)
    # P and S: candidates are the code points that are not P / S in Unicode 14 and are not
    # unassigned-or-P/S-free in node's data either (node knows the newest Unicode).
    node_ps = json.loads(subprocess.run(
        ["node", "-e", "const cps=JSON.parse(require('fs').readFileSync(0,'utf8'));"
         "const r={P:/^\\p{P}$/u,S:/^\\p{S}$/u};const o={};"
         "for(const p in r)o[p]=cps.filter(c=>r[p].test(String.fromCodePoint(c)));"
         "process.stdout.write(JSON.stringify(o))"],
        input=json.dumps(cps), capture_output=True, text=True, check=True).stdout)
    for p in HF_PROPS:
        old = {cp for cp in cps if unicodedata.category(chr(cp))[0] == p}
        cand = sorted(set(node_ps[p]) - old)
        extra[p] = sorted(hf_classes(cand)[p]) if cand else []
        PROPS.append(p)
    for p in PROPS:
        if missing.get(p):
            print(f"warning: {len(missing[p])} code points are \\p{{{p}}} in PCRE2 but not in "
                  f"tiktoken: {missing[p][:10]}", file=sys.stderr)

    def ranges(cps):
        out, start, prev = [], None, None
        for cp in cps:
            if start is None:
                start = prev = cp
            elif cp == prev + 1:
                prev = cp
            else:
                out.append((start, prev))
                start = prev = cp
        if start is not None:
            out.append((start, prev))
        return out

    lines = []
    for p in PROPS:
        rs = ranges(extra[p])
        items = [f"\\\\x{{{a:X}}}" if a == b else f"\\\\x{{{a:X}}}-\\\\x{{{b:X}}}" for a, b in rs]
        n = len(extra[p])
        print(f"{p}: {n} code points in {len(rs)} ranges", file=sys.stderr)
        chunks, cur = [], ""
        for it in items:  # break lines between class members, never inside one
            if len(cur) + len(it) > 84:
                chunks.append(cur)
                cur = ""
            cur += it
        chunks = chunks + [cur]
        lit = "\n".join(f'      "{c}"' for c in chunks)
        lines.append(f'  if (prop == "{p}") {{\n    // {n} code points, {len(rs)} ranges\n    return\n{lit};\n  }}')
    print("""// Unicode 15-16 additions to the letter, digit, mark, punctuation and symbol classes, relative to
// PCRE2 10.42's Unicode 14 tables. Generated by scripts/derive-unicode-delta.py (which checks each
// code point against tiktoken or npm tokenizers itself); do not edit by hand.
#include "tokenize/unicode_delta.h"

namespace ltl {

std::string_view UnicodeDeltaMembers(std::string_view prop) {
""" + "\n".join(lines) + """
  return {};
}

}  // namespace ltl""")


if __name__ == "__main__":
    main()
