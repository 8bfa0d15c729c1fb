import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseMetadata } from '../../element/metadata-guard.js';
import { startService } from '../helpers/service.js';
import { importsEngine, readmeBlocks, REPO_ROOT, type CodeBlock } from './code-blocks.js';

// Every code block of README.md, client/README.md, element/README.md and CONTRIBUTING.md is
// checked (and every JSDoc @example, by jsdoc-examples.test.ts): TypeScript
// is compiled against the packed SDK (test/client/package.test.ts), curl commands are run as
// written against a live service (its address for localhost:3000; names answered by the tests'
// loopback nameserver), HTML and JavaScript are checked against the element, and the commands
// that cannot run inside a test are the ones CI runs (.ci/run, .ci/production-path) or that the
// container tests keep in step. A block none of these covers fails the first test.

const run = promisify(execFile);
const blocks = readmeBlocks();
const where = (b: CodeBlock) => `${b.file}:${b.line} (${b.lang})`;
const read = (file: string) => readFileSync(REPO_ROOT + file, 'utf8');

/** How a block is checked, or null. */
function checkOf(block: CodeBlock): string | null {
  if (block.lang === 'ts' && block.text.includes("dnsServers: ['127.0.0.1:5300']")) return 'run on the sample page: test/docs/try-offline.test.ts';
  if (importsEngine(block)) return 'compiled and run in a project that installed the packed engine: test/engine/package.test.ts';
  if (block.lang === 'ts') return 'compiled against the packed SDK: test/client/package.test.ts';
  if (block.lang === 'html') return 'element attributes and data-meta: this file';
  if (block.lang === 'js') return 'type-checked against the DOM: this file';
  if (block.lang === 'css') return 'the rules of element/linkpeek-preview.css: this file';
  if (block.lang !== 'sh') return null;
  if (/^npm run try:offline/.test(block.text)) return 'run on the sample page: test/docs/try-offline.test.ts';
  if (/^npm run dns:local/.test(block.text)) return 'run on a page of its own: test/docs/contributing.test.ts';
  if (/^\$? ?curl /m.test(block.text)) return 'run against a live service: this file';
  if (/npm pack \.\/client/.test(block.text)) return 'run by test/client/package.test.ts';
  if (/^docker /m.test(block.text)) return 'Dockerfile and compose.yaml: test/docs/container.test.ts, .ci/production-path';
  if (/^npm ci && npm start/m.test(block.text)) return 'the commands of CI: this file';
  return null;
}

test('every code block of the READMEs and CONTRIBUTING.md has a check', () => {
  assert.ok(blocks.length >= 10, `${blocks.length} blocks`);
  assert.equal(blocks.filter((b) => checkOf(b) === null).map(where), []);
});

test('a CSS block shows the rules of the height-reserve snippet the service ships', () => {
  // Comments and white space aside, the block and element/linkpeek-preview.css are the same rules.
  const rules = (css: string) =>
    css
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .replace(/ ?([{};:]) ?/g, '$1')
      .replace(/;}/g, '}')
      .trim();
  const css = blocks.filter((b) => b.lang === 'css');
  assert.ok(css.length >= 1);
  for (const block of css) assert.is(rules(block.text), rules(read('element/linkpeek-preview.css')), where(block));
});

