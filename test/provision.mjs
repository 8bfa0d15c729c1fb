// What the test run needs from the machine, provided by the run itself so that `npm test` works on
// a fresh Debian machine with only Node and apt:
//  - Debian's `chromium-headless-shell` and `chromium` (the element's tests drive them through
//    playwright-core, never a downloaded browser; test/element/browser.ts), `redis-server`, `curl`
//    (the README's commands are run as written) and `haproxy` (the fleet example's balancer,
//    test/docs/fleet.test.ts): installed with apt-get when missing and this process may (root,
//    apt-get present); otherwise the one command that installs them is named and the run stops.
//  - A Redis of the run's own on a free loopback port, persisting nothing, stopped when the run
//    ends: the tests never touch (or flush) whatever Redis the machine runs on 6379. Its URL
//    reaches the tests as TEST_REDIS_URL (test/helpers/redis.ts).
// bench/stalls.ts starts its Redis here too.

import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Debian package → the command it puts on PATH. */
export const SYSTEM_PACKAGES = {
  chromium: 'chromium',
  'chromium-headless-shell': 'chromium-headless-shell',
  'redis-server': 'redis-server',
  curl: 'curl',
  haproxy: 'haproxy',
};

/** The full path of `command` on PATH, or null. */
export function onPath(command, pathVariable = process.env.PATH ?? '') {
  for (const dir of pathVariable.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/**
 * What to do about the packages `wanted` (Debian names): `{ missing: [] }` when all are there;
 * else `install` (the apt-get steps this process may run) or `ask` (the one command to run by hand).
 */
export function provisionPlan(wanted, { pathVariable = process.env.PATH ?? '', isRoot = process.getuid?.() === 0 } = {}) {
  const missing = wanted.filter((name) => onPath(SYSTEM_PACKAGES[name], pathVariable) === null);
  if (missing.length === 0) return { missing };
  const hasApt = onPath('apt-get', pathVariable) !== null;
  if (hasApt && isRoot) {
    return {
      missing,
      install: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', ...missing],
      ],
    };
  }
  const command = hasApt
    ? `sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`
    : `install ${missing.join(' and ')} (Debian: apt-get install -y ${missing.join(' ')})`;
  return { missing, ask: `The tests need ${missing.join(' and ')}, not found on PATH. Run: ${command}` };
}

/** Installs what is missing when it may; returns null when all is there, else the line to show. */
export function provisionSystemPackages(wanted) {
  const plan = provisionPlan(wanted);
  if (plan.missing.length === 0) return null;
  if (plan.ask) return plan.ask;
  console.log(`installing ${plan.missing.join(', ')} (apt-get): the tests need them`);
  for (const [command, ...args] of plan.install) {
    const step = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (step.status !== 0) return `\`${command} ${args.join(' ')}\` failed (exit ${step.status}): install ${plan.missing.join(' ')} by hand`;
  }
  return null;
}

/** A TCP port nothing listens on at this moment (redis-server has no "port 0"). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves true once `PING` on the port answers `+PONG`. */
function pong(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) socket.end();
    });
    socket.on('close', () => resolve(answer.startsWith('+PONG')));
    socket.on('error', () => {});
  });
}

/**
 * Starts `redis-server` on a free port of 127.0.0.1, with no snapshot and no append-only file, in
 * a directory of its own. Resolves to `{ url, port, stop() }` once it answers PING. A port taken
 * between the choice and the bind is tried again on another. `extraArgs` go on its command line
 * (a test's own Redis: `--maxmemory`, `--cluster-enabled yes`, ...).
 */
export async function startRedis(command = onPath('redis-server') ?? 'redis-server', extraArgs = []) {
  const dir = mkdtempSync(path.join(tmpdir(), 'linkpeek-test-redis-'));
  for (let attempt = 1; attempt <= 5; attempt++) {
    const port = await freePort();
    const child = spawn(
      command,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning', ...extraArgs],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.once('error', () => {}); // a missing binary also ends in 'exit'
    let up = false;
    for (let i = 0; i < 100 && child.exitCode === null && child.signalCode === null && !up; i++) {
      up = await pong(port);
      if (!up) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (up) {
      const stopOnExit = () => {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      };
      process.once('exit', stopOnExit);
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        async stop() {
          process.off('exit', stopOnExit);
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    await exited;
    if (!/address already in use/i.test(stderr) || attempt === 5) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start on 127.0.0.1:${port}: ${stderr.trim() || 'no answer to PING within 5 s'}`);
    }
  }
}
