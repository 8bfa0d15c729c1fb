// One answer to "does this host name an IP address?" for the fetch guard and the safety checks
// (src/ip-literal.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { blockedReason } from '../src/fetch/address.js';
import { ipLiteral, isIpLiteral } from '../src/ip-literal.js';
import { listedAncestor, parseDomainList } from '../src/safety/domain-list.js';

test('IPv4 and IPv6 literals, with or without brackets, give the bare address', () => {
  assert.is(ipLiteral('93.184.215.14'), '93.184.215.14');
  assert.is(ipLiteral('[::1]'), '::1');
  assert.is(ipLiteral('::1'), '::1');
  assert.is(ipLiteral('[::ffff:127.0.0.1]'), '::ffff:127.0.0.1');
  assert.is(ipLiteral('[2606:2800:21f:cb07:6820:80da:af6b:8b2c]'), '2606:2800:21f:cb07:6820:80da:af6b:8b2c');
});

test('domain names are not literals, even when they look numeric', () => {
  for (const host of ['example.com', '1.2.3.4.example.com', '123.com', 'localhost', '', '[]', '[example.com]', '::1]', '[::1']) {
    assert.is(ipLiteral(host), null, host);
    assert.is(isIpLiteral(host), false, host);
  }
});

test('every IPv4 spelling a URL accepts reaches the helper as a literal (the URL parser canonicalises it)', () => {
  for (const href of ['http://0x7f.1/', 'http://2130706433/', 'http://0177.0.0.1/', 'http://127.1/', 'http://[0:0:0:0:0:0:0:1]/']) {
    assert.ok(isIpLiteral(new URL(href).hostname), href);
  }
});

test('a spelling that is not canonical is no address: the fetch guard refuses it rather than reading it as public', () => {
  for (const spelling of ['127.1', '0x7f.0.0.1', '2130706433', '0177.0.0.1']) {
    assert.is(ipLiteral(spelling), null, spelling);
    assert.is(blockedReason(spelling), 'not an IP address', spelling);
  }
  assert.ok(blockedReason('[::1]')?.startsWith('::1/128: '));
});

test('domain lists skip addresses: a hosts-file address is a prefix, an IP host has no listed parent', () => {
  const { domains } = parseDomainList('0.0.0.0 evil.example\n:: bad.example\n1.2.3.4\n');
  assert.equal([...domains].sort(), ['bad.example', 'evil.example']);
  assert.is(listedAncestor(new Set(['3.4']), '1.2.3.4'), null);
  assert.is(listedAncestor(new Set(['1']), '[::1]'), null);
});

test.run();
