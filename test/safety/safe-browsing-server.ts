// A local stand-in for Google Safe Browsing v4 `threatMatches:find` on 127.0.0.1 port 0: it checks
// the request the way the API does (POST, JSON, key, the threatInfo fields) and answers from a
// table of listed URLs, or with a scripted failure: an HTTP error, malformed JSON, or no answer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface ThreatListing {
  threatType: string;
  cacheDuration?: string;
}

type Behaviour =
  { kind: 'api' } | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> } | { kind: 'malformed' } | { kind: 'hang' };

interface RecordedRequest {
  method: string;
  path: string;
  key: string | null;
  contentType: string | null;
  body: unknown;
}

export interface SafeBrowsingServer {
  /** The endpoint to put in SAFE_BROWSING_URL. */
  endpoint: string;
  /** The key the server accepts; any other key answers 400 like the API ("API key not valid"). */
  key: string;
  listed: Map<string, ThreatListing[]>;
  behaviour: Behaviour;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const PATH = '/v4/threatMatches:find';

export async function startSafeBrowsingServer(key = 'test-key'): Promise<SafeBrowsingServer> {
  const hanging = new Set<http.ServerResponse>();
  const state: Omit<SafeBrowsingServer, 'endpoint' | 'close'> = {
    key,
    listed: new Map(),
    behaviour: { kind: 'api' },
    requests: [],
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      state.requests.push({
        method: req.method ?? '',
        path: url.pathname,
        key: url.searchParams.get('key'),
        contentType: req.headers['content-type'] ?? null,
        body,
      });
      const behaviour = state.behaviour;
      if (behaviour.kind === 'hang') {
        hanging.add(res);
        return;
      }
      if (behaviour.kind === 'status') {
        res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
        res.end(behaviour.body ?? JSON.stringify({ error: { code: behaviour.status, message: 'scripted' } }));
        return;
      }
      if (behaviour.kind === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"matches": [');
        return;
      }
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(JSON.stringify(value));
      };
      if (req.method !== 'POST' || url.pathname !== PATH) return json(404, { error: { code: 404 } });
      if (url.searchParams.get('key') !== state.key) {
        return json(400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } });
      }
      const entries = (body as { threatInfo?: { threatEntries?: { url?: string }[] } })?.threatInfo?.threatEntries;
      if (!Array.isArray(entries)) return json(400, { error: { code: 400, status: 'INVALID_ARGUMENT' } });
      const matches = entries.flatMap((entry) =>
        (state.listed.get(entry.url ?? '') ?? []).map((listing) => ({
          threatType: listing.threatType,
          platformType: 'ANY_PLATFORM',
          threat: { url: entry.url },
          ...(listing.cacheDuration ? { cacheDuration: listing.cacheDuration } : {}),
          threatEntryType: 'URL',
        })),
      );
      // The API answers `{}` when nothing matches.
      json(200, matches.length > 0 ? { matches } : {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    endpoint: `http://127.0.0.1:${port}${PATH}`,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
