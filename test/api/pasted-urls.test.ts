import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { png } from '../proxy/images.js';

// URLs as people paste them: whatever the WHATWG URL parser (a browser's address bar, `new URL`)
// takes for http and https is accepted, and what is fetched is its serialisation. RFC 3986 would
// refuse each of these (`|`, `[`, `]`, `{`, `}`, `^`, spaces). Other schemes, credentials and
// private addresses are refused as before (api/validation.test.ts). The answer's `url` is that
// URL as an RFC 3986 URI (docs/SPEC.md: "string, URI"), the characters RFC 3986 refuses encoded.

interface Ctx {
  up: Upstream;
  svc: Service;
}
const test = suite<Ctx>('URLs as people paste them');

test.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: {
      '/image.png': respond(200, png(), { 'content-type': 'image/png' }),
      '*': respond(200, '<title>pasted</title>', { 'content-type': 'text/html' }),
    },
  });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
});
test.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
});

const metadataPath = (url: string) => `/v1/metadata?url=${encodeURIComponent(url)}`;
const proxyPath = (url: string) => `/v1/cors-proxy?url=${encodeURIComponent(url)}`;

/** The request target the upstream received last. */
const lastTarget = (up: Upstream) => up.requests.at(-1)!.path;

// [what it is, path and query as pasted, as WHATWG writes them out, as an RFC 3986 URI]
/**
 * Node 20's URL parser keeps `^` in a path; Node 24's, after a later edition of the URL Standard,
 * percent-encodes it. What is fetched is what this runtime's parser writes, one of the two.
 */
const CARET_PATH = new URL('http://h/{id}^/x').pathname;
if (CARET_PATH !== '/%7Bid%7D^/x' && CARET_PATH !== '/%7Bid%7D%5E/x') throw new Error(`unexpected URL parser: ${CARET_PATH}`);

const pasted: Array<[string, string, string, string]> = [
  [
    'a Google Fonts URL (|)',
    '/css2?family=Roboto|Open+Sans&display=swap',
    '/css2?family=Roboto|Open+Sans&display=swap',
    '/css2?family=Roboto%7COpen+Sans&display=swap',
  ],
  [
    'a JSON:API page ([ ])',
    '/articles?page[number]=2&page[size]=10',
    '/articles?page[number]=2&page[size]=10',
    '/articles?page%5Bnumber%5D=2&page%5Bsize%5D=10',
  ],
  ['braces and a caret in the path', '/{id}^/x', CARET_PATH, '/%7Bid%7D%5E/x'],
  ['braces and a caret in the query', '/search?q={a}^b', '/search?q={a}^b', '/search?q=%7Ba%7D%5Eb'],
  ['a trailing space', '/trailing ', '/trailing', '/trailing'],
  ['a leading space and a space inside', ' /inner space', '/inner%20space', '/inner%20space'],
];

for (const [name, raw, written, uri] of pasted) {
  test(`${name}: 200, the page fetched is the URL as WHATWG writes it, and its url a URI`, async ({ up, svc }) => {
    const url = raw.startsWith(' ') ? ` ${up.origin}${raw.slice(1)}` : `${up.origin}${raw}`;
    const res = await svc.request(metadataPath(url));
    assert.is(res.status, 200, res.text);
    assert.is(lastTarget(up), written);
    assert.is(res.json.url, `${up.origin}${uri}`);
    assert.is(res.json.title, 'pasted');
  });
}

test('the image proxy takes the same URLs', async ({ up, svc }) => {
  const res = await svc.request(proxyPath(`${up.origin}/image.png?family=A|B&page[number]=2&v={1}^ `));
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
  assert.is(lastTarget(up), '/image.png?family=A|B&page[number]=2&v={1}^');
});

// Every ASCII punctuation mark but the ones that end or leave the query (#) or that WHATWG
// percent-encodes there (" ' < > and the space): each of these stays as it is.
const KEPT_IN_QUERY = '!$%&()*+,-./:;=?@[\\]^_`{|}~';
const EVERY_MARK = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** `prefix` then `marks` over and over, cut to exactly 4096 characters. */
function fill(prefix: string, marks: string): string {
  return (prefix + marks.repeat(Math.ceil(4096 / marks.length))).slice(0, 4096);
}

test('4,096 characters of punctuation the query keeps: 200, fetched exactly as given', async ({ up, svc }) => {
  const url = fill(`${up.origin}/long?`, KEPT_IN_QUERY);
  assert.is(url.length, 4096);
  assert.is(new URL(url).href, url, 'the test URL needs no percent-encoding');
  const res = await svc.request(metadataPath(url));
  assert.is(res.status, 200, res.text);
  assert.is(`${up.origin}${lastTarget(up)}`, url);
  assert.is(res.json.url.length, url.length + 2 * (url.match(/[[\]^`{|}\\]|%(?![0-9A-Fa-f]{2})/g) ?? []).length, 'each mark RFC 3986 refuses is a %XX triplet');
});

test('4,096 characters with every punctuation mark: a 400 that says how long the URL is once percent-encoded', async ({ up, svc }) => {
  const url = fill(`${up.origin}/long?`, EVERY_MARK);
  const encoded = new URL(url).href.length;
  assert.ok(encoded > 4096);
  const before = up.requests.length;
  const message = `must be at most 4096 characters once percent-encoded (it is ${encoded})`;
  const res = await svc.request(metadataPath(url));
  assert.is(res.status, 400);
  assert.equal(res.json, { success: false, errors: [{ code: 400, message, path: ['query', 'url'] }] });
  const proxied = await svc.request(proxyPath(url));
  assert.equal([proxied.status, proxied.json], [400, { error: `url: ${message}` }]);
  assert.is(up.requests.length, before, 'nothing was fetched');
});

test('4,097 characters: a 400 before the URL is even parsed', async ({ up, svc }) => {
  const res = await svc.request(metadataPath(`${fill(`${up.origin}/long?`, KEPT_IN_QUERY)}x`));
  assert.is(res.status, 400);
  assert.equal(res.json, { success: false, errors: [{ code: 400, message: 'must NOT have more than 4096 characters', path: ['query', 'url'] }] });
});

test.run();
