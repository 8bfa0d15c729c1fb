import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nearMiss } from '../../src/api/near-miss.js';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';

// Unknown query parameters are still ignored (utm tags happen), but one a typo away from a
// declared parameter is named in LinkPeek-Warning, so a caller sees why `perfer=twitter` changed
// nothing.

const words = suite('which names are typos of a declared one');
const METADATA = ['url', 'prefer', 'allow_fallback'];

words('a swap, a letter too many or too few, a wrong letter, or capitals', () => {
  const typos: Array<[string, string]> = [
    ['perfer', 'prefer'],
    ['prefre', 'prefer'],
    ['prefered', 'prefer'],
    ['prefr', 'prefer'],
    ['PREFER', 'prefer'],
    ['ulr', 'url'],
    ['ur', 'url'],
    ['urls', 'url'],
    ['uri', 'url'],
    ['URL', 'url'],
    ['allow_fallbak', 'allow_fallback'],
    ['allowfallback', 'allow_fallback'],
    ['allow-fallback', 'allow_fallback'],
  ];
  for (const [given, meant] of typos) assert.is(nearMiss(given, METADATA), meant, given);
});

words('utm tags, common parameters and names two edits from a short one are not', () => {
  for (const given of ['utm_source', 'utm_medium', 'fbclid', 'ref', 'v', 'id', 'q', 'l', 'ab', 'page', 'preview', 'format', 'callback']) {
    assert.is(nearMiss(given, METADATA), null, given);
  }
});

words.run();

interface Ctx {
  up: Upstream;
  svc: Service;
}
const http = suite<Ctx>('LinkPeek-Warning on the data endpoints');
http.before(async (ctx) => {
  ctx.up = await startUpstream({
    routes: { '/': respond(200, '<meta property="og:title" content="og"><meta name="twitter:title" content="twitter">', { 'content-type': 'text/html' }) },
  });
  ctx.svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
});
http.after(async (ctx) => {
  await ctx.svc.close();
  await ctx.up.close();
});

const page = (up: Upstream) => encodeURIComponent(up.url('/').href);

http('perfer=twitter: 200 as if it were absent, every time, with a header naming prefer', async ({ up, svc }) => {
  for (let i = 0; i < 2; i++) {
    const res = await svc.request(`/v1/metadata?url=${page(up)}&perfer=twitter`);
    assert.is(res.status, 200);
    assert.is(res.json.title, 'og', 'the typo changed nothing');
    assert.is(res.headers.get('linkpeek-warning'), '"unknown parameter perfer; did you mean prefer?"', `request ${i + 1}`);
  }
  assert.match(exposedHeaders(await svc.request(`/v1/metadata?url=${page(up)}`)), /\bLinkPeek-Warning\b/);
});

/** The Access-Control-Expose-Headers of a response. */
function exposedHeaders(res: { headers: Headers }): string {
  return res.headers.get('access-control-expose-headers') ?? '';
}

http('ulr instead of url: the 302 to the showcase names url', async ({ up, svc }) => {
  const res = await svc.request(`/v1/metadata?ulr=${page(up)}`);
  assert.is(res.status, 302);
  assert.is(res.headers.get('linkpeek-warning'), '"unknown parameter ulr; did you mean url?"');
});

http('several near misses, one entry each; utm tags none', async ({ up, svc }) => {
  const res = await svc.request(`/v1/metadata?url=${page(up)}&utm_source=x&Prefer=twitter&allow_fallbak=false`);
  assert.is(res.status, 200);
  assert.is(
    res.headers.get('linkpeek-warning'),
    '"unknown parameter Prefer; did you mean prefer?", "unknown parameter allow_fallbak; did you mean allow_fallback?"',
  );
  const clean = await svc.request(`/v1/metadata?url=${page(up)}&utm_source=x&utm_campaign=y&ref=z`);
  assert.is(clean.headers.get('linkpeek-warning'), null);
});

http('a name with a quote or a non-ASCII letter is percent-encoded in the header', async ({ up, svc }) => {
  const res = await svc.request(`/v1/metadata?url=${page(up)}&${encodeURIComponent('pr"efer')}=x&${encodeURIComponent('préfer')}=y`);
  assert.is(res.headers.get('linkpeek-warning'), '"unknown parameter pr%22efer; did you mean prefer?", "unknown parameter pr%C3%A9fer; did you mean prefer?"');
});

http('the image proxy names its url too, on its 400', async ({ svc }) => {
  const res = await svc.request('/v1/cors-proxy?urll=http://a.example/x.png');
  assert.equal([res.status, res.json], [400, { error: 'url: is required' }]);
  assert.is(res.headers.get('linkpeek-warning'), '"unknown parameter urll; did you mean url?"');
});

http.run();
