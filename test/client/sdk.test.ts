import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
// The SDK's source (client/): what the linkpeek-client package compiles; package.test.ts installs the packed package.
import { client as defaultClient, createClient, getHealth, getMetadata, LinkPeekHttpError, proxyImage } from '../../client/index.js';
import { startService, type Service } from '../helpers/service.js';
import { respond, startUpstream, type Upstream } from '../helpers/upstream.js';
import { checkAnswers } from './contract-interceptor.js';

let svc: Service;
let up: Upstream;

test.before(async () => {
  svc = await startService({ RATE_LIMIT_MAX: '0', PROBE_IMAGES: 'false' });
  up = await startUpstream({ routes: { '/page': respond(200, '<title>Tide pools</title><body>', { 'content-type': 'text/html' }) } });
});
test.after(async () => {
  await Promise.all([svc?.close(), up?.close()]);
});

/** A loopback port nothing listens on: a server is started there and closed. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a page: data with every field present, the always-sent ones null when nothing was found', async () => {
  const client = checkAnswers(createClient({ baseUrl: svc.baseUrl }));
  const result = await getMetadata({ client, query: { url: up.url('/page').href } });
  assert.is(result.response?.status, 200);
  assert.ok(result.data);
  assert.is(result.data.title, 'Tide pools');
  assert.is(result.data.description, null);
  assert.is(result.data.type, null);
  assert.equal(result.data.image, { url: null, type: null, width: null, height: null, size: null });
  assert.equal(result.data.safety_tags, ['suspicious_domain']); // the upstream's host is an IP address
});

test('error answers come back in `error`, typed by status, with the response', async () => {
  const client = checkAnswers(createClient({ baseUrl: svc.baseUrl }));
  const bad = await getMetadata({ client, query: { url: 'ftp://example.com/', prefer: 'og' } });
  assert.is(bad.response?.status, 400);
  assert.equal(bad.error, {
    success: false,
    errors: [{ code: 400, message: 'must be an absolute http or https URL, not ftp:', path: ['query', 'url'] }],
  });
  const proxied = await proxyImage({ client, query: { url: 'file:///etc/passwd' } });
  assert.is(proxied.response?.status, 400);
  assert.equal(proxied.error, { error: 'url: must be an absolute http or https URL, not file:' });
});

test('no answer at all (connection refused): `error` is the TypeError fetch threw and `response` is undefined', async () => {
  const client = createClient({ baseUrl: `http://127.0.0.1:${await closedPort()}` });
  const result = await getHealth({ client });
  assert.is(result.response, undefined);
  assert.is(result.data, undefined);
  assert.instance(result.error, TypeError);
  assert.ok(result.request instanceof Request);
});

test('throwOnError: an error answer is thrown as a LinkPeekHttpError (an Error) carrying status, body and response', async () => {
  const client = checkAnswers(createClient({ baseUrl: svc.baseUrl, throwOnError: true }));
  const thrown = await getMetadata({ client, query: { url: 'ftp://example.com/' }, throwOnError: true }).then(
    () => assert.unreachable('a 400 must throw'),
    (err: unknown) => err,
  );
  assert.instance(thrown, Error);
  assert.instance(thrown, LinkPeekHttpError);
  const error = thrown as LinkPeekHttpError;
  assert.is(error.name, 'LinkPeekHttpError');
  assert.is(error.status, 400);
  assert.is(error.response.status, 400);
  assert.equal(error.body, {
    success: false,
    errors: [{ code: 400, message: 'must be an absolute http or https URL, not ftp:', path: ['query', 'url'] }],
  });
  assert.is(error.message, 'GET /v1/metadata answered 400: must be an absolute http or https URL, not ftp:');
  const ok = await getMetadata({ client, query: { url: up.url('/page').href }, throwOnError: true });
  assert.is(ok.data.title, 'Tide pools');
});

test('throwOnError: no answer at all rejects with the TypeError fetch threw', async () => {
  const client = createClient({ baseUrl: `http://127.0.0.1:${await closedPort()}` });
  const thrown = await getHealth({ client, throwOnError: true }).then(
    () => 'resolved',
    (err: unknown) => err,
  );
  assert.instance(thrown, TypeError);
  assert.not.instance(thrown, LinkPeekHttpError);
});

test('a missing or relative baseUrl: createClient throws, a call resolves with the TypeError in `error` (rejects under throwOnError), saying what to pass', async () => {
  const fix = "pass the service's absolute URL: createClient({ baseUrl: 'https://linkpeek.example' }), or client.setConfig({ baseUrl })";
  assert.throws(
    () => createClient({} as { baseUrl: string }),
    (err: Error) => err instanceof TypeError && err.message === `linkpeek-client: no baseUrl: ${fix}`,
  );
  assert.throws(
    () => createClient({ baseUrl: '/v1' }),
    (err: Error) => err.message === `linkpeek-client: baseUrl "/v1" is not an absolute http(s) URL: ${fix}`,
  );
  // The default client has no base URL until one is set: the call resolves with the TypeError in
  // `error`, like a request that got no answer, and rejects with it under throwOnError.
  const unset = await getMetadata({ query: { url: up.url('/page').href } });
  assert.is(unset.data, undefined);
  assert.is(unset.response, undefined);
  assert.is(unset.request, undefined);
  assert.instance(unset.error, TypeError);
  assert.is((unset.error as TypeError).message, `linkpeek-client: no baseUrl: ${fix}`);
  const thrown = await getMetadata({ query: { url: up.url('/page').href }, throwOnError: true }).then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  assert.is(thrown, `linkpeek-client: no baseUrl: ${fix}`);
  const perCall = await getMetadata({ baseUrl: svc.baseUrl, query: { url: up.url('/page').href } });
  assert.is(perCall.data?.title, 'Tide pools');
  defaultClient.setConfig({ baseUrl: svc.baseUrl });
  const configured = await getMetadata({ query: { url: up.url('/page').href } });
  assert.is(configured.data?.title, 'Tide pools');
});

test.run();
