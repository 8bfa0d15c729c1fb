// Every WebAssembly rewriter is freed, on success, on error and on early stop: scanning 10,000
// documents keeps html-rewriter-wasm's memory within a stated bound.
// The bound: the WebAssembly memory grows by at most 2 MiB over the 10,000 documents (64 KiB
// when nothing leaks) and stays under 32 MiB in all. An HTMLRewriter left unfreed costs ~13 KB
// of wasm memory for good, and an Element or TextChunk handed to a handler and not freed ~40
// bytes (about +20.5 MiB over these documents). A leak on any one path breaks the bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HeadScanner, scanHead, wasmMemoryBytes } from '../../wasm-parser/index.js';
import { utf8 } from './cuts.js';
import { encodedPages } from './encoded-pages.js';

const MiB = 1024 * 1024;
const DOCUMENTS = 10_000;

const stopsAtBody = utf8(`<html><head><title>t</title>${'<meta property="og:x" content="y">'.repeat(40)}</head><body>${'z'.repeat(5000)}`);
const endsWithoutBody = utf8(`<title>t</title>${'<link rel=icon href=/a.png>'.repeat(40)}`);
const legacy = encodedPages[0]!.bytes; // Shift_JIS: a charset switch, so a second rewriter

async function failingScan(): Promise<void> {
  const source: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      yield endsWithoutBody;
      yield endsWithoutBody;
      throw new Error('upstream reset');
    },
  };
  try {
    await scanHead(source);
  } catch {
    return;
  }
  throw new Error('the failing source did not fail');
}

test(`scanning ${DOCUMENTS} documents (early stop, end, error, charset switch, abandoned) keeps wasm memory bounded`, async () => {
  const before = wasmMemoryBytes();
  for (let i = 0; i < DOCUMENTS; i++) {
    switch (i % 5) {
      case 0:
        assert.is((await scanHead(stopsAtBody)).stoppedAtBody, true);
        break;
      case 1:
        assert.is((await scanHead(endsWithoutBody)).stoppedAtBody, false);
        break;
      case 2:
        await failingScan();
        break;
      case 3:
        assert.is((await scanHead(legacy)).charset, 'shift_jis');
        break;
      case 4: {
        // A caller that gives up half-way (its own error) and disposes instead of ending.
        const scanner = new HeadScanner();
        await scanner.write(endsWithoutBody);
        await scanner.write(endsWithoutBody);
        scanner.dispose();
        break;
      }
    }
  }
  const after = wasmMemoryBytes();
  console.log(`wasm memory: ${(before / MiB).toFixed(1)} MiB before, ${(after / MiB).toFixed(1)} MiB after ${DOCUMENTS} documents`);
  assert.ok(after - before <= 2 * MiB, `grew by ${((after - before) / MiB).toFixed(1)} MiB`);
  assert.ok(after <= 32 * MiB, `${(after / MiB).toFixed(1)} MiB in all`);
});

test.run();
