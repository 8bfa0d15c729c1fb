// `npm run build:static`, the last step of `npm run build`: the best compressed forms of the
// static files large enough to be slow to compress (precompressed.ts) into dist/static/, so that
// no start pays for them. Run from the compiled copy (dist/server/src/assets/build-static.js),
// after the element's build has made dist/element/component.js.

import path from 'node:path';
import { OPENAPI_PATH } from '../package-root.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { DEFAULT_BUNDLE_PATH } from './component-bundle.js';
import { SWAGGER_UI_FILES } from './docs.js';
import { PRECOMPRESSED_DIR, precompress } from './precompressed.js';

const started = performance.now();
const made = await precompress([DEFAULT_BUNDLE_PATH, OPENAPI_PATH, ...SWAGGER_UI_FILES]);
for (const { file, bytes, br, gzip } of made) {
  console.log(`${path.relative(PACKAGE_ROOT, file)}: ${bytes} bytes, ${br} brotli, ${gzip} gzip`);
}
console.log(`compressed into ${path.relative(PACKAGE_ROOT, PRECOMPRESSED_DIR)}/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
