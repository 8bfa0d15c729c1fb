// readPrefix: the start of a body for the metadata service (a non-HTML page), the image proxy
// (the bytes checked before any header leaves) and the image probe (until the bytes name the image).
import { Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readPrefix } from '../../src/fetch/read-prefix.js';
import { trackedSource } from '../wasm-parser/cuts.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

/** A body of `chunks` that counts the chunks pulled and notes whether return() was called. */
function body(chunks: string[]) {
  const { source, state } = trackedSource(chunks.map(bytes));
  return { iterable: source, seen: state };
}

async function drain(rest: AsyncIterator<Uint8Array> | null): Promise<string> {
  let out = '';
  for (let next = await rest?.next(); next && !next.done; next = await rest!.next()) out += text(next.value);
  return out;
}

test('pulls no chunk past the limit, keeps the last one whole, and the rest goes on after it', async () => {
  const { iterable, seen } = body(['abc', 'defg', 'hij', 'klm']);
  const { head, rest } = await readPrefix(iterable, 5);
  assert.is(text(head), 'abcdefg');
  assert.is(seen.pulled, 2);
  assert.is(await drain(rest), 'hijklm');
});

test('a body shorter than the limit is read whole and has no rest', async () => {
  const { iterable } = body(['ab', 'c']);
  const { head, rest } = await readPrefix(iterable, 64);
  assert.is(text(head), 'abc');
  assert.is(rest, null);
});

test('an empty body gives an empty head', async () => {
  const { head, rest } = await readPrefix(body([]).iterable, 64);
  assert.is(head.length, 0);
  assert.is(rest, null);
});

test('enough() sees the bytes so far after each chunk and stops the reading', async () => {
  const { iterable, seen } = body(['<?x', 'ml v', 'ersion', '="1.0"']);
  const looked: string[] = [];
  const { head, rest } = await readPrefix(iterable, 1024, (so) => {
    looked.push(text(so));
    return text(so).includes('version');
  });
  assert.equal(looked, ['<?x', '<?xml v', '<?xml version']);
  assert.is(text(head), '<?xml version');
  assert.is(seen.pulled, 3);
  assert.is(await drain(rest), '="1.0"');
});

test('the body is left open for its owner: readPrefix never calls return()', async () => {
  const byLimit = body(['abcdef', 'ghi']);
  await readPrefix(byLimit.iterable, 2);
  const byEnough = body(['x', 'y']);
  await readPrefix(byEnough.iterable, 64, () => true);
  assert.is(byLimit.seen.returned, false);
  assert.is(byEnough.seen.returned, false);
});

test('a Node stream stopped early is not destroyed (a for-await break would destroy it)', async () => {
  const stream = Readable.from([Buffer.from('GIF89a'), Buffer.from('\x01\x00'), Buffer.from('rest')], { objectMode: true });
  const { head, rest } = await readPrefix(stream, 8);
  assert.is(Buffer.from(head).toString('latin1'), 'GIF89a\x01\x00');
  assert.is(stream.destroyed, false);
  assert.is(await drain(rest), 'rest');
});

test.run();
