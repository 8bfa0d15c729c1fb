// `npm run build:static`, the last step of `npm run build`. It copies Swagger UI's two files (and
// its licence) from swagger-ui-dist, a devDependency, into dist/docs/, so that the service serves
// /docs from its own build and the package needs no runtime dependency for it. Then it writes the
// best compressed forms of the static files large enough to be slow to compress
// (precompressed.ts): the element and openapi.yaml into dist/static/, Swagger UI's into
// dist/docs/compressed/ (left out of the package's tarball with the rest of dist/docs/), so that
// no start pays for them. Run from the compiled copy (dist/server/src/assets/build-static.js),
// after the element's build has made dist/element/component.js.

import { copyFile, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { OPENAPI_PATH, PACKAGE_ROOT } from '../package-root.js';
import { DEFAULT_BUNDLE_PATH } from './component-bundle.js';
import { DOCS_DIR, DOCS_PRECOMPRESSED_DIR, SWAGGER_UI_FILES, SWAGGER_UI_NAMES } from './docs.js';
import { precompress } from './precompressed.js';

const started = performance.now();
const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
await rm(DOCS_DIR, { recursive: true, force: true });
await mkdir(DOCS_DIR, { recursive: true });
for (const name of [...SWAGGER_UI_NAMES, 'LICENSE', 'NOTICE']) await copyFile(path.join(swaggerUiDir, name), path.join(DOCS_DIR, name));

const made = [...(await precompress([DEFAULT_BUNDLE_PATH, OPENAPI_PATH])), ...(await precompress(SWAGGER_UI_FILES, DOCS_PRECOMPRESSED_DIR))];
for (const { file, bytes, br, gzip } of made) {
  console.log(`${path.relative(PACKAGE_ROOT, file)}: ${bytes} bytes, ${br} brotli, ${gzip} gzip`);
}
console.log(
  `Swagger UI copied into ${path.relative(PACKAGE_ROOT, DOCS_DIR)}/, compressed forms made in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
