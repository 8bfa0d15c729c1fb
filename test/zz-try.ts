import { createLinkPeek, PreviewError } from '../src/index.js';
import { respond, startUpstream } from './helpers/upstream.js';
import { LOCAL_DNS_SERVERS } from './helpers/local-dns.js';
const up = await startUpstream({ routes: { '/page': respond(200, '<meta property="og:image" content="/card.png"><title>Tide pools</title><body>', { 'content-type': 'text/html' }) } });
const lp = createLinkPeek({ allowPrivateNetworks: true, dnsServers: [LOCAL_DNS_SERVERS] });
console.log(await lp.metadata(up.url('/page').href));
console.log(await lp.extract('<title>Hi</title><meta name="twitter:title" content="tw">', { url: 'https://a.example/x', prefer: 'twitter' }));
for (const f of [() => lp.metadata('ftp://x/'), () => lp.metadata('https://nope.invalid/'), () => lp.metadata(up.url('/missing').href), () => lp.extract(42 as any, { url: 'https://a/' }), () => lp.metadata('https://a/', { prefer: 'x' as any })]) {
  try { await f(); } catch (e) { console.log(e instanceof PreviewError, (e as PreviewError).reason, (e as Error).message, (e as PreviewError).status, JSON.stringify((e as PreviewError).problems)); }
}
const big = '<title>Big</title>' + 'x'.repeat(50 * 1024 * 1024);
let t = performance.now(); console.log((await lp.extract(big, { url: 'https://a.example/' })).title, performance.now() - t);
const tags = '<head>' + '<i>'.repeat(17 * 1024 * 1024) ;
t = performance.now(); console.log((await lp.extract(tags, { url: 'https://a.example/' })).title, performance.now() - t);
t = performance.now(); console.log((await lp.extract(new Uint8Array(50*1024*1024).map((_, i) => i * 7919 & 255), { url: 'https://a.example/' })).title, performance.now() - t);
try { createLinkPeek({ fetchTimeoutMs: 0 }); } catch (e) { console.log((e as Error).message); }
try { createLinkPeek({ dnsTimeoutMs: 9000 }); } catch (e) { console.log((e as Error).message); }
try { createLinkPeek({ port: 3 } as any); } catch (e) { console.log((e as Error).message); }
try { createLinkPeek({ probeImages: 'yes' } as any); } catch (e) { console.log((e as Error).message); }
await lp.close(); await up.close();
console.log('closed');
