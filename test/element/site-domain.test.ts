// The real domain on every card: the registrable domain beside the site name (and in the link's
// accessible name), so a page cannot pass for another site; an IDN in Unicode unless a label
// mixes scripts or is a whole-script look-alike of a Latin name, then in punycode as browsers show
// it; no bidi control or invisible character in any text the card shows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { accessibleLinks, launchBrowser, mount, openPage, readCard, snapshot, waitForState, type TestPage } from './browser.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';

let browser: Browser;
let assets: AssetServer;
let tab: TestPage;

test.before(async () => {
  [browser, assets] = await Promise.all([launchBrowser(), startAssetServer()]);
});

test.after(async () => {
  await Promise.all([browser?.close(), assets?.close()]);
});

/** A card for a page at `url`; no image, so nothing is fetched from that (unreachable) host. */
async function cardFor(url: string, overrides: Partial<DataMeta> = {}, id = 'preview') {
  tab ??= await openPage(browser);
  await mount(
    tab.page,
    { 'data-meta': JSON.stringify(metadataFor('http://127.0.0.1:9', { url, image: { url: null }, favicon: { url: null }, ...overrides })) },
    id,
  );
  await waitForState(tab.page, 'ready', id);
  return readCard(tab.page, id);
}

test('a page that calls itself PayPal shows its real domain beside the name, and in the link name', async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  const card = await cardFor('https://login.paypa1-account-verify.example/signin', { site_name: 'PayPal', title: 'Log in to your PayPal account' });
  assert.is(card.host, 'PayPal');
  assert.is(card.domain, 'paypa1-account-verify.example');
  const visible = await tab.page.evaluate(() => {
    const root = document.getElementById('preview')!.shadowRoot!;
    const site = root.querySelector('[part=site]')!.getBoundingClientRect();
    const domain = root.querySelector('[part=domain]')!;
    const box = domain.getBoundingClientRect();
    return { inside: box.width > 0 && box.right <= site.right + 1, separator: getComputedStyle(domain.previousElementSibling!, '::before').content };
  });
  assert.ok(visible.inside, 'the domain is laid out on the site line');
  assert.is(visible.separator, '"·" / ""', 'a dot between the two, silent for a screen reader');
  assert.equal(await accessibleLinks(tab.page), [
    { name: `Log in to your PayPal account ${metadataFor('').description} PayPal paypa1-account-verify.example (opens in a new tab)`, description: '' },
  ]);
  await snapshot(tab.page, 'domain-beside-site-name');
});

test('a long site name is cut short before the domain is', async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  await cardFor('https://news.example/', { site_name: 'The Very Long Name Of A Site That Would Fill The Whole Line On Its Own And More' });
  const widths = await tab.page.evaluate(() => {
    const domain = document.getElementById('preview')!.shadowRoot!.querySelector('[part=domain]') as HTMLElement;
    return [domain.scrollWidth, domain.clientWidth];
  });
  assert.is(widths[0], widths[1], 'the domain is not truncated');
});

test("the registrable domain, not the host: a subdomain cannot pose as another site; a country's second level is kept", async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  const cases: [url: string, domain: string][] = [
    ['https://paypal.com.account-check.example/', 'account-check.example'],
    ['https://en.wikipedia.org/wiki/Tide_pool', 'wikipedia.org'],
    ['https://www.bbc.co.uk/news', 'bbc.co.uk'],
    ['https://shop.example.com.au/', 'example.com.au'],
    ['http://127.0.0.1:9/page', '127.0.0.1'],
    ['http://[::1]:9/page', '[::1]'],
  ];
  for (const [i, [url]] of cases.entries()) await cardFor(url, { site_name: 'Some Site' }, `c${i}`);
  for (const [i, [url, domain]] of cases.entries()) assert.is((await readCard(tab.page, `c${i}`)).domain, domain, url);
});

