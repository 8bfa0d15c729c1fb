// The two baselines of the cached-hit benchmark, each its own process:
//   koa      a bare Koa app answering a small JSON object to every request
//   openapi  Koa + a bare openapi-backend route: GET /v1/metadata with one required `url` query
//            parameter (format uri) validated and coerced as src/api/router.ts configures it
//   koa-sized the bare Koa app answering a JSON string of BARE_BODY_BYTES (1500) with LinkPeek's headers
//   node --import tsx bench/lib/bare-servers.ts <koa|koa-sized|openapi>   prints "LISTENING <port>" on stderr.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { OpenAPIBackend, type Context as ApiContext } from 'openapi-backend';
import { VALIDATION_OPTIONS } from '../../src/api/router.js';

const BODY = { hello: 'world' };
const kind = process.argv[2];
const koa = new Koa();

if (kind === 'koa') {
  koa.use((ctx) => {
    ctx.body = BODY;
  });
} else if (kind === 'koa-sized') {
  // Bare Koa answering a stored JSON string as large as a typical LinkPeek answer, with as many
  // headers: what the answer itself costs to send, apart from anything LinkPeek does.
  const body = JSON.stringify({ pad: 'x'.repeat(Number(process.env.BARE_BODY_BYTES ?? 1500) - 10) });
  koa.use((ctx) => {
    ctx.set('X-Request-Id', '00000000-0000-4000-8000-000000000000');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id');
    ctx.set({ 'X-RateLimit-Limit': '1000000000', 'X-RateLimit-Remaining': '999999999', 'X-RateLimit-Reset': '1790000000' });
    ctx.status = 200;
    ctx.body = body;
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.set('Cache-Control', 'public, max-age=43200');
  });
} else if (kind === 'openapi') {
  const api = new OpenAPIBackend({
    definition: {
      openapi: '3.1.0',
      info: { title: 'bare', version: '1' },
      paths: {
        '/v1/metadata': {
          get: {
            operationId: 'getMetadata',
            parameters: [{ name: 'url', in: 'query', required: true, schema: { type: 'string', format: 'uri' } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    },
    // the same validation settings as LinkPeek's router
    ...VALIDATION_OPTIONS,
  });
  api.register({
    getMetadata: (_c: ApiContext, ctx: Koa.Context) => {
      ctx.body = BODY;
    },
    validationFail: (_c: ApiContext, ctx: Koa.Context) => {
      ctx.status = 400;
      ctx.body = { code: 400 };
    },
    notFound: (_c: ApiContext, ctx: Koa.Context) => {
      ctx.status = 404;
    },
  });
  await api.init();
  koa.use((ctx) =>
    api.handleRequest({ method: ctx.method, path: ctx.path, query: ctx.query as Record<string, string>, headers: ctx.headers as Record<string, string> }, ctx),
  );
} else {
  throw new Error(`unknown baseline ${kind}`);
}

const server = http.createServer(koa.callback());
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
