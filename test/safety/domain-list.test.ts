// Domain lists: plain domain-per-line and hosts-file format, comments with #, and a
// host matched by itself or any parent domain.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listedAncestor, normaliseDomain, parseDomainList } from '../../src/safety/domain-list.js';

const test = suite('domain lists');

test('plain format: one domain a line, comments and blank lines skipped', () => {
  const parsed = parseDomainList('# adult list\nbad.example\n\n  Other.Example.  # trailing comment\r\nthird.example\n');
  assert.equal([...parsed.domains].sort(), ['bad.example', 'other.example', 'third.example']);
  assert.is(parsed.rejected, 0);
});

test('hosts format: address then names; housekeeping lines are not verdicts', () => {
  const text = [
    '# Title: StevenBlack/hosts style',
    '127.0.0.1 localhost',
    '127.0.0.1 localhost.localdomain',
    '255.255.255.255 broadcasthost',
    '::1 localhost ip6-localhost ip6-loopback',
    '0.0.0.0 0.0.0.0',
    '0.0.0.0 evil.example',
    '127.0.0.1\tphish.example   www.phish.example # two names',
    ':: six.example',
  ].join('\n');
  const parsed = parseDomainList(text);
  assert.equal([...parsed.domains].sort(), ['evil.example', 'phish.example', 'six.example', 'www.phish.example']);
  assert.is(parsed.rejected, 0);
});

test('lines that name no domain are counted, not fatal', () => {
  const parsed = parseDomainList('com\n1.2.3.4\nhttp://\nok.example\n0.0.0.0 bad..name\n-x.example\n*.wild.example\n');
  assert.equal([...parsed.domains], ['ok.example', 'wild.example']);
  assert.is(parsed.rejected, 5);
});

test('unicode names are stored as punycode, like URL.hostname', () => {
  assert.is(normaliseDomain('Bücher.Example'), 'xn--bcher-kva.example');
  assert.is(new URL('https://www.bücher.example/').hostname, 'www.xn--bcher-kva.example');
  const { domains } = parseDomainList('bücher.example');
  assert.is(listedAncestor(domains, new URL('https://www.bücher.example/').hostname), 'xn--bcher-kva.example');
});

test('a host matches itself and every parent domain, never a sibling or a suffix trick', () => {
  const domains = new Set(['evil.example', 'only.sub.example']);
  assert.is(listedAncestor(domains, 'evil.example'), 'evil.example');
  assert.is(listedAncestor(domains, 'a.b.evil.example'), 'evil.example');
  assert.is(listedAncestor(domains, 'EVIL.example.'), 'evil.example');
  assert.is(listedAncestor(domains, 'notevil.example'), null);
  assert.is(listedAncestor(domains, 'evil.example.net'), null);
  assert.is(listedAncestor(domains, 'sub.example'), null);
  assert.is(listedAncestor(domains, 'x.only.sub.example'), 'only.sub.example');
  assert.is(listedAncestor(domains, 'example'), null);
});

test('IP hosts are never matched through "parents"', () => {
  const domains = new Set(['0.0.1', '2.3.4']);
  assert.is(listedAncestor(domains, '1.2.3.4'), null);
  assert.is(listedAncestor(domains, '[::1]'), null);
});

test.run();
