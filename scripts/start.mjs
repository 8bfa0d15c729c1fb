// `npm start`: runs the built service (dist/server/src/main.js) in this same process, or says in
// one line how to build it when dist/ is missing. The start script `exec`s node, so the process
// npm starts is this one and the SIGTERM npm forwards reaches the service's own handler.
// Process managers and containers can run `node dist/server/src/main.js` directly.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'server', 'src', 'main.js');

if (!existsSync(main)) {
  console.error('linkpeek: no build at dist/server/src/main.js: run `npm run build` (needs the devDependencies: `npm ci`), or copy a prebuilt dist/ here');
  process.exit(1);
}
await import(pathToFileURL(main).href);
