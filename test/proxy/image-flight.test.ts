// The flight's own bookkeeping, driven by hand: an image whose bytes come from a generator the test
// feeds, members joining and leaving as the proxy makes them (src/proxy/proxy.ts), and each
// member's stream read as Koa reads a body. single-flight.test.ts runs the same flights over HTTP.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Readable } from 'node:stream';
import { FetchFailed } from '../../src/errors.js';
import { ByteScheduler } from '../../src/proxy/byte-scheduler.js';
import { ImageFlights, type Joined, type OpenedImage } from '../../src/proxy/image-flight.js';

const CHUNK = 64 * 1024;
/** The flights' own behaviour, without an egress budget (byte-scheduler.test.ts tests that). */
const UNBOUNDED = { bytesPerSecond: 0, burstBytes: 0 };

/** The byte chunk k of an image is made of (the same for every fetch of it unless `changed`). */
const fill = (k: number) => k % 251;

/** What one fetch of an image sees: its chunks, their bytes, its ETag, and whether it declares its length. */
interface Version {
  chunks: number;
  fill: (k: number) => number;
  etag?: string;
  /** Sent chunked, without Content-Length. */
  chunked?: boolean;
}

/**
 * An image of `chunks` chunks of CHUNK bytes; each open() is a fetch of its own (counted), and
 * `closed` says whether the last fetch was closed. `version(n)` is what the n-th fetch sees.
 */
function image(chunks: number, version: (n: number) => Version = () => ({ chunks, fill })) {
  let fetches = 0;
  let closed = false;
  const open = (): Promise<OpenedImage> => {
    const seen = version(++fetches);
    closed = false;
    async function* bytes(): AsyncGenerator<Uint8Array> {
      for (let k = 0; k < seen.chunks; k++) yield Buffer.alloc(CHUNK, seen.fill(k));
    }
    const headers: Record<string, string> = {};
    if (seen.etag !== undefined) headers.etag = seen.etag;
    return Promise.resolve({
      format: { mime: 'image/png' } as OpenedImage['format'],
      length: seen.chunked ? null : seen.chunks * CHUNK,
      headers,
      bytes: bytes(),
      close: () => (closed = true),
    });
  };
  const all = Buffer.concat(Array.from({ length: chunks }, (_, k) => Buffer.alloc(CHUNK, fill(k))));
  return { open, closed: () => closed, fetches: () => fetches, bytes: all };
}

/** Two clients asking for `img` at once: both members of one new flight, with their streams. */
async function twoMembers(img: ReturnType<typeof image>): Promise<{ joined: [Joined, Joined]; bodies: [Readable, Readable] }> {
  const flights = new ImageFlights(new ByteScheduler(UNBOUNDED));
  const joined: [Joined, Joined] = [
    flights.join('https://img.test/a.png', { client: '192.0.2.1', open: img.open }),
    flights.join('https://img.test/a.png', { client: '192.0.2.1', open: img.open }),
  ];
  const [a, b] = await Promise.all(joined.map((member) => member.ready));
  return { joined, bodies: [a!.body, b!.body] };
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
  const flights = new ImageFlights(new ByteScheduler(UNBOUNDED));
  const { body } = await flights.join('https://img.test/a.png', { client: '192.0.2.1', open: img.open }).ready;
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
  const {
    joined: [leaving],
    bodies: [gone, kept],
  } = await twoMembers(img);
  const got = readAll(kept, 'the staying member');
  // What the proxy does when a client goes away mid-image: its response closes, so it leaves, and
  // Koa destroys the body of a closed response.
  gone.once('data', () => {
    leaving.leave();
    gone.destroy();
  });
  gone.resume();
  assert.ok((await got).equals(img.bytes));
  assert.ok(img.closed(), 'the upstream is closed once the image has been read');
});

test('a member leaving before its stream exists is counted out; the last one to go closes the upstream', async () => {
  const img = image(4);
  const flights = new ImageFlights(new ByteScheduler(UNBOUNDED));
  const early = flights.join('https://img.test/c.png', { client: '192.0.2.1', open: img.open });
  const late = flights.join('https://img.test/c.png', { client: '192.0.2.1', open: img.open });
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

test('a member more than 256 KiB behind the fastest goes on with a fetch of its own: it gets every byte, and the fast one is not held back', async () => {
  const img = image(40);
  const {
    bodies: [fast, slow],
  } = await twoMembers(img);
  assert.ok((await readAll(fast, 'the fast member')).equals(img.bytes), 'the fast member reads it all while the slow one reads nothing');
  assert.is(img.fetches(), 2, "the flight's fetch and the slow member's own");
  assert.ok((await readAll(slow, 'the slow member')).equals(img.bytes));
  assert.ok(img.closed());
});

for (const [name, changed] of [
  ['different bytes', { chunks: 40, fill: (k: number) => (k === 2 ? 250 : fill(k)) }],
  ['fewer bytes than were sent, no Content-Length', { chunks: 3, fill, chunked: true }],
  ['another length', { chunks: 41, fill }],
  ['another ETag, the same bytes', { chunks: 40, fill, etag: '"v2"' }],
] as const) {
  test(`a member whose own fetch finds the image changed (${name}) fails, and is never sent a spliced image`, async () => {
    const chunked = 'chunked' in changed;
    const img = image(40, (n) => (n === 1 ? { chunks: 40, fill, chunked } : changed));
    const {
      bodies: [fast, slow],
    } = await twoMembers(img);
    // Listened for from the start, as Koa does for a body: the failure may come before it is read.
    const failed = new Promise<FetchFailed>((resolve) => slow.once('error', resolve));
    assert.ok((await readAll(fast, 'the fast member')).equals(img.bytes));
    const got: Buffer[] = [];
    slow.on('data', (chunk: Buffer) => got.push(chunk));
    const err = await failed;
    const sent = Buffer.concat(got);
    assert.ok(sent.length < img.bytes.length && sent.equals(img.bytes.subarray(0, sent.length)), 'only bytes of the image it began');
    assert.ok(err instanceof FetchFailed);
    assert.match(err.reason, 'the image changed while it was sent');
  });
}

test.run();
