// Validates one glTF file with the Khronos glTF Validator and prints its report as JSON.
// Usage: node gltf_validator.mjs <file.gltf|file.glb>
// The `gltf-validator` package is looked up under $GLTF_VALIDATOR_DIR/node_modules
// (`.ci/run` installs it there).
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const dirs = [process.env.GLTF_VALIDATOR_DIR].filter(Boolean);
let validator = null;
for (const dir of dirs) {
  try {
    const require = createRequire(path.join(path.resolve(dir), 'index.js'));
    validator = require('gltf-validator');
    break;
  } catch (e) {
    // try the next location
  }
}
if (!validator) {
  console.error('gltf-validator not found (npm install gltf-validator in $GLTF_VALIDATOR_DIR)');
  process.exit(3);
}
const file = process.argv[2];
const bytes = new Uint8Array(await readFile(file));
const report = await validator.validateBytes(bytes, {
  uri: path.basename(file),
  maxIssues: 0,
  externalResourceFunction: async (uri) => {
    const data = await readFile(path.join(path.dirname(file), decodeURIComponent(uri)));
    return new Uint8Array(data);
  },
});
console.log(JSON.stringify(report));
