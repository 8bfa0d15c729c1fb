// A local "website" on 127.0.0.1:0 for the element tests: pages and images with fixed bytes,
// optional delay, and hotlink protection that refuses browsers (the proxy still gets through).
// Every request is recorded with whether a browser made it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamRoute {
  type: string;
  body: string | Buffer;
  status?: number;
  /** Wait this long before answering (a slow page shows the loading state). */
  delayMs?: number;
  /** A Location header (with a 3xx `status`): a redirect. */
  location?: string;
  /** Answer 403 to browsers (User-Agent with "Chrome"), like a hotlink-protected CDN. */
  refuseBrowsers?: boolean;
  /** Answer 403 to all but browsers: the service cannot probe the image's size. */
  browsersOnly?: boolean;
}

interface UpstreamRequest {
  path: string;
  fromBrowser: boolean;
}

export interface Upstream {
  origin: string;
  requests: UpstreamRequest[];
  /** Requests for `path` so far, split by who made them. */
  hits(path: string): { browser: number; other: number };
  close(): Promise<void>;
}

export async function startUpstream(routes: Record<string, UpstreamRoute>): Promise<Upstream> {
  const requests: UpstreamRequest[] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const fromBrowser = /Chrome/.test(req.headers['user-agent'] ?? '');
    requests.push({ path, fromBrowser });
    const route = routes[path];
    const answer = () => {
      if (!route) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      if (route.browsersOnly && !fromBrowser) return res.writeHead(403, { 'content-type': 'text/plain' }).end('browsers only');
      if (route.refuseBrowsers && fromBrowser) return res.writeHead(403, { 'content-type': 'text/plain' }).end('hotlinking refused');
      const location = route.location === undefined ? {} : { location: route.location };
      res.writeHead(route.status ?? 200, { 'content-type': route.type, 'cache-control': 'no-store', ...location }).end(route.body);
    };
    if (route?.delayMs) setTimeout(answer, route.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    hits(path) {
      const matching = requests.filter((r) => r.path === path);
      return { browser: matching.filter((r) => r.fromBrowser).length, other: matching.filter((r) => !r.fromBrowser).length };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
