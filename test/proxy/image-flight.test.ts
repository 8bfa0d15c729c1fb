// The flight's own bookkeeping, driven by hand: an image whose bytes come from a generator the test
// feeds, members joining and leaving as the proxy makes them (src/proxy/proxy.ts), and each
// member's stream read as Koa reads a body. single-flight.test.ts runs the same flights over HTTP.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Readable } from 'node:stream';
import { FetchFailed } from '../../src/errors.js';
import { ImageFlights, type OpenedImage } from '../../src/proxy/image-flight.js';

const CHUNK = 64 * 1024;

/** An image of `chunks` chunks of CHUNK bytes (byte i of chunk k is k), and whether it was closed. */
function image(chunks: number): { open: () => Promise<OpenedImage>; closed: () => boolean; bytes: Buffer } {
  let closed = false;
  async function* bytes(): AsyncGenerator<Uint8Array> {
    for (let k = 0; k < chunks; k++) yield Buffer.alloc(CHUNK, k);
  }
  const opened: OpenedImage = {
    format: { mime: 'image/png' } as OpenedImage['format'],
    length: chunks * CHUNK,
    headers: {},
    bytes: bytes(),
    close: () => (closed = true),
  };
  const all = Buffer.concat(Array.from({ length: chunks }, (_, k) => Buffer.alloc(CHUNK, k)));
  return { open: () => Promise.resolve(opened), closed: () => closed, bytes: all };
}

/** The next 'readable' of a paused stream, or a failure naming what was read if none comes. */
function readable(body: Readable, parts: Buffer[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // A guard, not a wait: a stream whose read() is never answered stays silent, and the test
    // must fail rather than hang.
    const guard = setTimeout(() => reject(new Error(`stalled after ${Buffer.concat(parts).length} bytes`)), 5000);
    body.once('readable', () => {
      clearTimeout(guard);
      resolve();
    });
  });
}

/** Everything `body` gives until it ends, or a failure naming what was read if it stalls. */
function readAll(body: Readable, what: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  return new Promise((resolve, reject) => {
    // A guard, not a wait: a stalled stream never ends, and the test must fail rather than hang.
    const guard = setTimeout(() => reject(new Error(`${what} stalled after ${Buffer.concat(parts).length} bytes`)), 5000);
    body.on('data', (chunk: Buffer) => parts.push(chunk));
    body.once('end', () => {
      clearTimeout(guard);
      resolve(Buffer.concat(parts));
    });
    body.once('error', (err) => {
      clearTimeout(guard);
      reject(err);
    });
  });
}

test('a lone member asking for more with exactly one chunk still buffered gets the rest (its read() must be answered)', async () => {
  const img = image(40);
  const flights = new ImageFlights();
  const { body } = await flights.join('https://img.test/a.png', img.open).ready;
  // Read one chunk at a time, paused, as a consumer held back by its socket does: read() asks for
  // more while the chunk it is taking still counts as buffered.
  const parts: Buffer[] = [];
  let guard = 0;
  while (parts.reduce((n, p) => n + p.length, 0) < img.bytes.length && guard++ < 10_000) {
    const chunk = body.read() as Buffer | null;
    if (chunk !== null) parts.push(chunk);
    else await readable(body, parts);
  }
  assert.ok(Buffer.concat(parts).equals(img.bytes));
});

test('a member whose client goes away after its stream exists is counted out once: the other member gets every byte', async () => {
  const img = image(40);
  const flights = new ImageFlights();
  const leaving = flights.join('https://img.test/b.png', img.open);
  const staying = flights.join('https://img.test/b.png', img.open);
  const [gone, kept] = await Promise.all([leaving.ready, staying.ready]);
  const got = readAll(kept.body, 'the staying member');
  // What the proxy does when a client goes away mid-image: its response closes, so it leaves, and
  // Koa destroys the body of a closed response.
  gone.body.once('data', () => {
    leaving.leave();
    gone.body.destroy();
  });
  gone.body.resume();
  assert.ok((await got).equals(img.bytes));
  assert.ok(img.closed(), 'the upstream is closed once the image has been read');
});

test('a member leaving before its stream exists is counted out; the last one to go closes the upstream', async () => {
  const img = image(4);
  const flights = new ImageFlights();
  const early = flights.join('https://img.test/c.png', img.open);
  const late = flights.join('https://img.test/c.png', img.open);
  early.leave();
  early.leave(); // twice, as a close and an error may both say so
  await early.ready.then(
    () => assert.unreachable('a member that left gets no stream'),
    (err: FetchFailed) => assert.equal([err instanceof FetchFailed, err.reason, err.pageFailure], [true, 'the client went away', false]),
  );
  const { body } = await late.ready;
  assert.is(img.closed(), false);
  body.destroy();
  assert.ok(img.closed());
});

test.run();
