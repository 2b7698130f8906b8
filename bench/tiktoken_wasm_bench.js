// Baseline for bench/run-tokenizer-bench.sh: OpenAI tiktoken's WASM build (npm) encoding the same
// NUL-separated corpus with encode_ordinary, single thread, load time excluded.
// Usage: NODE_PATH=... node tiktoken_wasm_bench.js ENCODING FILE
const fs = require("fs");
const { get_encoding } = require("tiktoken");
const [name, file] = process.argv.slice(2);
const enc = get_encoding(name);
const buf = fs.readFileSync(file);
const records = new TextDecoder("utf-8").decode(buf).split("\0").filter((r) => r.length);
enc.encode_ordinary(records[0] || "warm up");
const t0 = process.hrtime.bigint();
let tokens = 0;
for (const r of records) tokens += enc.encode_ordinary(r).length;
const s = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(`${name} (tiktoken WASM): ${(buf.length / 1e6).toFixed(1)} MB, ${tokens} tokens; ` +
  `encode ${s.toFixed(3)} s = ${(tokens / s / 1e6).toFixed(2)} Mtok/s, ${(buf.length / s / 1e6).toFixed(1)} MB/s`);
enc.free();
