// List files are read again when they change ("test that a change is picked up").
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import FakeTimers from '@sinonjs/fake-timers';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WatchedDomainList } from '../../src/safety/watched-list.js';
import { until } from '../helpers/until.js';

const test = suite('watched domain list');
let dir: string;
const open: WatchedDomainList[] = [];
const warnings: { obj: object; msg?: string }[] = [];
const logger = { warn: (obj: object, msg?: string) => warnings.push({ obj, msg }) };

test.before.each(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkpeek-list-'));
  warnings.length = 0;
});
test.after.each(() => {
  for (const list of open.splice(0)) list.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function watch(file: string): WatchedDomainList {
  const list = new WatchedDomainList(file, { pollIntervalMs: 20, logger });
  open.push(list);
  return list;
}

/** Polls until `predicate` holds or two seconds pass. */
async function eventually(predicate: () => boolean): Promise<boolean> {
  await until(predicate, 'the watched file to be read again', 2_000).catch(() => {});
  return predicate();
}

test('the first read is there at once', () => {
  const file = path.join(dir, 'threats.txt');
  fs.writeFileSync(file, 'evil.example\n');
  assert.equal([...watch(file).current()], ['evil.example']);
});

test('a rewrite in place is picked up', async () => {
  const file = path.join(dir, 'threats.txt');
  fs.writeFileSync(file, 'evil.example\n');
  const list = watch(file);
  fs.writeFileSync(file, 'evil.example\nnew-threat.example\n');
  assert.ok(await eventually(() => list.current().has('new-threat.example')));
  assert.is(list.current().size, 2);
});

test('a file replaced by rename (how editors and deploy tools write) is picked up', async () => {
  const file = path.join(dir, 'threats.txt');
  fs.writeFileSync(file, 'old.example\n');
  const list = watch(file);
  const next = path.join(dir, 'threats.txt.new');
  fs.writeFileSync(next, '0.0.0.0 replaced.example\n');
  fs.renameSync(next, file);
  assert.ok(await eventually(() => list.current().has('replaced.example')));
  assert.not.ok(list.current().has('old.example'));
});

test('a missing file warns, lists nothing, and is read once it appears', async () => {
  const file = path.join(dir, 'later.txt');
  const list = watch(file);
  assert.is(list.current().size, 0);
  assert.is(warnings.length, 1);
  fs.writeFileSync(file, 'late.example\n');
  assert.ok(await eventually(() => list.current().has('late.example')));
});

test('a deleted file keeps the last list', async () => {
  const file = path.join(dir, 'threats.txt');
  fs.writeFileSync(file, 'kept.example\n');
  const list = watch(file);
  fs.rmSync(file);
  assert.ok(await eventually(() => warnings.some((w) => /gone/.test(w.msg ?? ''))));
  assert.equal([...list.current()], ['kept.example']);
});

test('after close, changes are no longer read', async () => {
  const file = path.join(dir, 'threats.txt');
  fs.writeFileSync(file, 'one.example\n');
  const timers = FakeTimers.install({ toFake: ['setInterval', 'clearInterval'] });
  try {
    const list = watch(file);
    list.close();
    fs.writeFileSync(file, 'two.example\n');
    assert.is(timers.countTimers(), 0, 'no poll left to run');
    timers.tick(1000);
    assert.equal([...list.current()], ['one.example']);
  } finally {
    timers.uninstall();
  }
});

test('rejected lines are logged with their count', () => {
  const file = path.join(dir, 'threats.txt');
  fs.writeFileSync(file, 'ok.example\ncom\n');
  watch(file);
  assert.equal(
    warnings.map((w) => (w.obj as { rejected?: number }).rejected),
    [1],
  );
});

test.run();
