// Validates JSON files against a JSON Schema with Ajv (draft 2020-12, strict mode), the reference
// implementation the schema test cross-checks its own validator with.
// Usage: node ajv_validate.js NPM_DIR SCHEMA FILE...   Prints one line per file ("valid" or the
// first errors); exits 0 when every file is valid, 1 otherwise, 2 when the schema does not compile.
'use strict';
const fs = require('fs');
const path = require('path');

const [npmDir, schemaPath, ...files] = process.argv.slice(2);
const Ajv2020 = require(path.join(npmDir, 'node_modules', 'ajv', 'dist', '2020')).default;
let validate;
try {
  validate = new Ajv2020({strict: true, allErrors: true})
                 .compile(JSON.parse(fs.readFileSync(schemaPath, 'utf8')));
} catch (e) {
  console.log('schema does not compile: ' + e.message);
  process.exit(2);
}
let invalid = 0;
for (const f of files) {
  const ok = validate(JSON.parse(fs.readFileSync(f, 'utf8')));
  console.log(f + ': ' + (ok ? 'valid' : JSON.stringify(validate.errors.slice(0, 3))));
  if (!ok) invalid++;
}
process.exit(invalid ? 1 : 0);
