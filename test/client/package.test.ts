import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startService } from '../helpers/service.js';
import { respond, startUpstream } from '../helpers/upstream.js';

// linkpeek-client as a client app gets it: `npm pack` in client/, the tarball installed into a
// project of its own (offline: the package has no dependencies), a strict TypeScript file
// type-checked against it with this repository's TypeScript, then run against a live service.

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
    const { stdout: packed } = await run(npm, ['pack', '--json', '--pack-destination', work], { cwd: path.join(root, 'client') });
    const [tarball] = JSON.parse(packed.slice(packed.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    assert.ok(tarball);
    const shipped = tarball.files.map((f) => f.path).sort();
    assert.ok(shipped.includes('dist/client/index.js') && shipped.includes('dist/client/index.d.ts'), shipped.join(' '));
    assert.equal(shipped.filter((f) => !/^dist\/.*\.(js|d\.ts)$/.test(f)), ['LICENSE', 'README.md', 'package.json']);

    const project = path.join(work, 'app');
    cpSync(path.join(root, 'test/client/package-user'), project, { recursive: true });
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
    await run(npm, ['install', '--offline', '--no-audit', '--no-fund', path.join(work, tarball.filename)], { cwd: project });
    assert.equal(readdirSync(path.join(project, 'node_modules')).filter((d) => !d.startsWith('.')), ['linkpeek-client']);

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const config = { BASE_URL: svc.baseUrl, CLOSED_URL: closedUrl, PAGE_URL: up.url('/page').href };
    writeFileSync(path.join(project, 'config.ts'), Object.entries(config).map(([k, v]) => `export const ${k} = ${JSON.stringify(v)};\n`).join(''));

    await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', project]).catch((err: { stdout: string }) => {
      assert.unreachable(`tsc on the strict project failed:\n${err.stdout}`);
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
    assert.equal(JSON.parse(fromCjs), { status: 'ok' });
  } finally {
    await Promise.all([svc.close(), up.close()]);
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
