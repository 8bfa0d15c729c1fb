// What the Metadata guard admits and how it speaks: a data-meta that is not Metadata logs one
// console.warn naming its first problem (and nothing else reaches the console), and the fields
// beyond docs/SPEC.md (site_name, lang, author, published_time, theme_color, embed) pass when
// well formed or absent, while a wrong type is rejected like any other.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, ConsoleMessage } from 'playwright-core';
import { startAssetServer, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, readCard, waitForState, type TestPage } from './browser.js';
import { metadataFor, type DataMeta } from './metadata-fixture.js';

let browser: Browser;
let assets: AssetServer;
let tab: TestPage;
/** Every console message of the page, as "type: text". */
const messages: string[] = [];

test.before(async () => {
  [browser, assets] = await Promise.all([launchBrowser(), startAssetServer()]);
});

test.after(async () => {
  await Promise.all([browser?.close(), assets?.close()]);
});

// Nothing is fetched in this file: every URL is a name only.
const ORIGIN = 'http://127.0.0.1:9';
const PAGE_URL = `${ORIGIN}/articles/tide-pools`;

async function freshPage(): Promise<TestPage> {
  if (!tab) {
    tab = await openPage(browser);
    tab.page.on('console', (message: ConsoleMessage) => messages.push(`${message.type()}: ${message.text()}`));
  }
  await tab.reset(`${assets.baseUrl}/test-page`);
  messages.length = 0;
  return tab;
}

/** Mounts each data-meta as its own card and waits until every one has settled. */
async function settle(cases: Record<string, string>, state: 'ready' | 'error'): Promise<void> {
  const { page } = tab;
  for (const [id, meta] of Object.entries(cases)) await mount(page, { 'data-meta': meta }, id);
  for (const id of Object.keys(cases)) await waitForState(page, state, id);
}

/** Valid Metadata without images: a failed image load would reach the console too. */
const base = () => metadataFor(ORIGIN, { image: { url: null }, favicon: { url: null } });
const withFields = (fields: Record<string, unknown>) => JSON.stringify({ ...base(), ...fields });

test('an invalid data-meta logs one console.warn naming its problem, and nothing else', async () => {
  await freshPage();
  const valid = base();
  const cases: Record<string, [meta: string, warning: string]> = {
    notJson: ['{"title": "unterminated', 'data-meta is not valid JSON'],
    array: ['[]', 'data-meta is not an object'],
    noUrl: [JSON.stringify({ ...valid, url: undefined }), 'data-meta.url is not an http(s) URL'],
    numberTitle: [JSON.stringify({ ...valid, title: 42 }), 'data-meta.title is not a string'],
    imageString: [JSON.stringify({ ...valid, image: `${ORIGIN}/a.png` }), 'data-meta.image is not an object'],
    imageUrl: [JSON.stringify({ ...valid, image: { url: 7 } }), 'data-meta.image.url is not a string'],
    unknownTag: [JSON.stringify({ ...valid, safety_tags: ['nsfw'] }), 'data-meta.safety_tags is not a list of safety tags'],
    ogNumbers: [JSON.stringify({ ...valid, og: { 'og:image:width': 600 } }), 'data-meta.og is not an object of strings'],
  };
  await settle(Object.fromEntries(Object.entries(cases).map(([id, [meta]]) => [id, meta])), 'error');
  assert.equal(
    messages,
    Object.values(cases).map(([, warning]) => `warning: linkpeek-preview: ${warning}`),
  );
  // The warning is for the page's author; the reader still gets the link the broken data-meta names.
  assert.is((await readCard(tab.page, 'imageUrl')).href, PAGE_URL);
});

test('the fields beyond SPEC.md pass the guard when well formed, in every form the API may send', async () => {
  await freshPage();
  const embed = {
    type: 'video',
    provider_name: 'Tide Films',
    provider_url: `${ORIGIN}/`,
    title: 'Low tide, time-lapse',
    author_name: 'R. Carson',
    author_url: `${ORIGIN}/carson`,
    thumbnail_url: `${ORIGIN}/thumb.jpg`,
    thumbnail_width: 480,
    thumbnail_height: 270,
    width: 640,
    height: 360,
    html: '<iframe src="https://video.example/embed/1"></iframe>',
  };
  const full = { site_name: 'Tide Pool Society', lang: 'en-GB', author: 'R. Carson', published_time: '2024-05-01T09:30:00.000Z', embed };
  await settle(
    {
      full: withFields({ ...full, theme_color: '#0a7d5a' }),
      rgb: withFields({ theme_color: 'rgb(10, 125, 90)' }),
      hsla: withFields({ theme_color: 'hsla(160, 85%, 27%, 0.9)' }),
      named: withFields({ theme_color: 'rebeccapurple' }),
      offset: withFields({ published_time: '2024-05-01T11:30:00+02:00' }),
      photo: withFields({ embed: { ...embed, type: 'photo', html: null } }),
      allNull: withFields({ site_name: null, lang: null, author: null, published_time: null, theme_color: null, embed: null }),
    },
    'ready',
  );
  assert.equal(messages, []);
  assert.is((await readCard(tab.page, 'full')).title, 'Tide pools of the northern coast');
});

test('a data-meta without the fields beyond SPEC.md (an older server, or written by hand) is still valid', async () => {
  await freshPage();
  const older: Partial<DataMeta> = base();
  for (const field of ['site_name', 'lang', 'author', 'published_time', 'theme_color', 'embed'] as const) delete older[field];
  await settle(
    {
      older: JSON.stringify(older),
      // An oEmbed answer carries only the fields its provider sent.
      partialEmbed: withFields({ embed: { type: 'rich', html: '<blockquote>…</blockquote>' } }),
    },
    'ready',
  );
  assert.equal(messages, []);
});

test('a wrong type in a field beyond SPEC.md is rejected, and the warning names the field', async () => {
  await freshPage();
  const cases: Record<string, [fields: Record<string, unknown>, warning: string]> = {
    siteName: [{ site_name: 5 }, 'data-meta.site_name is not a string'],
    lang: [{ lang: ['en'] }, 'data-meta.lang is not a string'],
    author: [{ author: { name: 'R. Carson' } }, 'data-meta.author is not a string'],
    timeNumber: [{ published_time: 1714555800000 }, 'data-meta.published_time is not a string'],
    colourNumber: [{ theme_color: 0x0a7d5a }, 'data-meta.theme_color is not a string'],
    embedText: [{ embed: '<iframe></iframe>' }, 'data-meta.embed is not an object'],
    embedType: [{ embed: { type: 'iframe' } }, 'data-meta.embed.type is not an oEmbed type'],
    embedHtml: [{ embed: { type: 'rich', html: { innerHTML: '<script></script>' } } }, 'data-meta.embed.html is not a string'],
    embedWidth: [{ embed: { type: 'photo', width: '640' } }, 'data-meta.embed.width is not a number'],
  };
  await settle(Object.fromEntries(Object.entries(cases).map(([id, [fields]]) => [id, withFields(fields)])), 'error');
  assert.equal(
    messages,
    Object.values(cases).map(([, warning]) => `warning: linkpeek-preview: ${warning}`),
  );
});

test.run();
