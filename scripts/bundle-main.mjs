// A step of `npm run build:server`: the service's two entry points, as tsc wrote them, each become
// one bundled file in place with the modules it loads, LinkPeek's own and its dependencies':
//   dist/server/src/main.js              the service (`npm start`, the container, `linkpeek serve`)
//   dist/server/src/scan/scan-worker.js  the body of each scan thread the service starts
// A start then reads one file a thread instead of hundreds (Node's module loader was half of a
// start's CPU time: bench/results/startup.md). The rest of dist/server/ stays as tsc wrote it: the
// library, the CLI's other commands and the healthcheck load their modules one by one, as before.
//
// - import.meta.url keeps meaning the module's own file: each bundled module of dist/server/ gets
//   its original URL, so the files it reads beside itself are found where they were.
// - html-rewriter-wasm stays outside: it loads asyncify.js and its .wasm from its own folder.
// - A module's `createRequire(import.meta.url)(name)` (cache/extraction-shape.ts loads Ajv so,
//   when a shared store needs it) becomes `require(name)`, which esbuild bundles, lazily as before.
// - The dependencies' CommonJS code is given a `require` of its own (createRequire): Node's
//   built-in modules, and what is required by a computed name, are required at run time.
// - Whitespace and syntax are minified (less source to compile at each start); names are kept,
//   and each bundle has its source map.
//   node scripts/bundle-main.mjs

import { build } from 'esbuild';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist', 'server', 'src');
const ENTRIES = ['main.js', path.join('scan', 'scan-worker.js')];
const MARK = '// linkpeek: bundled by scripts/bundle-main.mjs';

/** Each module of dist/server/ keeps its own import.meta.url, as a path relative to the bundle's. */
function ownImportMetaUrl(bundleDir) {
  return {
    name: 'own-import-meta-url',
    setup(builder) {
      builder.onLoad({ filter: /\/dist\/server\/.*\.js$/ }, ({ path: file }) => {
        // A module's own createRequire(import.meta.url)(name) is a require esbuild can follow: what
        // it loads is bundled too, and still evaluated only when that line runs.
        const source = readFileSync(file, 'utf8').replaceAll('createRequire(import.meta.url)(', 'require(');
        if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
        const relative = path.relative(bundleDir, file).split(path.sep).join('/');
        const url = `new URL(${JSON.stringify(relative.startsWith('.') ? relative : `./${relative}`)}, import.meta.url).href`;
        return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
      });
    },
  };
}

async function bundleInPlace(entry) {
  const file = path.join(dist, entry);
  if (readFileSync(file, 'utf8').startsWith(MARK)) {
    throw new Error(`bundle-main: ${entry} is already a bundle: run \`npm run build:server\`, which compiles it first`);
  }
  const temporary = `${file}.bundle.tmp`;
  await build({
    entryPoints: [file],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['html-rewriter-wasm'],
    sourcemap: 'linked',
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    plugins: [ownImportMetaUrl(path.dirname(file))],
    banner: {
      js: `${MARK}\nimport { createRequire as __linkpeekCreateRequire } from 'node:module';\nconst require = __linkpeekCreateRequire(import.meta.url);`,
    },
  });
  // The bundle's last line names its map by the temporary name.
  const name = path.basename(file);
  const text = readFileSync(temporary, 'utf8').replace(/\/\/# sourceMappingURL=\S+\s*$/, `//# sourceMappingURL=${name}.map\n`);
  writeFileSync(file, text);
  unlinkSync(temporary);
  renameSync(`${temporary}.map`, `${file}.map`);
  console.log(`bundle-main: ${path.relative(root, file)} (${Math.round(text.length / 1024)} KB)`);
}

for (const entry of ENTRIES) await bundleInPlace(entry);
