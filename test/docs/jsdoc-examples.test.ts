import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './code-blocks.js';

// Every JSDoc @example of the shipped sources (the engine in src/, the SDK in client/, the element,
// the scanner) is a ```ts block that is type-checked strictly and run, with 'linkpeek' and
// 'linkpeek-client' read from this repository's sources. An example that is not such a block,
// that does not compile or that throws fails here. Examples must run offline (loopback only).

const run = promisify(execFile);
const SOURCE_DIRS = ['src', 'client', 'element', 'wasm-parser'];
const PACKAGES: Record<string, string> = { linkpeek: 'src/index.ts', 'linkpeek-client': 'client/index.ts' };

interface Example {
  /** file:line of the @example tag. */
  where: string;
  /** The code of its ```ts block, or null when the example is not one. */
  code: string | null;
}

/** The @examples of one source file's JSDoc comments. */
export function jsdocExamples(file: string, source: string): Example[] {
  const examples: Example[] = [];
  for (const comment of source.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const startLine = source.slice(0, comment.index).split('\n').length;
    const lines = comment[0].split('\n').map((l) => l.replace(/^\s*\/?\*+\/?\s?/, '').replace(/\s*\*\/$/, ''));
    lines.forEach((line, i) => {
      if (!/^@example\b/.test(line)) return;
      const body: string[] = [];
      for (let j = i + 1; j < lines.length && !/^@\w/.test(lines[j]!); j++) body.push(lines[j]!);
      const fenced = /^\s*```ts\n([\s\S]*?)\n```\s*$/.exec(body.join('\n').trim());
      examples.push({ where: `${file}:${startLine + i}`, code: fenced ? fenced[1]! : null });
    });
  }
  return examples;
}

/** Type-checks (strict) and runs each example; the problems found, one line each. */
async function check(examples: Example[]): Promise<string[]> {
  const problems = examples.filter((e) => e.code === null).map((e) => `${e.where}: an @example must be one \`\`\`ts block`);
  const runnable = examples.filter((e) => e.code !== null);
  if (runnable.length === 0) return problems;
  const dir = mkdtempSync(path.join(REPO_ROOT, 'test', '.jsdoc-examples-'));
  try {
    const files = runnable.map((example, i) => {
      const name = path.join(dir, `example-${i}.mts`);
      let code = example.code!;
      for (const [pkg, entry] of Object.entries(PACKAGES)) code = code.replaceAll(`from '${pkg}'`, `from ${JSON.stringify(path.join(REPO_ROOT, entry))}`);
      writeFileSync(name, `${code}\nexport {};\n`);
      return name;
    });
    const compilerOptions = {
      strict: true,
      noEmit: true,
      target: 'ES2023',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: ['node'],
      lib: ['ES2023', 'DOM'],
    };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: files.map((f) => path.basename(f)) }));
    await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false']).catch((err: { stdout: string }) => {
      const local = err.stdout.replaceAll(dir + path.sep, '').replaceAll(path.relative(process.cwd(), dir) + path.sep, '');
      problems.push(`tsc on the examples failed:\n${local}`);
    });
    for (const [i, file] of files.entries()) {
      await run(process.execPath, ['--import', 'tsx', file], { cwd: REPO_ROOT, timeout: 60_000 }).catch((err: { stderr: string }) => {
        problems.push(`${runnable[i]!.where}: the example threw:\n${err.stderr}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}

function sourceFiles(): string[] {
  return SOURCE_DIRS.flatMap((d) =>
    readdirSync(path.join(REPO_ROOT, d), { recursive: true })
      .map((f) => path.join(d, String(f)))
      .filter((f) => /\.(ts|mts)$/.test(f) && !f.endsWith('.d.ts') && !f.split(path.sep).includes('node_modules') && !f.split(path.sep).includes('dist')),
  );
}

test('the checker finds each @example, runs a good one, and reports a type error, a throw and an unfenced example', async () => {
  const fixture = [
    '/**',
    ' * Adds.',
    ' * @example',
    ' * ```ts',
    " * import { proxiedImageUrl } from 'linkpeek-client';",
    " * const src: string = proxiedImageUrl('https://linkpeek.example', 'https://example.com/a.png');",
    " * if (src !== 'https://linkpeek.example/v1/cors-proxy?url=https%3A%2F%2Fexample.com%2Fa.png') throw new Error(src);",
    ' * ```',
    ' * @returns nothing',
    ' */',
    '/** @example',
    ' * ```ts',
    ' * const n: number = "two";',
    ' * ```',
    ' */',
    '/**',
    ' * @example',
    ' * ```ts',
    " * throw new Error('thrown by the example');",
    ' * ```',
    ' */',
    '/** @example add(1, 2) */',
  ].join('\n');
  const examples = jsdocExamples('fixture.ts', fixture);
  assert.equal(
    examples.map((e) => e.where),
    ['fixture.ts:3', 'fixture.ts:11', 'fixture.ts:17', 'fixture.ts:22'],
  );
  const problems = await check(examples);
  assert.is(problems.length, 3, problems.join('\n'));
  assert.match(problems[0]!, 'fixture.ts:22: an @example must be one ```ts block');
  assert.match(problems[1]!, /tsc on the examples failed:\nexample-1\.mts\(1,7\): error TS2322/);
  assert.match(problems[2]!, /^fixture\.ts:17: the example threw:[\s\S]*thrown by the example/);
});

test('every @example of the shipped sources is a ```ts block that type-checks and runs', async () => {
  const examples = sourceFiles().flatMap((file) => jsdocExamples(file, readFileSync(path.join(REPO_ROOT, file), 'utf8')));
  console.log(`${examples.length} @example(s) in ${SOURCE_DIRS.join(', ')}`);
  assert.equal(await check(examples), []);
});

test.run();
