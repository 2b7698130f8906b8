"""Reading cache traces (cctrace): profile a directory of hand-built and random trace files and
compare with the format's reference replay, re-implemented here from the specification (a set of
seen ids per conversation, a fresh set per sub-agent, optional warm prefix)."""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ltl_test_env import run, tempdir  # noqa: E402


def prefix_match(ids, cache):
    n = 0
    for i in ids:
        if i not in cache:
            break
        n += 1
    return n


def reference(trace, warm_prefix=False):
    """simulate_cache from the specification, returning (parent, subagent) [hit_blocks, blocks]."""
    parent = [0, 0]
    sub = [0, 0]

    def warm(holder, requests):
        if not warm_prefix:
            return set()
        n = (holder.get("tool_tokens", 0) + holder.get("system_tokens", 0)) // trace["block_size"]
        for r in requests:
            if r.get("type") != "subagent":
                return set(r["hash_ids"][:n])
        return set()

    def replay(holder, requests, acc):
        cache = warm(holder, requests)
        for req in requests:
            if req.get("type") == "subagent":
                replay(req, req["requests"], sub)  # fresh cache, discarded afterwards
            else:
                acc[0] += prefix_match(req["hash_ids"], cache)
                acc[1] += len(req["hash_ids"])
                cache.update(req["hash_ids"])

    replay(trace, trace["requests"], parent)
    return parent, sub


def request(t, ids, typ="s", **kw):
    r = {"t": t, "type": typ, "model": "claude-sonnet-4-20250514", "in": len(ids) * 64 + 5,
         "out": 100, "hash_ids": ids, "input_types": ["text"], "output_types": ["text"],
         "stop": "end_turn"}
    r.update(kw)
    return r


def hand_built():
    """Two conversations whose local ids collide on purpose, one with sub-agents (one nested) that
    reuse the parent's local ids, plus a conversation split in two segments."""
    a = {"id": "aaaaaaaa-001", "models": ["m"], "block_size": 64, "tool_tokens": 130,
         "system_tokens": 70, "requests": [
             request(0.0, [1, 2, 3, 4]),
             request(1.5, [1, 2, 3, 4, 5, 6]),
             {"t": 2.0, "type": "subagent", "agent_id": "abc1234", "subagent_type": "Explore",
              "duration_ms": 3000, "total_tokens": 900, "tool_use_count": 2, "status": "completed",
              "models": ["h"], "tool_tokens": 64, "system_tokens": 64, "requests": [
                  request(0.0, [1, 2, 3]),  # same local ids as the parent: must not hit
                  request(1.0, [1, 2, 3, 7]),
                  {"t": 1.5, "type": "subagent", "agent_id": "nest123", "requests": [
                      request(0.0, [1, 2]), request(0.2, [1, 2, 9])]},
              ]},
             request(5.0, [1, 2, 3, 4, 5, 6, 8]),
             {"t": 6.0, "type": "subagent", "agent_id": "def5678", "subagent_type": "Plan",
              "tool_tokens": 0, "system_tokens": 0, "requests": [request(0.0, [1, 2, 3])]},
             request(9.0, [1, 2, 10]),
         ]}
    b = {"id": "bbbbbbbb-002", "models": ["m"], "block_size": 64, "tool_tokens": 64,
         "system_tokens": 64, "requests": [
             request(0.0, [1, 2, 3]), request(0.5, [1, 2, 3, 4]), request(0.7, [1, 2, 3, 4], "n")]}
    s1 = {"id": "cccccccc-003_s1", "models": ["m"], "block_size": 64, "tool_tokens": 0,
          "system_tokens": 0, "requests": [request(0.0, [1, 2]), request(3.0, [1, 2, 3])]}
    s2 = {"id": "cccccccc-003_s2", "models": ["m"], "block_size": 64, "tool_tokens": 0,
          "system_tokens": 0, "requests": [request(0.0, [1, 2, 3]), request(1.0, [1, 2, 3, 4])]}
    return {"a.json": a, "b.json": b, "c_s1.json": s1, "c_s2.json": s2}


