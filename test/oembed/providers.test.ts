import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KNOWN_PROVIDERS, ProviderTable } from '../../src/oembed/providers.js';
import { compileScheme } from '../../src/oembed/url-scheme.js';

// The provider table: the committed registry and how a URL finds its endpoint. Nothing here
// fetches: endpointFor only builds the request.

const test = suite('known oEmbed providers');
const known = new ProviderTable();

test("a YouTube URL finds YouTube's endpoint, asked for JSON about the page without its fragment", () => {
  assert.is(
    known.endpointFor(new URL('https://www.youtube.com/watch?v=abc#t=30'))?.href,
    'https://www.youtube.com/oembed?format=json&url=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3Dabc',
  );
  assert.is(known.endpointFor(new URL('https://youtu.be/abc'))?.origin, 'https://www.youtube.com');
});

test('a URL of no provider finds none', () => {
  assert.is(known.endpointFor(new URL('https://example.com/watch?v=abc')), null);
  assert.is(known.endpointFor(new URL('https://evil.example/.youtube.com/watch')), null);
});

test('an endpoint written with {format} is stored filled with json', () => {
  assert.is(known.endpointFor(new URL('https://vimeo.com/76979871'))?.pathname, '/api/oembed.json');
  assert.ok(KNOWN_PROVIDERS.every((p) => !p.endpoint.includes('{format}')));
});

test('every scheme of the committed registry compiles', () => {
  const failing = KNOWN_PROVIDERS.flatMap((p) => p.schemes.filter((s) => compileScheme(s) === null));
  assert.equal(failing, []);
  assert.ok(KNOWN_PROVIDERS.length > 100, `${KNOWN_PROVIDERS.length} endpoints`);
});

test('a URL matching several providers takes the first in list order', () => {
  const table = new ProviderTable([
    { endpoint: 'https://first.test/oembed', schemes: ['https://*.video.test/*'] },
    { endpoint: 'https://second.test/oembed', schemes: ['https://www.video.test/watch/*'] },
    { endpoint: 'https://third.test/oembed', schemes: ['https://*.*.test/*'] },
  ]);
  assert.is(table.endpointFor(new URL('https://www.video.test/watch/1'))?.origin, 'https://first.test');
  const reversed = new ProviderTable([
    { endpoint: 'https://third.test/oembed', schemes: ['https://*.*.test/*'] },
    { endpoint: 'https://second.test/oembed', schemes: ['https://www.video.test/watch/*'] },
    { endpoint: 'https://first.test/oembed', schemes: ['https://*.video.test/*'] },
  ]);
  assert.is(reversed.endpointFor(new URL('https://www.video.test/watch/1'))?.origin, 'https://third.test');
});

test("an endpoint's own query is kept; format and url are set once", () => {
  const table = new ProviderTable([{ endpoint: 'https://api.test/oembed/?format=xml&key=public', schemes: ['https://site.test/*'] }]);
  assert.is(
    table.endpointFor(new URL('https://site.test/a?b=1'))?.href,
    'https://api.test/oembed/?format=json&key=public&url=https%3A%2F%2Fsite.test%2Fa%3Fb%3D1',
  );
});

test('a subdomain scheme matches a host of many labels by its last ones', () => {
  const table = new ProviderTable([{ endpoint: 'https://api.test/oembed', schemes: ['https://*.site.test/*'] }]);
  const deep = `${'a.'.repeat(40)}site.test`;
  assert.is(table.endpointFor(new URL(`https://${deep}/x`))?.origin, 'https://api.test');
});

test('entries whose endpoint is not http(s) are left out', () => {
  const table = new ProviderTable([
    { endpoint: 'ftp://api.test/oembed', schemes: ['https://site.test/*'] },
    { endpoint: 'https://api.test/oembed', schemes: ['https://site.test/*'] },
  ]);
  assert.is(table.endpointFor(new URL('https://site.test/x'))?.protocol, 'https:');
});

test.run();
