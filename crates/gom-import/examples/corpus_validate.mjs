// Validates many glTF files with the Khronos glTF Validator in one process: one file
// name a line on standard input, one JSON line `{file, errors, first}` out per file.
// The `gltf-validator` package is looked up under $GLTF_VALIDATOR_DIR/node_modules.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';

const dir = process.env.GLTF_VALIDATOR_DIR;
if (!dir) {
  console.error('GLTF_VALIDATOR_DIR is not set');
  process.exit(3);
}
const require = createRequire(path.join(path.resolve(dir), 'index.js'));
const validator = require('gltf-validator');
for await (const file of readline.createInterface({ input: process.stdin })) {
  if (!file) continue;
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: async (uri) =>
      new Uint8Array(await readFile(path.join(path.dirname(file), decodeURIComponent(uri)))),
  });
  const errors = report.issues.messages.filter((m) => m.severity === 0);
  const first = errors.length ? `${errors[0].code} ${errors[0].pointer ?? ''} ${errors[0].message}` : '';
  console.log(JSON.stringify({ file, errors: errors.length, first }));
}
