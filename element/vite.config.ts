// Builds the element to one minified ES module, dist/element/component.js (and copies
// linkpeek-preview.css beside it), and prints
// its gzip size; the build fails above the 9 KB budget (test/element/bundle.test.ts checks too).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/** component.js at most 9 KB gzipped (docs/ARCHITECTURE.md). */
export const GZIP_BUDGET_BYTES = 9216;

const root = fileURLToPath(new URL('..', import.meta.url));

function gzipBudget(): Plugin {
  return {
    name: 'linkpeek-gzip-budget',
    generateBundle(_options, bundle) {
      // The snippet that reserves the card's height before the module arrives, served beside it.
      this.emitFile({ type: 'asset', fileName: 'linkpeek-preview.css', source: readFileSync(new URL('linkpeek-preview.css', import.meta.url)) });
      // The types of the package entry linkpeek/element (package.json "exports").
      this.emitFile({ type: 'asset', fileName: 'component.d.ts', source: readFileSync(new URL('component.d.ts', import.meta.url)) });
      for (const file of Object.values(bundle)) {
        if (file.type != 'chunk') continue;
        const bytes = Buffer.from(file.code);
        const gzip = gzipSync(bytes, { level: 9 }).length;
        const line = `${file.fileName}: ${bytes.length} bytes, ${gzip} bytes gzip (budget ${GZIP_BUDGET_BYTES})`;
        if (gzip > GZIP_BUDGET_BYTES) this.error(`over the size budget: ${line}`);
        console.log(line);
      }
    },
  };
}

export default defineConfig({
  root,
  publicDir: false,
  logLevel: 'warn',
  plugins: [gzipBudget()],
  build: {
    outDir: 'dist/element',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    lib: {
      entry: 'element/index.ts',
      formats: ['es'],
      fileName: () => 'component.js',
    },
    // Vite 8's library mode keeps whitespace in ES output without this.
    rolldownOptions: { output: { minify: true } },
  },
});