def random_trace(rng, idx):
    bs = 64
    reqs = []
    t = 0.0
    ids = []
    nxt = [1]

    def grow(ids):
        if rng.random() < 0.1 and ids:  # major reset
            keep = rng.randrange(len(ids))
            ids = ids[:keep]
        for _ in range(rng.randrange(0, 6)):
            ids = ids + [nxt[0]]
            nxt[0] += 1
        return ids

    for _ in range(rng.randrange(1, 25)):
        t += rng.random() * 10
        if rng.random() < 0.15:
            sub_ids = []
            sreqs = []
            st = 0.0
            for _ in range(rng.randrange(0, 6)):
                st += rng.random()
                sub_ids = sub_ids[:rng.randrange(len(sub_ids) + 1)] + \
                    [rng.randrange(1, nxt[0] + 3) for _ in range(rng.randrange(1, 4))]
                sreqs.append(request(round(st, 3), sub_ids))
            reqs.append({"t": round(t, 3), "type": "subagent", "agent_id": f"r{idx:06d}",
                         "tool_tokens": rng.randrange(0, 200), "system_tokens": rng.randrange(0, 200),
                         "requests": sreqs})
        else:
            ids = grow(ids)
            reqs.append(request(round(t, 3), ids, rng.choice(["s", "n"])))
    return {"id": f"{idx:08x}-rnd", "models": ["m"], "block_size": bs,
            "tool_tokens": rng.randrange(0, 300), "system_tokens": rng.randrange(0, 300),
            "requests": reqs}


def write_dir(traces):
    d = tempdir()
    for name, tr in traces.items():
        with open(os.path.join(d, name), "w") as f:
            json.dump(tr, f)
    return d


def profile(path, *extra):
    out = os.path.join(tempdir(), "r")
    p = run(["profile", path, "--warmup", "0", "-o", out] + list(extra))
    assert p.returncode == 0, p.stderr
    with open(out + ".json") as f:
        return json.load(f), p


def check_against_reference(traces, warm_prefix):
    d = write_dir(traces)
    rep, _ = profile(d, *(["--warm-prefix"] if warm_prefix else []))
    cc = rep["cctrace"]
    assert rep["input"]["format"] == "cctrace", rep["input"]
    assert cc["files"] == len(traces)
    names = sorted(traces)
    tot_hit = tot_blocks = 0
    par_hit = par_blocks = 0
    for name, conv in zip(names, cc["conversations"]):
        tr = traces[name]
        assert conv["id"] == tr["id"]
        (ph, pb), (sh, sb) = reference(tr, warm_prefix)
        got_p, got_s = conv["parent"], conv["subagent"]
        assert (got_p["hit_blocks"], got_p["blocks"]) == (ph, pb), (name, got_p, ph, pb)
        assert (got_s["hit_blocks"], got_s["blocks"]) == (sh, sb), (name, got_s, sh, sb)
        tot_hit += ph + sh
        tot_blocks += pb + sb
        par_hit += ph
        par_blocks += pb
    ref = cc["reference_replay"]["parent"]
    assert (ref["hit_blocks"], ref["blocks"]) == (par_hit, par_blocks)
    # The main engine (one-pass LRU curve, unbounded, cold) agrees with the reference: contexts
    # never share ids, so one global unbounded cache equals a set per context.
    cold = rep["cold_ceiling"]
    assert cold["hit_tokens"] == tot_hit * 64, (cold, tot_hit)
    assert cold["measured_tokens"] == tot_blocks * 64, (cold, tot_blocks)
    assert rep["ceiling"]["hit_tokens"] == tot_hit * 64  # --warmup 0
    real = sum(1 for tr in traces.values() for _ in walk(tr["requests"]))
    assert rep["counts"]["requests"] == real, (rep["counts"], real)
    return rep


def walk(requests):
    for r in requests:
        if r.get("type") == "subagent":
            yield from walk(r["requests"])
        else:
            yield r


