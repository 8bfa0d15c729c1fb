// One peer library behind the same minimal node:http front: GET /?url=<page> → the
// library's metadata as JSON, 500 with {error} when it throws. Every contender pays for an HTTP
// front and a JSON answer; none probes images or asks a remote service. Options are each library's
// defaults except where noted (oEmbed off: it would send unfurl.js to hosts this machine cannot reach).
//
//   node --import tsx bench/lib/peer-server.ts <unfurl.js|metascraper|open-graph-scraper|link-preview-js>
// prints "LISTENING <port>" on stderr.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Extract = (url: string) => Promise<unknown>;

async function load(name: string): Promise<Extract> {
  switch (name) {
    case 'unfurl.js': {
      const { unfurl } = await import('unfurl.js');
      return (url) => unfurl(url, { oembed: false });
    }
    case 'open-graph-scraper': {
      const { default: ogs } = await import('open-graph-scraper');
      // Its URL validator requires a TLD by default, which 127.0.0.1 lacks.
      const urlValidatorSettings = {
        allow_fragments: true,
        allow_protocol_relative_urls: false,
        allow_query_components: true,
        allow_trailing_dot: false,
        allow_underscores: false,
        protocols: ['http', 'https'],
        require_host: true,
        require_port: false,
        require_protocol: false,
        require_tld: false,
        require_valid_protocol: true,
        validate_length: true,
      };
      return async (url) => (await ogs({ url, urlValidatorSettings })).result;
    }
    case 'link-preview-js': {
      // It refuses IP-address hosts and names without a TLD before fetching, so the upstream is
      // named bench-upstream.test here, and this process's fetch resolves that name to 127.0.0.1.
      const { getLinkPreview } = await import('link-preview-js');
      const { Agent, setGlobalDispatcher } = await import('undici');
      setGlobalDispatcher(
        new Agent({
          connect: {
            lookup: (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
              options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4),
          } as never,
        }),
      );
      return (url) => {
        const named = new URL(url);
        if (named.hostname === '127.0.0.1') named.hostname = 'bench-upstream.test';
        return getLinkPreview(named.href, { followRedirects: 'follow' });
      };
    }
    case 'metascraper': {
      // metascraper extracts from HTML it is handed: the page is fetched with Node's own fetch.
      const { default: metascraper } = await import('metascraper');
      const rules = await Promise.all(
        ['metascraper-title', 'metascraper-description', 'metascraper-image', 'metascraper-url', 'metascraper-logo-favicon'].map(
          async (m) => (await import(m)).default,
        ),
      );
      const scrape = metascraper([
        rules[0](),
        rules[1](),
        rules[2](),
        rules[3](),
        // No network beyond the page: the favicon rule must not probe candidates or ask Google.
        rules[4]({ favicon: false, google: false, rootFavicon: false, resolveFaviconUrl: async (u: string) => ({ url: u }) }),
      ]);
      return async (url) => {
        const res = await fetch(url, { redirect: 'follow' });
        const html = await res.text();
        return scrape({ html, url: res.url });
      };
    }
    default:
      throw new Error(`unknown peer ${name}`);
  }
}

const name = process.argv[2] ?? '';
const extract = await load(name);

const server = http.createServer((req, res) => {
  const target = new URL(req.url ?? '/', 'http://front').searchParams.get('url');
  if (!target) {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"url is required"}');
    return;
  }
  extract(target).then(
    (result) => {
      const body = JSON.stringify(result);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    },
    (err: unknown) => {
      const body = JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    },
  );
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
