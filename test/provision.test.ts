import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { onPath, provisionPlan, startRedis } from './provision.mjs';

// What `npm test` provides for itself (test/provision.mjs): the Debian packages it installs or
// names, and the Redis of its own. PATH is narrowed to a directory of links to the real programs,
// so that a machine without chromium or redis-server is seen without uninstalling anything.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../', import.meta.url));

/** A directory holding links to the named programs of this machine (and nothing else), for PATH. */
function pathWith(...commands: string[]): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'linkpeek-path-'));
  for (const command of commands) {
    const real = command === 'node' ? process.execPath : onPath(command);
    assert.ok(real, `${command} is on this machine's PATH`);
    symlinkSync(real, path.join(dir, command));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// redis-server is on PATH whenever this file runs: test/run.mjs provides it for startRedis below.
test('everything on PATH: nothing to install', () => {
  assert.equal(provisionPlan(['redis-server']), { missing: [] });
});

test('as root with apt-get: the missing packages are installed, after an apt-get update', () => {
  const bin = pathWith('apt-get', 'redis-server');
  try {
    assert.equal(provisionPlan(['chromium', 'redis-server'], { pathVariable: bin.dir, isRoot: true }), {
      missing: ['chromium'],
      install: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', 'chromium'],
      ],
    });
  } finally {
    bin.remove();
  }
});

test('not root: the one command to run is named, with sudo', () => {
  const bin = pathWith('apt-get');
  try {
    assert.equal(provisionPlan(['chromium', 'redis-server'], { pathVariable: bin.dir, isRoot: false }), {
      missing: ['chromium', 'redis-server'],
      ask: 'The tests need chromium and redis-server, not found on PATH. Run: sudo apt-get update && sudo apt-get install -y chromium redis-server',
    });
  } finally {
    bin.remove();
  }
});

test('no apt-get: the packages are named with their Debian install', () => {
  assert.equal(provisionPlan(['redis-server'], { pathVariable: '/nonexistent', isRoot: true }), {
    missing: ['redis-server'],
    ask: 'The tests need redis-server, not found on PATH. Run: install redis-server (Debian: apt-get install -y redis-server)',
  });
});

test('test/run.mjs without redis-server and apt-get on PATH says what to run and fails before any test', async () => {
  const bin = pathWith('node');
  const env: Record<string, string> = { PATH: bin.dir, HOME: process.env.HOME ?? '/' };
  try {
    const outcome = await run(process.execPath, ['test/run.mjs', 'store/rate-limit'], { cwd: root, env }).then(
      () => ({ code: 0, stdout: '', stderr: 'run.mjs succeeded without redis-server' }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    assert.is(outcome.code, 1);
    assert.is(outcome.stderr, 'The tests need redis-server, not found on PATH. Run: install redis-server (Debian: apt-get install -y redis-server)\n');
    assert.is(outcome.stdout, '\n0 passed, 1 failed\n');
  } finally {
    bin.remove();
  }
});

test("the run's Redis: its own port, answers, persists nothing, and is gone once stopped", async () => {
  const redis = await startRedis();
  assert.is.not(redis.port, 6379);
  assert.is(redis.url, `redis://127.0.0.1:${redis.port}`);
  const client = new Redis(redis.url);
  try {
    assert.is(await client.ping(), 'PONG');
    assert.equal(await client.config('GET', 'save'), ['save', '']);
    assert.equal(await client.config('GET', 'appendonly'), ['appendonly', 'no']);
  } finally {
    client.disconnect();
  }
  await redis.stop();
  const refused = await new Promise<boolean>((resolve) => {
    const socket = net.connect(redis.port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
  assert.ok(refused, 'nothing listens on its port after stop()');
});

test.run();
