// The last step of `npm run build:server`: dist/server/src/main.js, as tsc wrote it, becomes one
// bundled file with the modules it loads, LinkPeek's own and its dependencies'. A start then
// reads one file instead of about 600 (Node's module loader was half of a start's CPU time:
// bench/results/startup.md). The rest of dist/server/ stays as tsc wrote it: the library, the CLI,
// the scan threads and the healthcheck load their modules one by one, as before.
//
// - import.meta.url keeps meaning the module's own file: each bundled module of dist/server/
//   gets its original URL, so the files it reads beside itself are found where they were.
// - html-rewriter-wasm stays outside: it loads asyncify.js and its .wasm from its own folder.
// - The dependencies' CommonJS code is given a `require` of its own (createRequire): Node's
//   built-in modules are required at run time.
//   node scripts/bundle-main.mjs

import { build } from 'esbuild';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist', 'server', 'src');
const main = path.join(dist, 'main.js');
const MARK = '// linkpeek: bundled by scripts/bundle-main.mjs';

if (readFileSync(main, 'utf8').startsWith(MARK)) {
  console.error('bundle-main: dist/server/src/main.js is already the bundle: run `npm run build:server`, which compiles it first');
  process.exit(1);
}

/** Each module of dist/server/ keeps its own import.meta.url, as a path relative to the bundle's. */
const ownUrl = {
  name: 'own-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\/dist\/server\/.*\.js$/ }, ({ path: file }) => {
      const source = readFileSync(file, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const relative = path.relative(dist, file).split(path.sep).join('/');
      const url = `new URL(${JSON.stringify(`./${relative}`)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

const bundled = path.join(dist, 'main.bundle.tmp.js');
await build({
  entryPoints: [main],
  outfile: bundled,
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
  plugins: [ownUrl],
  banner: { js: `${MARK}\nimport { createRequire as __linkpeekCreateRequire } from 'node:module';\nconst require = __linkpeekCreateRequire(import.meta.url);` },
});
renameSync(bundled, main);
renameSync(`${bundled}.map`, `${main}.map`);
// The bundle's last line names its map by the temporary name.
const text = readFileSync(main, 'utf8').replace(/\/\/# sourceMappingURL=main\.bundle\.tmp\.js\.map\s*$/, '//# sourceMappingURL=main.js.map\n');
writeFileSync(main, text);
console.log(`bundle-main: ${path.relative(root, main)} (${Math.round(text.length / 1024)} KB)`);
