import { suite, test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import { BLOCKED_PORTS } from '../../src/fetch/policy.js';
import { doc } from '../helpers/contract.js';
import { startService, type Service } from '../helpers/service.js';

// What goes out is what openapi.yaml says: the paths served, the rate limit's headers on every
// status they come with (checked for every answer by test/helpers/contract.ts), the refused
// ports, an open FailureReason, and who to ask.

test('info.contact names where to ask', () => {
  assert.equal(doc.info.contact, { name: 'LinkPeek maintainers', url: 'https://github.com/linkpeek/linkpeek/issues' });
});

test('the refused ports listed in the description are exactly the ones refused', () => {
  const listed = /bad ports is refused[\s\S]*?services: ([\d,\s]+)\./.exec(doc.info.description as string)![1]!;
  assert.equal(
    listed.split(/,\s*/).map(Number),
    [...BLOCKED_PORTS].sort((a, b) => a - b),
  );
});

test('reason is open: a value a later version adds validates, and the known ones stay an enum', () => {
  const ajv = new Ajv({ strict: false });
  ajv.addSchema(doc, 'openapi.yaml');
  const apiError = ajv.getSchema('openapi.yaml#/components/schemas/ApiError')!;
  assert.ok(apiError({ code: 422, message: 'x', reason: 'a_reason_added_later' }), ajv.errorsText(apiError.errors));
  const proxyError = ajv.getSchema('openapi.yaml#/components/schemas/ProxyError')!;
  assert.ok(proxyError({ error: 'x', reason: 'a_reason_added_later' }), ajv.errorsText(proxyError.errors));
  assert.ok((doc.components.schemas.FailureReason.enum as string[]).includes('unreachable'));
  assert.is(doc.components.schemas.FailureReason['x-extensible-enum'], true);
});

test('/docs/{file} names its files', () => {
  assert.equal(doc.paths['/docs/{file}'].get.parameters[0].schema.enum, ['init.js', 'swagger-ui.css', 'swagger-ui-bundle.js']);
});

const served = suite<{ svc: Service }>('answers as declared');
served.before(async (ctx) => {
  ctx.svc = await startService({ RATE_LIMIT_MAX: '100' });
});
served.after(({ svc }) => svc.close());

served('/linkpeek-preview.css is a described path: GET and HEAD', async ({ svc }) => {
  const get = await svc.request('/linkpeek-preview.css');
  assert.equal([get.status, get.headers.get('content-type')], [200, 'text/css; charset=utf-8']);
  const head = await svc.request('/linkpeek-preview.css', { method: 'HEAD' });
  assert.equal([head.status, head.body.length], [200, 0]);
});

served('302, 400, 422 and 502 carry the rate limit headers, each declared for its status', async ({ svc }) => {
  const answers = await Promise.all([
    svc.request('/v1/metadata'),
    svc.request('/v1/metadata?url=ftp://x.example/'),
    svc.request('/v1/metadata?url=http://nowhere.invalid/'),
    svc.request('/v1/cors-proxy?url=http://nowhere.invalid/a.png'),
  ]);
  assert.equal(
    answers.map((res) => [res.status, res.headers.get('x-ratelimit-limit')]),
    [
      [302, '100'],
      [400, '100'],
      [422, '100'],
      [502, '100'],
    ],
  );
});

served('OPTIONS is a preflight: 204 on any path, no body', async ({ svc }) => {
  const res = await svc.request('/v1/metadata', { method: 'OPTIONS' });
  assert.equal([res.status, res.headers.get('access-control-allow-methods'), res.body.length], [204, 'GET, HEAD', 0]);
});

test.run();
served.run();
