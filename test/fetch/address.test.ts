// The address policy as a table (policy.ts BLOCKED_RANGES + ipaddr.js): every named range
// is refused, with its reason; public unicast passes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { blockedReason, isPublicAddress } from '../../src/fetch/address.js';

const blocked: Array<[string, string]> = [
  ['127.0.0.1', '127.0.0.0/8'],
  ['10.1.2.3', '10.0.0.0/8'],
  ['172.16.0.1', '172.16.0.0/12'],
  ['192.168.1.1', '192.168.0.0/16'],
  ['169.254.169.254', '169.254.0.0/16'],
  ['100.64.0.1', '100.64.0.0/10'],
  ['100.127.255.254', '100.64.0.0/10'],
  ['0.0.0.0', '0.0.0.0/8'],
  ['0.1.2.3', '0.0.0.0/8'],
  ['224.0.0.1', '224.0.0.0/4'],
  ['239.255.255.250', '224.0.0.0/4'],
  ['255.255.255.255', '255.255.255.255/32'],
  ['240.0.0.1', '240.0.0.0/4'],
  ['198.18.0.1', '198.18.0.0/15'],
  ['198.19.255.255', '198.18.0.0/15'],
  ['192.0.2.1', '192.0.2.0/24'],
  ['::ffff:127.0.0.1', '127.0.0.0/8'],
  ['::ffff:a00:1', '10.0.0.0/8'],
  ['::ffff:169.254.169.254', '169.254.0.0/16'],
  ['64:ff9b::a00:1', '64:ff9b::/96'],
  ['64:ff9b::7f00:1', '64:ff9b::/96'],
  ['64:ff9b:1::1', '64:ff9b:1::/48'],
  ['2002:7f00:1::', '2002::/16'],
  ['2002:a00:1::1', '2002::/16'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::/32'],
  ['::1', '::1/128'],
  ['::', '::/128'],
  ['::7f00:1', '::/96'],
  ['fc00::1', 'fc00::/7'],
  ['fd12:3456::1', 'fc00::/7'],
  ['fe80::1', 'fe80::/10'],
  ['ff02::1', 'ff00::/8'],
  ['2001:db8::1', '2001:db8::/32'],
];

for (const [ip, range] of blocked) {
  test(`${ip} is blocked as ${range}`, () => {
    assert.is(isPublicAddress(ip), false);
    assert.ok(blockedReason(ip)?.startsWith(`${range}: `), blockedReason(ip) ?? 'null');
  });
}

for (const ip of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8']) {
  test(`${ip} is public`, () => {
    assert.is(blockedReason(ip), null);
  });
}

test('something that is not an IP is refused', () => {
  assert.is(blockedReason('example.com'), 'not an IP address');
  assert.is(isPublicAddress(''), false);
});

test.run();