test('without a site name, or when the name is the domain, the domain shows once', async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  const unnamed = await cardFor('https://blog.tides.example/post', { site_name: null }, 'unnamed');
  const same = await cardFor('https://www.tides.example/post', { site_name: 'Tides.example' }, 'same');
  assert.equal([unnamed.host, unnamed.domain], ['tides.example', '']);
  assert.equal([same.host, same.domain], ['tides.example', ''], 'the domain as the URL has it');
});

test('an IDN shows in Unicode when each label keeps to one script, in punycode when a label mixes scripts', async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  const cases: [url: string, domain: string][] = [
    ['https://münchen.example/', 'münchen.example'],
    ['https://пример.рф/', 'пример.рф'],
    ['https://例え.jp/', '例え.jp'],
    ['https://abc例え.jp/', 'abc例え.jp'],
    // A Greek alpha among Latin letters: "αpple" passes for "apple".
    ['https://αpple.com/', 'xn--pple-zld.com'],
    // Cyrillic "а" and "р" among Latin letters.
    ['https://pаypаl.com/', new URL('https://pаypаl.com/').hostname],
  ];
  for (const [i, [url]] of cases.entries()) await cardFor(url, { site_name: 'Apple' }, `c${i}`);
  for (const [i, [url, domain]] of cases.entries()) assert.is((await readCard(tab.page, `c${i}`)).domain, domain, url);
  assert.match(cases[5]![1], /^xn--/);
  await snapshot(tab.page, 'domain-punycode', 'c4');
});

test('a whole-script look-alike (all-Cyrillic "аррӏе.test") shows in punycode, as Chromium shows it', async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  const punycode = (url: string) => new URL(url).hostname;
  const cases: [url: string, domain: string][] = [
    ['https://аррӏе.test/', punycode('https://аррӏе.test/')],
    ['https://ѕсоре.com/', punycode('https://ѕсоре.com/')],
    // Greek letters that look Latin: "τοκ".
    ['https://τοκ.example/', punycode('https://τοκ.example/')],
    // At home under a Cyrillic TLD, or one of the TLDs most Cyrillic names live under.
    ['https://аррӏе.рф/', 'аррӏе.рф'],
    ['https://аррӏе.ru/', 'аррӏе.ru'],
    // Letters that look like no Latin one, and a common word on Chromium's list.
    ['https://пример.test/', 'пример.test'],
    ['https://парк.test/', 'парк.test'],
  ];
  for (const [i, [url]] of cases.entries()) await cardFor(url, { site_name: 'Apple' }, `c${i}`);
  for (const [i, [url, domain]] of cases.entries()) assert.is((await readCard(tab.page, `c${i}`)).domain, domain, url);
  assert.match(cases[0]![1], /^xn--/);
  await snapshot(tab.page, 'domain-whole-script-confusable', 'c0');
});

test('a bidi override in a site name cannot make it read "google.com"; invisible characters are dropped from every text', async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  const card = await cardFor('https://evil.test/', {
    // Shown as is, this reads "google.com · evil.test".
    site_name: '\u202emoc.elgoog\u202c',
    title: 'Pay\u200bPal\u2066 sign-in\u2069\u00ad',
    description: '\u200fSee \u2067your\u2069 account\ufeff',
    author: '\u3164\u3164Ann\u2060 Lee',
  });
  assert.is(card.host, 'moc.elgoog');
  assert.is(card.title, 'PayPal sign-in');
  assert.is(card.description, 'See your account');
  assert.is(card.byline, 'Ann Lee');
  assert.not.match(card.html, /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u3164\u00ad]/);
  await snapshot(tab.page, 'bidi-override-stripped');
});

test('joiners that shape text stay: an emoji sequence and a Persian word', async () => {
  tab ??= await openPage(browser);
  await tab.reset(`${assets.baseUrl}/test-page`);
  const card = await cardFor('https://tides.example/', { title: 'A family \u{1F468}\u200d\u{1F469}\u200d\u{1F467}', description: 'می\u200cخواهم' });
  assert.is(card.title, 'A family \u{1F468}\u200d\u{1F469}\u200d\u{1F467}');
  assert.is(card.description, 'می\u200cخواهم');
});

test.run();