def main():
    traces = hand_built()
    rep = check_against_reference(traces, warm_prefix=False)
    a = rep["cctrace"]["conversations"][0]
    # Hand-computed for conversation a: parent hits 0+4+6+2 of 4+6+7+3 blocks; sub-agents: first
    # 0+3 of 3+4, nested 0+2 of 2+3, second 0 of 3 — they never hit the parent's ids.
    assert (a["parent"]["hit_blocks"], a["parent"]["blocks"]) == (12, 20), a
    assert (a["subagent"]["hit_blocks"], a["subagent"]["blocks"]) == (5, 15), a
    assert a["subagents"] == 3 and rep["cctrace"]["subagents"] == 3
    # Segments are separate files with separate caches (the reference replays each file alone).
    s2 = rep["cctrace"]["conversations"][3]
    assert s2["segment"] == 2 and s2["parent"]["hit_blocks"] == 3, s2
    assert rep["cctrace"]["usage"]["parent"]["input"] == sum(
        r["in"] for tr in traces.values() for r in tr["requests"] if r.get("type") != "subagent")

    rep = check_against_reference(traces, warm_prefix=True)
    a = rep["cctrace"]["conversations"][0]
    # warm prefix (130 + 70) // 64 = 3 blocks: the first request hits 3 more; the first sub-agent
    # (64 + 64) // 64 = 2 blocks, the nested one has no tool/system tokens.
    assert a["parent"]["hit_blocks"] == 15, a
    assert a["subagent"]["hit_blocks"] == 7, a
    assert rep["cctrace"]["warm_prefix"] is True
    assert rep["counts"]["requests"] == 16, rep["counts"]

    rng = random.Random(7)
    rnd = {f"r{i:03d}.json": random_trace(rng, i) for i in range(40)}
    check_against_reference(rnd, warm_prefix=False)
    check_against_reference(rnd, warm_prefix=True)

    # One file, detected from content.
    d = write_dir({"a.json": traces["a.json"]})
    rep, _ = profile(os.path.join(d, "a.json"))
    assert rep["input"]["format"] == "cctrace"
    assert rep["cctrace"]["conversations"][0]["parent"]["hit_blocks"] == 12

    # Bad files and bad requests are skipped and counted, with file:position on stderr.
    bad = dict(traces)
    broken = json.loads(json.dumps(traces["b.json"]))
    del broken["requests"][1]["hash_ids"]
    broken["requests"][2]["hash_ids"] = [1, -2]
    bad["b.json"] = broken
    d = write_dir(bad)
    with open(os.path.join(d, "z.json"), "w") as f:
        f.write("{not json")
    # Issue 35, item 19: a block_size of 2^31 is over the limit, not "not a positive integer".
    huge = json.loads(json.dumps(traces["b.json"]))
    huge["block_size"] = 2 ** 31
    with open(os.path.join(d, "y.json"), "w") as f:
        json.dump(huge, f)
    with open(os.path.join(d, "notes.txt"), "w") as f:
        f.write("ignored")
    rep, p = profile(d)
    sk = rep["counts"]["skipped_by_reason"]
    assert sk["missing hash_ids"] == {"count": 1, "first_lines": [2]}, sk
    assert sk["negative hash id"]["count"] == 1, sk
    assert sk["trace file: invalid JSON"]["count"] == 1, sk
    assert sk["trace file: block_size is above the limit of 16777216 tokens"]["count"] == 1, sk
    assert "trace file: block_size is not a positive integer" not in sk, sk
    assert rep["cctrace"]["ignored_files"] == 1
    assert f"{os.path.join(d, 'b.json')}:2: missing hash_ids" in p.stderr, p.stderr
    assert f"{os.path.join(d, 'z.json')}:1: trace file: invalid JSON" in p.stderr, p.stderr

    # A directory read as another format is refused.
    p = run(["profile", d, "--format", "mooncake", "-o", os.path.join(tempdir(), "x")])
    assert p.returncode == 2 and "directory" in p.stderr, p.stderr
    print("ok")


if __name__ == "__main__":
    main()
