import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { spawn } from 'node:child_process';
import { COMPILED_MAIN } from '../helpers/process.js';
import { startService } from '../helpers/service.js';
import { healthzUrl } from '../../src/healthcheck.js';
import { REPO_ROOT } from './code-blocks.js';

// No container runtime runs here, so the Dockerfile is kept in step with what CI does run:
// .ci/production-path installs, builds and prunes a fresh clone with the same npm commands as the
// Dockerfile's build stage, then starts the pruned tree with the Dockerfile's CMD and runs its
// HEALTHCHECK against it. These tests fail when the two drift apart.

const read = (file: string) => readFileSync(REPO_ROOT + file, 'utf8');
const dockerfile = read('Dockerfile');
const instructions = dockerfile
  .split('\n')
  .filter((line) => /^[A-Z]+ /.test(line))
  .map((line) => ({ op: line.slice(0, line.indexOf(' ')), arg: line.slice(line.indexOf(' ') + 1) }));

/** The npm commands production-path runs in its first clone (the one it builds, prunes and starts). */
function productionPathBuild(): string[] {
  return [...read('.ci/production-path').matchAll(/^quiet_npm "\$work\/built" \S+ (.+?)( &)?$/gm)].map((m) => `npm ${m[1]}`);
}

test("the build stage's RUN steps are the commands .ci/production-path runs and tests, in order", () => {
  const build = productionPathBuild();
  assert.equal(build, ['npm ci --foreground-scripts', 'npm prune --omit=dev']);
  const stages = dockerfile.split(/^FROM /m).slice(1);
  assert.is(stages.length, 2, 'a build stage and a runtime stage');
  const runs = instructions.filter((i) => i.op === 'RUN').map((i) => i.arg);
  assert.equal(runs, build);
  assert.ok(stages[0]!.includes('RUN '), 'the RUN steps are in the build stage');
  assert.not.ok(stages[1]!.includes('RUN '), 'the runtime stage runs nothing of its own');
});

test('the runtime stage takes only what runs of the pruned tree, runs as the unprivileged node user, with the entry production-path starts', () => {
  const runtime = dockerfile.split(/^FROM /m)[2]!;
  const copied = [...runtime.matchAll(/^COPY --from=build (.+) \S+$/gm)].flatMap((m) => m[1]!.split(' ').map((from) => from.replace(/^\/app\//, '')));
  assert.equal(copied, ['package.json', 'openapi.yaml', 'node_modules', 'dist']);
  // production-path starts the entry in a copy of exactly these (no src/, test/ or bench/).
  assert.match(read('.ci/production-path'), new RegExp(`^image_files="${copied.join(' ')}"$`, 'm'));
  assert.match(read('.ci/production-path'), /serve_and_stop "\$work\/image" \$entry/);
  assert.match(runtime, /^USER node$/m);
  const cmd = instructions.filter((i) => i.op === 'CMD');
  assert.equal(
    cmd.map((i) => JSON.parse(i.arg) as string[]),
    [['node', COMPILED_MAIN]],
  );
});

test('the HEALTHCHECK asks /healthz at the HOST and PORT the service listens on', () => {
  const [healthcheck, ...more] = instructions.filter((i) => i.op === 'HEALTHCHECK');
  assert.is(more.length, 0);
  assert.match(healthcheck!.arg, / CMD node dist\/server\/src\/healthcheck\.js$/);
  assert.match(dockerfile, /^ENV .*\bPORT=3000\b/m);
  assert.match(read('.ci/production-path'), /HOST=127\.0\.0\.1 PORT=\$port sh -c "\$healthcheck"/);
  assert.equal(
    [healthzUrl('0.0.0.0', 3000), healthzUrl('::', 3000), healthzUrl('10.1.2.3', 8080), healthzUrl('::1', 80)],
    ['http://127.0.0.1:3000/healthz', 'http://[::1]:3000/healthz', 'http://10.1.2.3:8080/healthz', 'http://[::1]:80/healthz'],
  );
});

test('the HEALTHCHECK exits 0 for a service answering /healthz at HOST and PORT, 1 when nothing does', async () => {
  const svc = await startService({ RATE_LIMIT_MAX: '0' });
  const port = new URL(svc.baseUrl).port;
  const check = (env: Record<string, string>) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['dist/server/src/healthcheck.js'], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: 'ignore',
      });
      child.once('exit', (code) => resolve(code));
    });
  try {
    assert.is(await check({ HOST: '127.0.0.1', PORT: port }), 0);
    assert.is(await check({ PORT: port }), 0, 'HOST unset: 0.0.0.0, asked on 127.0.0.1');
    assert.is(await check({ HOST: '::1', PORT: port }), 1, 'nothing listens on ::1 there');
  } finally {
    await svc.close();
  }
  assert.is(await check({ HOST: '127.0.0.1', PORT: port }), 1, 'the service stopped');
});

test('compose.yaml: the service built from the Dockerfile, pointed at the Redis beside it', () => {
  const compose = parse(read('compose.yaml')) as { services: Record<string, any> };
  assert.equal(Object.keys(compose.services).sort(), ['linkpeek', 'redis']);
  const { linkpeek, redis } = compose.services;
  assert.is(linkpeek.build, '.');
  assert.is(linkpeek.environment.REDIS_URL, 'redis://redis:6379');
  assert.equal(linkpeek.ports, ['3000:3000']);
  assert.equal(linkpeek.depends_on, { redis: { condition: 'service_healthy' } });
  assert.match(redis.image, /^redis:7/);
  // README "Redis memory": bounded, and only keys with an expiry (the cache's) evicted.
  assert.equal(redis.command, ['redis-server', '--save', '', '--appendonly', 'no', '--maxmemory', '256mb', '--maxmemory-policy', 'volatile-lru']);
});

test('.dockerignore leaves out what the build makes afresh, and packed tarballs', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  for (const entry of ['.git', 'node_modules', 'dist', '*.tgz']) assert.ok(ignored.includes(entry), entry);
});

test.run();
