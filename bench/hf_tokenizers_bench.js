// Baseline for bench/run-tokenizer-bench.sh's tokenizer.json rows: Hugging Face tokenizers (npm
// binding of the Rust crate) encoding the same NUL-separated corpus with addSpecialTokens=false,
// one record at a time (awaited, so one encode runs at a time), load time excluded; wall and process
// CPU time (the binding encodes on a libuv worker thread; the script pins node to one core).
// Usage: NODE_PATH=... node hf_tokenizers_bench.js TOKENIZER_JSON FILE
const fs = require("fs");
const { Tokenizer } = require("tokenizers");
const [path, file] = process.argv.slice(2);
const tok = Tokenizer.fromFile(path);
const buf = fs.readFileSync(file);
const records = new TextDecoder("utf-8").decode(buf).split("\0").filter((r) => r.length);
(async () => {
  await tok.encode(records[0] || "warm up", null, { addSpecialTokens: false });
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let tokens = 0;
  for (const r of records) tokens += (await tok.encode(r, null, { addSpecialTokens: false })).getIds().length;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  console.log(`${path.split("/").slice(-3, -2)} (HF tokenizers): ${(buf.length / 1e6).toFixed(1)} MB, ` +
    `${tokens} tokens; encode wall ${s.toFixed(3)} s = ${(tokens / s / 1e6).toFixed(2)} Mtok/s, ` +
    `${(buf.length / s / 1e6).toFixed(1)} MB/s; encode CPU ${cpu.toFixed(3)} s = ` +
    `${(tokens / cpu / 1e6).toFixed(2)} Mtok/s`);
})();
