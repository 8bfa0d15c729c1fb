// `import 'linkpeek/element'` in a Vite app, as a front-end engineer gets it: the repository's
// package packed (`npm pack`, from the build `npm ci` made) and installed into an empty project
// (offline, from npm's cache: test/helpers/packed-project.ts), an app that imports the element and its height reserve, type-checked
// strictly against the package's types, built by Vite, and the built page rendering a card in
// Chromium. The element entry must not pull in server code.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'vite';
import { writePackedProject } from '../helpers/packed-project.js';
import { launchBrowser, openPage, readCard, snapshot, waitForState } from './browser.js';
import { metadataFor } from './metadata-fixture.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

const APP = `import { LinkPeekPreview } from 'linkpeek/element';
import 'linkpeek/element/linkpeek-preview.css';

const card: LinkPeekPreview = document.createElement('linkpeek-preview');
card.dataset.meta = JSON.stringify(META);
card.id = 'preview';
document.body.append(card);
// The tag's type comes from the package: a typo in a property does not compile.
const again: LinkPeekPreview | null = document.querySelector('linkpeek-preview');
console.log(again?.tagName, customElements.get('linkpeek-preview') === LinkPeekPreview);
`;

test("a Vite app imports 'linkpeek/element' from the packed package, with types, and renders a card", async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'linkpeek-element-'));
  try {
    const { stdout: packed } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root });
    const [tarball] = JSON.parse(packed.slice(packed.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const shipped = tarball!.files.map((f) => f.path);
    for (const file of ['dist/element/component.js', 'dist/element/component.d.ts', 'dist/element/linkpeek-preview.css'])
      assert.ok(shipped.includes(file), file);

    const project = path.join(work, 'app');
    mkdirSync(project);
    writePackedProject(project, 'element-user', path.join(work, tarball!.filename));
    await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: project });

    const meta = metadataFor('http://127.0.0.1:9', { image: { url: null }, favicon: { url: null }, fetched_url: 'https://tides.example/pools' });
    writeFileSync(path.join(project, 'main.ts'), `const META = ${JSON.stringify(meta)};\n${APP}`);
    writeFileSync(
      path.join(project, 'index.html'),
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>app</title><script type="module" src="./main.ts"></script></head><body></body></html>',
    );
    const compilerOptions = { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], types: [] };
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts', 'vite-env.d.ts'] }));
    // Vite's own declaration for CSS imports, as `npm create vite` writes it.
    writeFileSync(path.join(project, 'vite-env.d.ts'), "declare module '*.css';\n");
    await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', project], { cwd: project });
    // A misspelt property of the element is a type error: the types are the package's, not `any`.
    writeFileSync(path.join(project, 'typo.ts'), `${readFileSync(path.join(project, 'main.ts'), 'utf8')}card.dataset.meta = card.notAProperty;\n`);
    writeFileSync(path.join(project, 'tsconfig.typo.json'), JSON.stringify({ compilerOptions, files: ['typo.ts', 'vite-env.d.ts'] }));
    const typo = await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', path.join(project, 'tsconfig.typo.json')], { cwd: project }).then(
      () => 'compiled',
      (error: { stdout: string }) => error.stdout,
    );
    assert.match(typo, "Property 'notAProperty' does not exist on type 'LinkPeekPreview'");

    await build({ root: project, logLevel: 'silent', configFile: false, build: { outDir: path.join(project, 'dist') } });
    const assets = readdirSync(path.join(project, 'dist/assets'));
    const js = assets.filter((f) => f.endsWith('.js')).map((f) => readFileSync(path.join(project, 'dist/assets', f), 'utf8'));
    assert.ok(js.join('').includes('linkpeek-preview'), 'the element is in the bundle');
    assert.not.match(js.join(''), /koa|undici|ioredis/, 'no server code');
    assert.ok(
      assets.some((f) => f.endsWith('.css')),
      'the height reserve is bundled',
    );

    // The built app on a static server of its own, as it would be deployed.
    const dist = path.join(project, 'dist');
    const site = http.createServer((req, res) => {
      const file = path.join(dist, req.url == '/' ? 'index.html' : path.normalize(req.url ?? '/'));
      const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'text/html';
      if (!file.startsWith(dist) || !existsSync(file)) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': type }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const browser = await launchBrowser();
    try {
      const { page } = await openPage(browser);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
      await waitForState(page, 'ready').catch(() => assert.unreachable(`no card: ${errors.join('; ')}`));
      const card = await readCard(page);
      assert.is(card.title, 'Tide pools of the northern coast');
      assert.is(card.href, 'https://tides.example/pools');
      assert.equal(errors, []);
      await snapshot(page, 'vite-app');
    } finally {
      await browser.close();
      site.closeAllConnections();
      site.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
