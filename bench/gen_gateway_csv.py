#!/usr/bin/env python3
"""Writes a large synthetic gateway CSV for benchmarks (Python standard library only).

Agentic conversations through a gateway: a handful of shared system prompts with skewed
popularity, tool definitions, tool-calling loops that resend the whole history every turn, several
models, sparse session ids, LiteLLM-style timestamps, usage on some rows. Each message is serialized
once and reused across the turns that resend it, so gigabytes are written in about a minute.

Usage: gen_gateway_csv.py OUT.csv --mb 1024 [--seed 1]
"""
import argparse
import json
import random
import time

WORDS = ("account billing cache latency deploy error export invoice kernel ledger merge network "
         "order payment queue refund region release report request schema server session shard "
         "storage ticket timeout token update upgrade usage user version volume warning window "
         "worker build branch commit config cluster column table index query plan budget").split()


def text(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    target = int(a.mb * (1 << 20))
    systems = [json.dumps({"role": "system", "content": f"Prompt {i}. " + text(rng, 300 + 500 * i)})
               for i in range(6)]
    popularity = [0.45, 0.25, 0.12, 0.08, 0.06, 0.04]
    models = ["glm-4.5", "qwen3-32b", "deepseek-chat", "llama-3.1-70b", "claude-sonnet-4", "gpt-4.1"]
    tools = json.dumps([{"type": "function", "function": {
        "name": f"tool_{k}", "description": text(rng, 20),
        "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}}}} for k in range(8)])
    t = 1753340000.0
    written = 0
    active = []  # conversations in flight: [system index, serialized messages, model, session]
    with open(a.out, "w", encoding="utf-8", newline="") as f:
        f.write("startTime,model_name,status_code,session_id,request_json,response_json\n")
        n = 0
        while written < target:
            if len(active) < 64 or rng.random() < 0.05:
                s = rng.choices(range(len(systems)), popularity)[0]
                sess = f"s{n:x}" if rng.random() < 0.1 else ""
                active.append([s, [systems[s], json.dumps({"role": "user", "content": text(rng, 60)})],
                               models[s], sess])
            c = rng.randrange(len(active))
            conv = active[c]
            body = ('{"model": "' + conv[2] + '", "stream": true, "tools": ' + tools +
                    ', "messages": [' + ", ".join(conv[1]) + "]}")
            t += rng.expovariate(20.0)
            stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}"
            response = ""
            if rng.random() < 0.3:
                response = json.dumps({"usage": {"prompt_tokens": len(body) // 4, "completion_tokens": 50}})
            row = (f'{stamp},{conv[2]},200,{conv[3]},"' + body.replace('"', '""') + '","' +
                   response.replace('"', '""') + '"\n')
            f.write(row)
            written += len(row)
            n += 1
            call = f"call_{n}"
            conv[1].append(json.dumps({"role": "assistant", "content": None, "tool_calls": [
                {"id": call, "type": "function", "function": {"name": "tool_1", "arguments": "{}"}}]}))
            conv[1].append(json.dumps({"role": "tool", "tool_call_id": call,
                                       "content": text(rng, rng.randint(50, 400))}))
            if len(conv[1]) > 40 or rng.random() < 0.04:
                active.pop(c)


if __name__ == "__main__":
    main()
