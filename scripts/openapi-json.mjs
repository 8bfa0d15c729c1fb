// A step of `npm run build:server`: openapi.yaml as the router's openapi-backend dereferences it,
// written once to dist/server/openapi.json, so that a start of the compiled service parses no YAML
// and resolves no $ref (src/package-root.ts routerDefinition; bench/results/startup.md). The
// service still serves openapi.yaml itself at /openapi.yaml. Run from source, the router reads
// openapi.yaml as before. test/ops/compiled.test.ts checks the file against openapi.yaml.
//   node scripts/openapi-json.mjs

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpenAPIBackend } from 'openapi-backend';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist', 'server', 'openapi.json');

const api = new OpenAPIBackend({ definition: path.join(root, 'openapi.yaml'), quick: true, strict: true });
await api.init();
// A $ref cycle would make this throw: such a document cannot be written as JSON, and the build stops.
writeFileSync(out, JSON.stringify(api.definition));
console.log(`openapi-json: ${path.relative(root, out)}`);
