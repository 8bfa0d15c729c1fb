// Imports between the parts of the code point one way: no two folders of src/ (a file at src/'s
// root counts as a part of its own, and so does wasm-parser/) import each other, directly or round
// a longer loop. A loop means neither part can be read, tested or moved without the other; the
// piece they share belongs to one of them, or below both.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['src', 'wasm-parser'];

/** The part a file belongs to: "src/fetch", "src/errors.ts", "wasm-parser"; null outside SCANNED. */
function partOf(file: string): string | null {
  const [top, second, third] = path.relative(root, file).split(path.sep);
  if (top === undefined || !SCANNED.includes(top)) return null;
  if (top !== 'src') return top;
  return third === undefined ? `src/${second?.replace(/\.js$/, '.ts')}` : `src/${second}`;
}

/** Each import from one part into another: "from → to" → the first file seen making it. */
function partImports(): Map<string, { from: string; to: string; example: string }> {
  const edges = new Map<string, { from: string; to: string; example: string }>();
  for (const top of SCANNED) {
    for (const name of readdirSync(path.join(root, top), { recursive: true }).map(String)) {
      if (!name.endsWith('.ts')) continue;
      const file = path.join(root, top, name);
      const from = partOf(file)!;
      // typescript's own reading of a file's imports: static, type-only, re-exports and import().
      for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        if (!fileName.startsWith('.')) continue;
        const to = partOf(path.resolve(path.dirname(file), fileName));
        if (to === null || to === from || edges.has(`${from} → ${to}`)) continue;
        edges.set(`${from} → ${to}`, { from, to, example: `${path.relative(root, file)} imports ${fileName}` });
      }
    }
  }
  return edges;
}

/** The groups of parts that reach one another (Tarjan's strongly connected components of two or more). */
function loopsOf(edges: Iterable<{ from: string; to: string }>): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const loops: string[][] = [];
  const visit = (part: string): void => {
    index.set(part, index.size);
    low.set(part, index.get(part)!);
    stack.push(part);
    for (const to of next.get(part)!) {
      if (!index.has(to)) visit(to);
      if (stack.includes(to)) low.set(part, Math.min(low.get(part)!, low.get(to)!));
    }
    if (low.get(part) !== index.get(part)) return;
    const group = stack.splice(stack.indexOf(part));
    if (group.length > 1) loops.push(group.sort());
  };
  for (const part of [...next.keys()].sort()) if (!index.has(part)) visit(part);
  return loops.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

test('a loop is found directly between two parts and round three; a one-way chain is none', () => {
  const edge = (from: string, to: string) => ({ from, to });
  assert.equal(loopsOf([edge('a', 'b'), edge('b', 'a'), edge('b', 'c')]), [['a', 'b']]);
  assert.equal(loopsOf([edge('x', 'y'), edge('y', 'z'), edge('z', 'x'), edge('a', 'x')]), [['x', 'y', 'z']]);
  assert.equal(loopsOf([edge('a', 'b'), edge('b', 'c'), edge('a', 'c')]), []);
});

test('a file at the root of src/ is a part of its own; a file in a folder belongs to the folder', () => {
  assert.is(partOf(path.join(root, 'src/errors.ts')), 'src/errors.ts');
  assert.is(partOf(path.join(root, 'src/errors.js')), 'src/errors.ts');
  assert.is(partOf(path.join(root, 'src/fetch/fetcher.ts')), 'src/fetch');
  assert.is(partOf(path.join(root, 'wasm-parser/charset.ts')), 'wasm-parser');
  assert.is(partOf(path.join(root, 'generated/types.gen.ts')), null);
});

test('no two parts of src/ import each other, directly or round a longer loop', () => {
  const edges = [...partImports().values()];
  const loops = loopsOf(edges);
  const explained = loops.map((group) => {
    const inside = edges.filter((e) => group.includes(e.from) && group.includes(e.to));
    return [`loop of ${group.join(', ')}:`, ...inside.map((e) => `  ${e.from} → ${e.to} (${e.example})`)].join('\n');
  });
  assert.equal(loops, [], `imports that loop between parts:\n${explained.join('\n')}`);
});

test.run();
