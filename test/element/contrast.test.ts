// WCAG 2.2 AA for the card's palette: text at least 4.5:1; the focus ring and the card's outline
// at least 3:1 (non-text contrast), the outline against the card and the page. Checked twice: on
// the palette data, and on the colours Chromium actually computes for each rendered piece, light
// and dark; and the hover state is a change a reader can see.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { DARK, LIGHT, type Palette } from '../../element/palette.js';
import { startAssetServer, testPageHtml, type AssetServer } from './asset-server.js';
import { launchBrowser, mount, openPage, snapshot, waitForState } from './browser.js';
import { contrastRatio } from './contrast.js';
import { metadataFor } from './metadata-fixture.js';

const AA_TEXT = 4.5;
const AA_NON_TEXT = 3;

const PAIRS: [string, keyof Palette, keyof Palette, number][] = [
  ['title', 'fg', 'bg', AA_TEXT],
  ['description and host', 'muted', 'bg', AA_TEXT],
  ['safety badge', 'badgeFg', 'badgeBg', AA_TEXT],
  ['focus ring', 'focus', 'bg', AA_NON_TEXT],
  ['card outline', 'border', 'bg', AA_NON_TEXT],
];

/** The page behind the card: Chromium's Canvas colour on a page with color-scheme: light dark. */
const PAGE = { light: '#ffffff', dark: '#121212' };

for (const [scheme, palette] of [
  ['light', LIGHT],
  ['dark', DARK],
] as const) {
  test(`palette (${scheme}): every pair passes WCAG AA`, () => {
    for (const [what, fg, bg, minimum] of PAIRS) {
      const ratio = contrastRatio(palette[fg], palette[bg]);
      console.log(`  ${scheme} ${what}: ${palette[fg]} on ${palette[bg]} = ${ratio.toFixed(2)}:1 (AA ${minimum}:1)`);
      assert.ok(ratio >= minimum, `${scheme} ${what}: ${ratio.toFixed(2)} < ${minimum}`);
    }
    const page = contrastRatio(palette.border, PAGE[scheme]);
    console.log(`  ${scheme} card outline: ${palette.border} on the page ${PAGE[scheme]} = ${page.toFixed(2)}:1 (AA 3:1)`);
    assert.ok(page >= AA_NON_TEXT, `${scheme} card outline on the page: ${page.toFixed(2)}`);
  });
}

test('contrast ratio matches the WCAG reference values', () => {
  assert.is(contrastRatio('#000000', '#ffffff').toFixed(2), '21.00');
  assert.is(contrastRatio('#777777', '#ffffff').toFixed(2), '4.48'); // the classic "just fails AA"
  assert.is(contrastRatio('rgb(255, 255, 255)', 'rgb(255, 255, 255)'), 1);
});

let browser: Browser;
let assets: AssetServer;

test.before(async () => {
  [browser, assets] = await Promise.all([
    launchBrowser(),
    startAssetServer({ pages: { '/themed-page': testPageHtml('/component.js', '<style>:root{color-scheme:light dark}</style>') } }),
  ]);
});

test.after(async () => {
  await Promise.all([browser?.close(), assets?.close()]);
});

/** [piece, text colour, colour of the nearest opaque background] as Chromium computes them. */
type Rendered = [string, string, string][];

