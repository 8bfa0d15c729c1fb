import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLinkPeek, PreviewError } from '../../src/index.js';
import { LOCAL_DNS_SERVERS } from '../helpers/local-dns.js';
import { mulberry32 } from '../helpers/prng.js';
import { respond, startUpstream } from '../helpers/upstream.js';

// extract(): HTML the caller has, read by the service's scan, walls and rules with no network.
// Bad input gets a PreviewError naming the argument, or a partial answer within MAX_PAGE_BYTES and
// the scan's markup bounds.

const lp = createLinkPeek({ dnsServers: [LOCAL_DNS_SERVERS] });
const url = 'https://shop.example/item?id=7';

async function problemOf(run: () => Promise<unknown>): Promise<string> {
  const err = await run().catch((e: unknown) => e);
  assert.instance(err, PreviewError);
  const { reason, problems, message } = err as PreviewError;
  // The message names each bad argument, as `problems` does.
  if (problems.length > 0) assert.is(message, problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; '));
  return `${reason} ${message}`;
}

test('a page read offline is the object the service gives for it with probes off, and nothing is fetched', async () => {
  const page =
    '<html><head><title>Shell</title><meta property="og:image" content="/c.png"><meta property="og:image:width" content="600"><link rel="icon" href="/i.png"><meta name="rating" content="adult"></head><body>';
  const up = await startUpstream({ routes: { '/page': respond(200, page, { 'content-type': 'text/html', 'content-language': 'fr' }) } });
  const online = createLinkPeek({ allowPrivateNetworks: true, dnsServers: [LOCAL_DNS_SERVERS], probeImages: false });
  try {
    const fetched = await online.metadata(up.url('/page').href);
    const connections = up.connections;
    const read = await online.extract(page, { url: up.url('/page').href, headers: { 'Content-Language': 'fr' } });
    assert.equal(read, fetched);
    assert.equal(read.safety_tags, ['adult', 'suspicious_domain']);
    assert.is(read.image.url, `${up.origin}/c.png`);
    assert.is(read.lang, 'fr');
    assert.is(up.connections, connections, 'no connection for extract');
  } finally {
    await Promise.all([online.close(), up.close()]);
  }
});

test("prefer picks the family, as the API's prefer does", async () => {
  const page = '<meta property="og:title" content="OG"><meta name="twitter:title" content="TW">';
  assert.is((await lp.extract(page, { url })).title, 'OG');
  assert.is((await lp.extract(page, { url, prefer: 'twitter' })).title, 'TW');
  assert.is(
    await problemOf(() => lp.extract(page, { url, prefer: 'x' as 'og' })),
    'invalid_input prefer: must be equal to one of the allowed values: og, twitter',
  );
});

test('bytes are decoded by the charset of their headers or their meta; a string is text already', async () => {
  const latin1 = Uint8Array.from([...'<title>Caf'].map((c) => c.charCodeAt(0)).concat(0xe9, ...[...'</title>'].map((c) => c.charCodeAt(0))));
  assert.is((await lp.extract(latin1, { url, headers: { 'Content-Type': 'text/html; charset=windows-1252' } })).title, 'Café');
  const declared = new Uint8Array([...new TextEncoder().encode('<meta charset="windows-1252"><title>Caf'), 0xe9, ...new TextEncoder().encode('</title>')]);
  assert.is((await lp.extract(declared, { url })).title, 'Café');
  assert.is((await lp.extract('<meta charset="windows-1252"><title>Café – ok</title>', { url })).title, 'Café – ok');
});

test('a bot check is refused as the API refuses it', async () => {
  const err = (await lp.extract('<title>Just a moment...</title>', { url, headers: { 'cf-mitigated': 'challenge' } }).catch((e: unknown) => e)) as PreviewError;
  assert.instance(err, PreviewError);
  assert.equal({ reason: err.reason, status: err.status }, { reason: 'bot_check', status: 422 });
  assert.match(err.message, /^The site showed a bot check \(Cloudflare[^)]*\) instead of the page\.$/);
});

test('a page URL is required (by the types too) and checked as the API checks it; a private one is fine offline', async () => {
  const required = 'invalid_input url: is required: the URL of the page, to resolve its links against';
  // @ts-expect-error -- extract's signature says url is required
  assert.is(await problemOf(() => lp.extract('<title>x</title>', {})), required);
  // @ts-expect-error -- and so are the options that carry it
  assert.is(await problemOf(() => lp.extract('<title>x</title>')), required);
  assert.is(
    await problemOf(() => lp.extract('<title>x</title>', { url: 'ftp://a.example/' })),
    'invalid_input url: must be an absolute http or https URL, not ftp:',
  );
  assert.is((await lp.extract('<link rel=icon href=/i.ico>', { url: 'http://127.0.0.1:8080/' })).favicon.url, 'http://127.0.0.1:8080/i.ico');
});

test('what is not a page gets a clear error: not a string or bytes, empty, bad headers', async () => {
  for (const [html, kind] of [
    [42, 'number'],
    [null, 'null'],
    [{ html: '<title>' }, 'object'],
    [undefined, 'undefined'],
  ] as const) {
    assert.is(await problemOf(() => lp.extract(html as unknown as string, { url })), `invalid_input html: must be a string or bytes (Uint8Array), not ${kind}`);
  }
  assert.is(await problemOf(() => lp.extract('', { url })), 'empty_page The site sent an empty page.');
  assert.is(
    await problemOf(() => lp.extract('<title>x</title>', { url, headers: { 'content-type': 7 as unknown as string } })),
    'invalid_input headers: content-type: must be a string',
  );
});

test('50 MB of HTML is read up to MAX_PAGE_BYTES, as a fetched page is: a partial answer', async () => {
  const late = '<meta property="og:description" content="past the cap">';
  const huge = `<head><title>Huge</title>${' '.repeat(50 * 1024 * 1024)}${late}`;
  const meta = await lp.extract(huge, { url });
  assert.is(meta.title, 'Huge');
  assert.is(meta.description, null);
  const small = createLinkPeek({ maxPageBytes: 1024 });
  try {
    assert.is((await small.extract(`<title>T</title>${' '.repeat(1000)}${late}`, { url })).description, null);
    assert.is((await small.extract(`<title>T</title>${late}`, { url })).description, 'past the cap');
  } finally {
    await small.close();
  }
});

test('a head of 17 million tags stops at the scan budget with what it found', async () => {
  const meta = await lp.extract(`<head><title>Tags</title>${'<i>'.repeat(17 * 1024 * 1024)}`, { url });
  assert.is(meta.title, 'Tags');
});

test('binary bytes, and binary read as a string, give an object of nulls, not an error', async () => {
  const random = mulberry32(25);
  const bytes = Uint8Array.from({ length: 4 * 1024 * 1024 }, () => Math.floor(random() * 256));
  for (const page of [bytes, new TextDecoder('latin1').decode(bytes)]) {
    const meta = await lp.extract(page, { url });
    assert.equal([meta.title, meta.description, meta.url, meta.favicon.url], [null, null, url, 'https://shop.example/favicon.ico']);
  }
});

test.after(() => lp.close());
test.run();
