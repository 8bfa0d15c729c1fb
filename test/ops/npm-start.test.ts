import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkedRequest } from '../helpers/service.js';
import { COMPILED_MAIN, startProcess } from '../helpers/process.js';

// `npm start` as an operator or a container runs it: the process started is npm, and the signal
// goes to npm. The start script execs node, so npm's child is the service itself and the SIGTERM
// npm forwards reaches its shutdown handler: nothing keeps listening, nothing is orphaned.

const root = fileURLToPath(new URL('../../', import.meta.url));
const GRACE_MS = 3000;

/** The pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const connects = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

test('SIGTERM to the npm start process stops the service within the grace: npm exits 0, nothing listens, no orphan', async () => {
  assert.ok(existsSync(path.join(root, COMPILED_MAIN)), `${COMPILED_MAIN} is built (npm run build)`);
  const svc = await startProcess({ RATE_LIMIT_MAX: '0', SHUTDOWN_GRACE_MS: String(GRACE_MS) }, 'npm start');
  const service = childrenOf(svc.child.pid!);
  try {
    const health = await checkedRequest(`${svc.baseUrl}/healthz`);
    assert.is(health.status, 200);
    assert.is(service.length, 1, 'npm runs one child');
    const cmdline = readFileSync(`/proc/${service[0]}/cmdline`, 'utf8').split('\0');
    assert.is(path.basename(cmdline[0]!), 'node', `npm's child is node itself, not a shell: ${cmdline.join(' ')}`);

    const sent = Date.now();
    svc.child.kill('SIGTERM');
    assert.is(await svc.exited, 0);
    assert.ok(Date.now() - sent < GRACE_MS, `npm exited ${Date.now() - sent} ms after the signal`);
    assert.not.ok(alive(service[0]!), 'the service process is gone');
    assert.not.ok(await connects(Number(new URL(svc.baseUrl).port)), 'nothing listens on the port');
    assert.ok(svc.logs.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'));
  } finally {
    const left = [...service, ...service.flatMap(childrenOf)].filter(alive); // when a failed check left them
    await svc.stop('SIGKILL');
    for (const pid of left) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

test('npm start without a build says in one line how to build, and exits 1', async () => {
  // A checkout with the start script and its launcher but no dist/.
  const checkout = mkdtempSync(path.join(tmpdir(), 'linkpeek-unbuilt-'));
  try {
    const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    writeFileSync(path.join(checkout, 'package.json'), JSON.stringify({ name: 'linkpeek', type: 'module', scripts: { start: scripts.start } }));
    mkdirSync(path.join(checkout, 'scripts'));
    copyFileSync(path.join(root, 'scripts/start.mjs'), path.join(checkout, 'scripts/start.mjs'));
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile('npm', ['start', '--silent'], { cwd: checkout }, (err, _stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, stderr }));
    });
    assert.is(result.code, 1);
    assert.equal(result.stderr.trim().split('\n'), [
      'linkpeek: no build at dist/server/src/main.js: run `npm run build` (needs the devDependencies: `npm ci`), or copy a prebuilt dist/ here',
    ]);
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
});

test.run();
