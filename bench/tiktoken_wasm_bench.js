// Baseline for bench/run-tokenizer-bench.sh: OpenAI tiktoken's WASM build (npm) encoding the same
// NUL-separated corpus with encode_ordinary, single thread, load time excluded; wall and process
// CPU time.
// Usage: NODE_PATH=... node tiktoken_wasm_bench.js ENCODING FILE
const fs = require("fs");
const { get_encoding } = require("tiktoken");
const [name, file] = process.argv.slice(2);
const enc = get_encoding(name);
const buf = fs.readFileSync(file);
const records = new TextDecoder("utf-8").decode(buf).split("\0").filter((r) => r.length);
enc.encode_ordinary(records[0] || "warm up");
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
let tokens = 0;
for (const r of records) tokens += enc.encode_ordinary(r).length;
const s = Number(process.hrtime.bigint() - t0) / 1e9;
const c = process.cpuUsage(c0);
const cpu = (c.user + c.system) / 1e6;  // the whole process, as the C++ side measures itself
console.log(`${name} (tiktoken WASM): ${(buf.length / 1e6).toFixed(1)} MB, ${tokens} tokens; ` +
  `encode wall ${s.toFixed(3)} s = ${(tokens / s / 1e6).toFixed(2)} Mtok/s, ` +
  `${(buf.length / s / 1e6).toFixed(1)} MB/s; encode CPU ${cpu.toFixed(3)} s = ` +
  `${(tokens / cpu / 1e6).toFixed(2)} Mtok/s`);
enc.free();
