import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkedRequest } from '../helpers/service.js';
import { startProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';

// src/log.ts gathers log lines and writes them together: on a quiet instance a line still goes
// out within about a second, and what is pending when the process ends is written then.

async function lineFor(logs: Array<Record<string, unknown>>, reqId: string, withinMs: number) {
  await until(() => logs.some((l) => l.reqId === reqId), `the line of request ${reqId}`, withinMs).catch(() => {});
  return logs.find((l) => l.reqId === reqId);
}

test('a quiet instance writes a request line within about a second', async () => {
  const svc = await startProcess({ RATE_LIMIT_MAX: '0' });
  try {
    const res = await checkedRequest(`${svc.baseUrl}/openapi.yaml`);
    const line = await lineFor(svc.logs, res.headers.get('x-request-id')!, 2500);
    assert.ok(line, 'the line arrived');
    assert.is(line.url, '/openapi.yaml');
    assert.is(line.status, 200);
  } finally {
    await svc.stop('SIGKILL');
  }
});

test('lines still gathered when the process is stopped are written before it exits', async () => {
  const svc = await startProcess({ RATE_LIMIT_MAX: '0' });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await checkedRequest(`${svc.baseUrl}/healthz`)).headers.get('x-request-id')!);
  svc.child.kill('SIGTERM');
  assert.is(await svc.exited, 0);
  const stdout = svc.child.stdout!;
  if (!stdout.readableEnded) await new Promise((resolve) => stdout.once('end', resolve)); // the pipe's last bytes
  const logged = new Set(svc.logs.map((l) => l.reqId));
  assert.equal(
    ids.filter((id) => !logged.has(id)),
    [],
  );
  assert.ok(
    svc.logs.some((l) => l.msg === 'stopped'),
    'the last line of all',
  );
});

test.run();