test("the README's first commands are the ones CI runs on a fresh clone", () => {
  const [first] = blocks;
  assert.ok(first && first.lang === 'sh');
  const commands = first.text.split('\n').map((line) => line.replace(/\s+#.*$/, ''));
  assert.equal(commands, ['npm ci && npm start', 'npm ci && npm test']);
  // .ci/run: npm ci, then npm test on this Node (and test/run.mjs, npm test's script, on Node 24).
  const ci = read('.ci/run');
  assert.match(ci, /^npm ci --no-audit --no-fund --loglevel=error \|\| fail "npm ci"$/m);
  assert.match(ci, /^run_suite "node \$\(node --version\)" npm test$/m);
  assert.is((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.test, 'node test/run.mjs');
  assert.match(ci, /npx -y -p node@24 -- node test\/run\.mjs$/m);
  // .ci/production-path: npm ci in a fresh clone, then npm start answers /healthz.
  const production = read('.ci/production-path');
  assert.match(production, /^git clone -q "\$repo" "\$work\/built"$/m);
  assert.match(production, /^quiet_npm "\$work\/built" built ci /m);
  assert.match(production, /exec \$\{what\}/);
  assert.match(production, /local what=\$\{\*:-npm start\}/);
});

test('the curl commands, run as written against a live service, get the answers shown', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
  const dir = mkdtempSync(path.join(tmpdir(), 'linkpeek-readme-'));
  const sh = (command: string) => run('sh', ['-c', command.replaceAll('http://localhost:3000', svc.baseUrl)], { cwd: dir });
  try {
    let ran = 0;
    for (const block of blocks.filter((b) => b.lang === 'sh' && checkOf(b)?.startsWith('run against'))) {
      const lines = block.text.split('\n');
      if (lines[0]!.startsWith('$ ')) {
        // A session: each `$ command` and the output shown under it.
        for (let i = 0; i < lines.length; i++) {
          if (!lines[i]!.startsWith('$ ')) continue;
          const shown: string[] = [];
          for (let j = i + 1; j < lines.length && !lines[j]!.startsWith('$ '); j++) shown.push(lines[j]!);
          const { stdout } = await sh(lines[i]!.slice(2));
          assert.is(stdout.trimEnd(), shown.join('\n'), `${where(block)}: ${lines[i]}`);
          ran++;
        }
      } else {
        // Commands without output shown: each must reach its endpoint with parameters it accepts,
        // and get an answer its contract lists (the names are not on the loopback nameserver, so
        // a page answers 422 and an image 502). Status appended by -w.
        for (const line of lines) {
          const { stdout } = await sh(`${line} -s -w '\\n%{http_code}'`);
          const status = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
          const endpoint = /localhost:3000(\/[^?']*)/.exec(line)![1]!;
          const expected = endpoint === '/v1/cors-proxy' ? [200, 502, 504] : [200, 422];
          assert.ok(expected.includes(status), `${where(block)}: ${line} answered ${status}`);
          ran++;
        }
      }
    }
    assert.ok(ran >= 4, `${ran} commands run`);
    assert.ok(readdirSync(dir).includes('preview.png'), 'curl -o wrote its file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await svc.close();
  }
});

test('the HTML examples use attributes the element reads and documents, and a data-meta it renders', async () => {
  const elementSource = readdirSync(REPO_ROOT + 'element')
    .filter((f) => f.endsWith('.ts'))
    .map((f) => read(`element/${f}`))
    .join('\n');
  const documented = read('element/README.md');
  const svc = await startService();
  try {
    for (const block of blocks.filter((b) => b.lang === 'html')) {
      for (const [, src] of block.text.matchAll(/<script type="module" src="([^"]+)"><\/script>/g)) {
        const url = new URL(src!);
        assert.is(url.pathname, '/component.js', where(block));
        assert.is((await svc.request(url.pathname)).status, 200);
      }
      const tags = [...block.text.matchAll(/<linkpeek-preview((?:\s+[\w-]+=(?:"[^"]*"|'[^']*'))*)><\/linkpeek-preview>/g)];
      assert.is(tags.length, block.text.split('<linkpeek-preview').length - 1, `${where(block)}: every tag parsed`);
      for (const [, attributes] of tags) {
        for (const [, name, double, single] of attributes!.matchAll(/([\w-]+)=(?:"([^"]*)"|'([^']*)')/g)) {
          const value = double ?? single!;
          // Observed (its name in observedAttributes), or styled (a :host([name=value]) rule).
          const reads = elementSource.includes(`'${name}'`) || elementSource.includes(`[${name}=${value}]`);
          assert.ok(reads, `${where(block)}: the element reads ${name}="${value}"`);
          assert.ok(documented.includes(`| \`${name}\` |`), `${where(block)}: element/README.md documents ${name}`);
          if (name === 'data-url') assert.match(value, /^https?:\/\//);
          if (name === 'data-meta') assert.is(parseMetadata(value)[1], '', `${where(block)}: data-meta is Metadata the element renders`);
        }
      }
    }
  } finally {
    await svc.close();
  }
});

test('the JavaScript examples type-check against the DOM and the element', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'linkpeek-readme-js-'));
  try {
    const js = blocks.filter((b) => b.lang === 'js');
    assert.ok(js.length > 0);
    for (const block of js) writeFileSync(path.join(dir, `block-${block.line}.js`), block.text);
    // checkJs as a page's plain script is checked: DOM types, no strict null checks.
    const compilerOptions = { allowJs: true, checkJs: true, strict: false, noEmit: true, target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.js'] }));
    await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false']).catch((err: { stdout: string }) => {
      assert.unreachable(`tsc --checkJs on the READMEs' JavaScript failed:\n${err.stdout}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