for (const scheme of ['light', 'dark'] as const) {
  test(`rendered card (${scheme}): every text piece passes AA and uses the palette`, async () => {
    const tab = await openPage(browser);
    try {
      await tab.reset(`${assets.baseUrl}/test-page`, scheme);
      const meta = metadataFor('http://127.0.0.1:9', { safety_tags: ['adult'], author: 'Ana Ruiz', published_time: '2024-05-01T00:00:00.000Z' });
      await mount(tab.page, { 'data-meta': JSON.stringify(meta) }, 'ready');
      await mount(tab.page, { 'data-meta': 'not json', 'data-url': 'http://127.0.0.1:9/page' }, 'error');
      // Badge and byline take the description's lines in the card's fixed height: one more card shows it.
      await mount(tab.page, { 'data-meta': JSON.stringify(metadataFor('http://127.0.0.1:9')) }, 'described');
      await waitForState(tab.page, 'ready', 'described');
      await waitForState(tab.page, 'ready', 'ready');
      await waitForState(tab.page, 'error', 'error');
      const rendered: Rendered = await tab.page.evaluate(() => {
        const background = (el: Element): string => {
          for (let node: Element | null = el; node; node = node.parentElement ?? (node.getRootNode() as ShadowRoot).host ?? null) {
            const color = getComputedStyle(node).backgroundColor;
            if (color !== 'rgba(0, 0, 0, 0)' && color !== 'transparent') return color;
          }
          return 'rgb(255, 255, 255)';
        };
        const out: [string, string, string][] = [];
        for (const id of ['ready', 'error', 'described']) {
          for (const part of ['title', 'description', 'host', 'byline', 'badge']) {
            const el = document.getElementById(id)!.shadowRoot!.querySelector<HTMLElement>(`[part=${part}]`)!;
            if (!el.checkVisibility()) continue;
            out.push([`${id} ${part}`, getComputedStyle(el).color, background(el)]);
          }
        }
        return out;
      });
      assert.is(rendered.length, 8, 'ready: title, host, byline, badge; error: the link; described: title, description, host');
      const palette = scheme === 'light' ? LIGHT : DARK;
      const expected: Record<string, [keyof Palette, keyof Palette]> = {
        title: ['fg', 'bg'],
        description: ['muted', 'bg'],
        host: ['muted', 'bg'],
        byline: ['muted', 'bg'],
        badge: ['badgeFg', 'badgeBg'],
      };
      for (const [piece, color, bg] of rendered) {
        const [fgKey, bgKey] = expected[piece.split(' ')[1]!]!;
        assert.is(contrastRatio(color, palette[fgKey]), 1, `${piece} text colour comes from the palette`);
        assert.is(contrastRatio(bg, palette[bgKey]), 1, `${piece} background comes from the palette`);
        const ratio = contrastRatio(color, bg);
        assert.ok(ratio >= AA_TEXT, `${scheme} ${piece}: ${ratio.toFixed(2)}:1`);
      }
    } finally {
      await tab.close();
    }
  });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`rendered card (${scheme}): the outline has 3:1 against the card and the page`, async () => {
    const tab = await openPage(browser);
    try {
      await tab.reset(`${assets.baseUrl}/themed-page`, scheme);
      await mount(tab.page, { 'data-meta': JSON.stringify(metadataFor('http://127.0.0.1:9')) });
      await waitForState(tab.page, 'ready');
      const colours = await tab.page.evaluate(() => {
        const card = getComputedStyle(document.getElementById('preview')!.shadowRoot!.querySelector('[part=card]')!);
        return { outline: card.borderTopColor, card: card.backgroundColor, page: getComputedStyle(document.body).backgroundColor };
      });
      assert.is(contrastRatio(colours.page, PAGE[scheme]), 1, 'the page is Canvas');
      for (const behind of ['card', 'page'] as const) {
        const ratio = contrastRatio(colours.outline, colours[behind]);
        console.log(`  ${scheme} outline ${colours.outline} on the ${behind} ${colours[behind]} = ${ratio.toFixed(2)}:1`);
        assert.ok(ratio >= AA_NON_TEXT, `${scheme} outline on the ${behind}: ${ratio.toFixed(2)}:1`);
      }
    } finally {
      await tab.close();
    }
  });

  test(`hover (${scheme}): the outline turns to the text colour, 3:1 from the resting one, and the title is underlined`, async () => {
    const tab = await openPage(browser);
    try {
      await tab.reset(`${assets.baseUrl}/themed-page`, scheme);
      await mount(tab.page, { 'data-meta': JSON.stringify(metadataFor('http://127.0.0.1:9')) });
      await waitForState(tab.page, 'ready');
      const look = () =>
        tab.page.evaluate(() => {
          const root = document.getElementById('preview')!.shadowRoot!;
          return {
            outline: getComputedStyle(root.querySelector('[part=card]')!).borderTopColor,
            title: getComputedStyle(root.querySelector('[part=title]')!).textDecorationLine,
          };
        });
      const resting = await look();
      await tab.page.hover('#preview');
      const hovered = await look();
      assert.is(resting.title, 'none');
      assert.is(hovered.title, 'underline');
      assert.is(contrastRatio(hovered.outline, (scheme === 'light' ? LIGHT : DARK).fg), 1, 'the outline takes the text colour');
      const change = contrastRatio(hovered.outline, resting.outline);
      console.log(`  ${scheme} hover outline ${hovered.outline} against the resting ${resting.outline} = ${change.toFixed(2)}:1`);
      assert.ok(change >= AA_NON_TEXT, `${change.toFixed(2)}:1`);
      await snapshot(tab.page, `hover-${scheme}`);
    } finally {
      await tab.close();
    }
  });
}

test.run();
