import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { importsEngine, readmeBlocks } from '../docs/code-blocks.js';
import { startService } from '../helpers/service.js';
import { respond, startUpstream } from '../helpers/upstream.js';

// linkpeek-client as a client app gets it, by the install its README gives (`npm pack ./client`
// in the checkout, `npm install` of the tarball in a project of its own; offline: the package has
// no dependencies), a strict TypeScript file type-checked against it with this repository's
// TypeScript together with every TypeScript block of the three READMEs, then run against a live
// service.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

test('the packed SDK installs alone, type-checks in a strict project and calls a live service, from ESM and CommonJS', async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'linkpeek-client-'));
  const svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
  const up = await startUpstream({
    routes: { '/page': respond(200, '<meta property="og:image" content="/card.png"><title>Tide pools</title><body>', { 'content-type': 'text/html' }) },
  });
  try {
    const [install] = readmeBlocks().filter((b) => b.file === 'client/README.md' && b.lang === 'sh');
    const [packCommand, installCommand] = (install?.text ?? '').split('\n').map((line) => line.replace(/\s+#.*$/, ''));
    assert.is(packCommand, 'npm ci && npm pack ./client');
    // The checkout stands at ../linkpeek from the project, as the README's install has it.
    const checkout = path.join(work, 'linkpeek');
    mkdirSync(checkout);
    const { stdout: packed } = await run(npm, ['pack', './client', '--json', '--pack-destination', checkout], { cwd: root });
    const [tarball] = JSON.parse(packed.slice(packed.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    assert.ok(tarball);
    assert.is(installCommand, `npm install ../linkpeek/${tarball.filename}`);
    const shipped = tarball.files.map((f) => f.path).sort();
    assert.ok(shipped.includes('dist/client/index.js') && shipped.includes('dist/client/index.d.ts'), shipped.join(' '));
    assert.equal(
      shipped.filter((f) => !/^dist\/.*\.(js|d\.ts)$/.test(f)),
      ['LICENSE', 'README.md', 'package.json'],
    );

    const project = path.join(work, 'app');
    cpSync(path.join(root, 'test/client/package-user'), project, { recursive: true });
    // The blocks of the engine's own package are compiled against it: test/engine/package.test.ts.
    const tsBlocks = readmeBlocks().filter((b) => b.lang === 'ts' && !importsEngine(b));
    assert.ok(tsBlocks.length >= 3, 'the READMEs show the SDK in TypeScript');
    for (const block of tsBlocks) {
      writeFileSync(path.join(project, `readme-${block.file.replace(/\W+/g, '-')}-${block.line}.ts`), `${block.text}\nexport {};\n`);
    }
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
    await run(npm, [...installCommand!.split(' ').slice(1), '--offline', '--no-audit', '--no-fund'], { cwd: project });
    assert.equal(
      readdirSync(path.join(project, 'node_modules')).filter((d) => !d.startsWith('.')),
      ['linkpeek-client'],
    );
    // The README travels alone: its links must work outside the repository.
    const shippedReadme = readFileSync(path.join(project, 'node_modules/linkpeek-client/README.md'), 'utf8');
    const links = [...shippedReadme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length > 0);
    assert.equal(
      links.filter((href) => !/^https:\/\//.test(href)),
      [],
      'every link of the packed README is absolute',
    );

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const config = { BASE_URL: svc.baseUrl, CLOSED_URL: closedUrl, PAGE_URL: up.url('/page').href };
    writeFileSync(
      path.join(project, 'config.ts'),
      Object.entries(config)
        .map(([k, v]) => `export const ${k} = ${JSON.stringify(v)};\n`)
        .join(''),
    );

    await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', project, '--pretty', 'false']).catch((err: { stdout: string }) => {
      assert.unreachable(`tsc on the strict project (main.ts and the READMEs' TypeScript blocks, readme-<file>-<line>.ts) failed:\n${err.stdout}`);
    });
    const { stdout } = await run(process.execPath, [path.join(project, 'out/main.js')]);
    assert.equal(JSON.parse(stdout), {
      title: 'TIDE POOLS',
      imageUrl: `${up.origin}/card.png`,
      safetyTags: 1, // suspicious_domain: the upstream's host is an IP address
      validation: 'must be an absolute http or https URL, not ftp:',
      offline: 'TypeError',
      thrown: { isError: true, status: 400, message: 'GET /v1/metadata answered 400: must be an absolute http or https URL, not ftp:' },
      apiError: 404,
    });
    const { stdout: fromCjs } = await run(process.execPath, [path.join(project, 'main.cjs'), svc.baseUrl]);
    assert.equal(JSON.parse(fromCjs), { status: 400, message: 'must be an absolute http or https URL, not ftp:' });
  } finally {
    await Promise.all([svc.close(), up.close()]);
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
