// The size of html-rewriter-wasm's one WebAssembly memory, for tests and metrics. Every
// HTMLRewriter lives in that memory; one not freed costs ~13 KB for good (free() returns it), and
// linear memory never shrinks, so its size is the high-water mark of everything scanned so far.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const wasmExports = (require('html-rewriter-wasm') as { __wasm: { memory: WebAssembly.Memory } }).__wasm;

export function wasmMemoryBytes(): number {
  return wasmExports.memory.buffer.byteLength;
}
