// Parked and for-sale pages: each service's head markers, read through the real head
// scanner from HTML fixtures, and pages that must not be read as parked.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scanHead } from '../../wasm-parser/index.js';
import type { RawTags } from '../../wasm-parser/types.js';
import { parkingMarker, parkingPageProvider } from '../../src/safety/parking.js';
import { head, ordinaryArticle } from '../fixtures/safety/heads.js';

const test = suite('parking pages');
const signal = new AbortController().signal;
const fixtures = fileURLToPath(new URL('../fixtures/safety/', import.meta.url));

async function scan(file: string): Promise<RawTags> {
  return (await scanHead(fs.readFileSync(fixtures + file))).tags;
}

for (const [file, service] of [
  ['parking/godaddy-lander.html', /^Google AdSense for Domains|^GoDaddy/],
  ['parking/sedo.html', /^Sedo:/],
  ['parking/adsense-for-domains.html', /^Google AdSense for Domains:/],
  ['parking/parkingcrew.html', /^ParkingCrew:/],
  ['parking/bodis.html', /^Bodis:/],
  ['parking/above.html', /^Above:/],
  ['parking/dan-for-sale.html', /^Dan\.com:/],
  ['parking/afternic-for-sale.html', /^phrase: This domain may be for sale/],
  ['parking/hugedomains.html', /^HugeDomains:/],
  ['parking/godaddy-parked-free.html', /^phrase: .*parked FREE/],
] as const) {
  test(`${file} is a parked page`, async () => {
    const tags = await scan(file);
    assert.match(parkingMarker('parked-example.com', tags) ?? '', service);
    const url = new URL('https://parked-example.com/');
    assert.equal(await parkingPageProvider.check({ url, tags }, signal), ['suspicious_domain']);
  });
}

for (const file of ['not-parked/cars-for-sale.html', 'not-parked/domain-advice-blog.html', 'not-parked/marker-after-body.html']) {
  test(`${file} is not parked`, async () => {
    const tags = await scan(file);
    assert.is(parkingMarker('shop.example', tags), null);
  });
}

test('the phrases: a title that starts with the domain and says it is for sale', () => {
  const titled = (title: string) => parkingMarker('x.example', head({ title }));
  assert.ok(titled('parked-example.com is for sale | HugeDomains'));
  assert.ok(titled('www.Parked-Example.co.uk may be for sale'));
  assert.ok(titled('Buy this domain'));
  assert.ok(titled('The domain name parked-example.com is for sale'));
  assert.ok(titled('This domain has been parked'));
  assert.is(titled('Farm equipment for sale'), null);
  assert.is(titled('Is this domain for sale? How to find out'), null);
  assert.is(titled('Our house is for sale'), null);
  assert.is(titled('Parked cars in Leeds'), null);
});

test('the parking services own sites are not parked pages', () => {
  const tags = head({
    title: 'Buy and sell domains | Sedo',
    scriptSrcs: ['https://img.sedoparking.com/js/jquery.js'],
  });
  assert.is(parkingMarker('sedo.com', tags), null);
  assert.is(parkingMarker('www.sedo.com', tags), null);
  assert.ok(parkingMarker('parked-example.com', tags));
});

test('asset markers need the service host itself, not a look-alike', () => {
  const scripts = (src: string) => parkingMarker('x.example', head({ scriptSrcs: [src] }));
  assert.ok(scripts('https://dan.com/assets/x.js'));
  assert.ok(scripts('//cdn.dan.com/x.js'));
  assert.is(scripts('https://jordan.com/x.js'), null);
  assert.is(scripts('https://dan.com.evil.example/x.js'), null);
  assert.is(scripts('https://example.com/?u=https://dan.com/'), null);
  assert.is(scripts('/js/bodis.com.js'), null);
  assert.ok(scripts('HTTPS://WWW.GOOGLE.COM/adsense/domains/caf.js?abp=1'));
  assert.is(scripts('https://www.google.com/adsense/search/ads.js'), null); // AdSense for Search is on ordinary sites
});

test('every asset marker is found, by its own name, among the assets of an ordinary page', () => {
  const found = (src: string) =>
    parkingMarker(
      'x.example',
      head({ scriptSrcs: ['/js/app.js', 'https://cdn.example.net/lib.js'], links: [{ rel: 'stylesheet', href: src, type: null, sizes: null }] }),
    );
  const markers: Array<[string, string]> = [
    ['https://www.google.com/adsense/domains/caf.js', 'Google AdSense for Domains'],
    ['/apps/domainpark/show_afd_ads.js', 'Google AdSense for Domains (legacy)'],
    ['https://img1.wsimg.com/parking-lander/static/js/main.js', 'GoDaddy CashParking / Afternic'],
    ['https://img.sedoparking.com/templates/x.css', 'Sedo'],
    ['//static.parkingcrew.net/x.css', 'ParkingCrew'],
    ['https://bodis.com:443/x.css', 'Bodis'],
    ['http://a.b.above.com?x', 'Above'],
    ['https://dan.com#x', 'Dan.com'],
    ['https://www.afternic.com/x.css', 'Afternic'],
    ['https://static.hugedomains.com/x.css', 'HugeDomains'],
    ['https://parkingpage.namecheap.com/x.css', 'Namecheap'],
  ];
  for (const [src, service] of markers) assert.is(found(src), `${service}: ${src}`, src);
  assert.is(found('https://namecheap.com/x.css'), null, 'Namecheap parks on its parkingpage host only');
});

test('an ordinary article and a non-HTML target are not parked', async () => {
  assert.is(parkingMarker('news.example.com', ordinaryArticle), null);
  const url = new URL('https://parked-example.com/');
  assert.equal(await parkingPageProvider.check({ url, tags: null }, signal), []);
});

test.run();
