// The head- and host-only signals: an IP address as host (suspicious_domain) and a page
// that labels itself adult (RTA label, <meta name="rating" content="adult|mature">).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ipHostProvider } from '../../src/safety/ip-host.js';
import { adultSelfLabelProvider, labelsItselfAdult } from '../../src/safety/self-label.js';
import { head, meta, ordinaryArticle } from '../fixtures/safety/heads.js';

const ip = suite('IP address hosts');
const signal = new AbortController().signal;

for (const href of [
  'http://93.184.215.14/login',
  'http://0x5d.0xb8.0xd7.0x0e/', // hex: the URL parser writes 93.184.215.14
  'http://1572395790/', // one decimal number
  'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443/',
  'http://[::ffff:93.184.215.14]/',
]) {
  ip(`an IP literal is suspicious_domain: ${href}`, async () => {
    assert.equal(await ipHostProvider.check({ url: new URL(href), tags: null }, signal), ['suspicious_domain']);
  });
}

for (const href of ['https://example.com/', 'https://1.2.3.4.example.com/', 'https://123.com/', 'http://localhost:3000/']) {
  ip(`a name is not an IP: ${href}`, async () => {
    assert.equal(await ipHostProvider.check({ url: new URL(href), tags: null }, signal), []);
  });
}
ip.run();

const adult = suite('adult self-labels');
const page = new URL('https://site.example/');

for (const [label, metas] of [
  ['RTA label as rating', [meta({ name: 'RATING', content: 'RTA-5042-1996-1400-1577-RTA' })]],
  [
    'RTA label in a PICS-Label',
    [
      meta({
        httpEquiv: 'PICS-Label',
        content: '(PICS-1.1 "http://www.rtalabel.org" l gen true for "https://site.example" r (n 0 s 0 v 0 l 0)) RTA-5042-1996-1400-1577-RTA',
      }),
    ],
  ],
  ['RTA label under another name', [meta({ name: 'restriction', content: ' rta-5042-1996-1400-1577-rta ' })]],
  ['rating adult', [meta({ name: 'rating', content: 'adult' })]],
  ['rating Adult with spaces', [meta({ name: ' Rating ', content: '  Adult ' })]],
  ['rating mature', [meta({ name: 'rating', content: 'mature' })]],
  ['rating with several values', [meta({ name: 'rating', content: 'mature, adult' })]],
] as const) {
  adult(`${label} is adult`, async () => {
    const tags = head({ metas: [...metas] });
    assert.ok(labelsItselfAdult(tags));
    assert.equal(await adultSelfLabelProvider.check({ url: page, tags }, signal), ['adult']);
  });
}

for (const [label, metas] of [
  ['rating general', [meta({ name: 'rating', content: 'general' })]],
  ['rating 14 years', [meta({ name: 'rating', content: '14 years' })]],
  ['"adult" in another meta', [meta({ name: 'description', content: 'Adult education classes in Leeds' })]],
  ['"adult" as og:title', [meta({ property: 'og:title', content: 'adult' })]],
  ['rating that only contains the word', [meta({ name: 'rating', content: 'not-adult-content' })]],
] as const) {
  adult(`${label} is not adult`, async () => {
    const tags = head({ metas: [...metas] });
    assert.not.ok(labelsItselfAdult(tags));
    assert.equal(await adultSelfLabelProvider.check({ url: page, tags }, signal), []);
  });
}

adult('an ordinary article and a non-HTML target (no head) say nothing', async () => {
  assert.equal(await adultSelfLabelProvider.check({ url: page, tags: ordinaryArticle }, signal), []);
  assert.equal(await adultSelfLabelProvider.check({ url: page, tags: null }, signal), []);
});
adult.run();
