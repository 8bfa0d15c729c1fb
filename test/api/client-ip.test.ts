// Who a request's client is (api/client-ip.ts), named once per request: the pace, the concurrency
// and the rate limit's middlewares each ask, and parsing the address again was a fifth of a 429's CPU.
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestClient } from '../../src/api/client-ip.js';
import { ProxyTrust } from '../../src/trusted-proxies.js';

function request(peer: string, forwardedFor: string): IncomingMessage {
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: peer });
  const req = new IncomingMessage(socket);
  req.headers = { 'x-forwarded-for': forwardedFor };
  return req;
}

test('a request asked for its client again gets the same one; asked under another TRUST_PROXY, the client that setting names', () => {
  const req = request('127.0.0.1', '2001:db8:1:2::7');
  const trusting = new ProxyTrust(['127.0.0.1']);
  const first = requestClient(req, trusting);
  assert.equal([first.ip, first.key], ['2001:db8:1:2::7', '2001:db8:1:2::/64']);
  assert.is(requestClient(req, trusting), first, 'named once');
  assert.is(requestClient(req, new ProxyTrust(false)).ip, '127.0.0.1', 'the proxy itself when nothing is trusted');
  assert.is(requestClient(request('127.0.0.1', '2001:db8:9:9::1'), trusting).key, '2001:db8:9:9::/64', 'another request, its own client');
});

test.run();
