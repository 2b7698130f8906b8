// Reference encoder for the oracle tests: OpenAI's tiktoken (npm WASM build). Reads NUL-separated
// records from a file (decoded as UTF-8 the way TextDecoder does), prints the encode_ordinary ids of
// each record on one line. Usage: node tiktoken_oracle.js ENCODING FILE [--count]
const fs = require("fs");
const { get_encoding } = require("tiktoken");
const [encodingName, file, flag] = process.argv.slice(2);
const enc = get_encoding(encodingName);
const text = new TextDecoder("utf-8").decode(fs.readFileSync(file));
const records = text.split("\0");
if (records.length && records[records.length - 1] === "") records.pop();
const out = [];
for (const r of records) {
  const ids = enc.encode_ordinary(r);
  out.push(flag === "--count" ? String(ids.length) : Array.from(ids).join(" "));
}
fs.writeSync(1, out.join("\n") + (out.length ? "\n" : ""));
enc.free();
