// Reference encoder for tokenizer.json files: Hugging Face tokenizers (npm binding of the Rust
// crate). Reads NUL-separated records (decoded as UTF-8 like TextDecoder), prints the ids of
// encode(record, addSpecialTokens=false) per record on one line.
// Usage: node hf_oracle.js TOKENIZER_JSON FILE
const fs = require("fs");
const { Tokenizer } = require("tokenizers");
const [jsonPath, file] = process.argv.slice(2);
const tok = Tokenizer.fromFile(jsonPath);
const text = new TextDecoder("utf-8").decode(fs.readFileSync(file));
const records = text.split("\0");
if (records.length && records[records.length - 1] === "") records.pop();
(async () => {
  const out = [];
  for (let i = 0; i < records.length; i += 64) {
    const batch = await tok.encodeBatch(records.slice(i, i + 64), { addSpecialTokens: false });
    for (const e of batch) out.push(e.getIds().join(" "));
  }
  fs.writeSync(1, out.join("\n") + (out.length ? "\n" : ""));
})();
