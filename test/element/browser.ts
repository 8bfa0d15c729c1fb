// One Chromium (Debian's, never a downloaded one) per test file, pages that can reach only
// loopback, and helpers to mount <linkpeek-preview> and read its shadow DOM.
// The tests run in Debian's chromium-headless-shell: Chromium's own headless build (Blink and V8
// of the same release as the full browser, without the browser's windowing layers), which is what
// Playwright and Puppeteer run headless tests in. On 2 cores it runs a file in a third of the full
// browser's time (element/card-details: 4.1 s against 12.9 s), and CI's time limit needs that.
// element/full-browser.test.ts shows that a card renders the same in Debian's full chromium.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's Chromium builds: packages chromium-headless-shell and chromium (test/provision.mjs installs both). */
export const CHROMIUM = { shell: '/usr/bin/chromium-headless-shell', full: '/usr/bin/chromium' } as const;

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
  // No DNS for anything but loopback, whatever a page asks for.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

export const ARTIFACTS_DIR = fileURLToPath(new URL('../../test-artifacts/element/', import.meta.url));

export function launchBrowser(build: keyof typeof CHROMIUM = 'shell'): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM[build], headless: true, args: CHROMIUM_ARGS });
}

const isLoopback = (url: URL) => url.protocol === 'data:' || url.protocol === 'about:' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';

export interface TestPage {
  page: Page;
  /** Every URL the page requested since the last reset. */
  requested: string[];
  /** Texts of alert/confirm/prompt dialogs the page opened (an XSS would show here). */
  dialogs: string[];
  /** Non-loopback URLs the page tried to load (aborted). */
  blocked: string[];
  /**
   * Starts a test on a fresh document: clears the records, sets the colour scheme and loads
   * `url`. Reusing one page per file keeps the suite fast (a new page costs 100-500 ms here).
   */
  reset(url: string, colorScheme?: 'light' | 'dark'): Promise<void>;
  close(): Promise<void>;
}

/** A fresh context and page; anything that is not loopback is aborted and recorded. */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<TestPage> {
  const context = await browser.newContext({ viewport: { width: 720, height: 900 }, ...options });
  const blocked: string[] = [];
  const dialogs: string[] = [];
  // tsx compiles test files with esbuild's keepNames, which wraps the functions handed to
  // page.evaluate in __name(...): give the page that helper.
  await context.addInitScript('globalThis.__name = (fn) => fn');
  await context.route(
    (url) => !isLoopback(url),
    (route) => {
      blocked.push(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
  // Bounded waits everywhere: a broken element fails its test instead of stalling the suite.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return {
    page,
    dialogs,
    blocked,
    requested,
    async reset(url, colorScheme = 'light') {
      await page.goto('about:blank');
      for (const list of [dialogs, blocked, requested]) list.length = 0;
      await page.emulateMedia({ colorScheme });
      await page.goto(url);
    },
    close: () => context.close(),
  };
}

/** Adds a <linkpeek-preview> with these attributes (set as attributes, never parsed as HTML). */
export async function mount(page: Page, attributes: Record<string, string>, id = 'preview'): Promise<void> {
  await page.evaluate(
    ({ attributes, id }) => {
      const element = document.createElement('linkpeek-preview');
      element.id = id;
      for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
      document.body.append(element);
    },
    { attributes, id },
  );
}

export type CardState = 'loading' | 'ready' | 'error';

/** Waits until the element reports `state` through its custom state (:state()). */
export async function waitForState(page: Page, state: CardState, id = 'preview', timeout = 5000): Promise<void> {
  await page.waitForFunction(({ id, state }) => document.getElementById(id)?.matches(`:state(${state})`) ?? false, { id, state }, { timeout });
}

/**
 * Waits until the element is ready or in its error state: for input that a stricter data-meta
 * check may refuse outright, where either outcome is fine as long as the test's point holds.
 */
export async function waitForSettled(page: Page, id = 'preview'): Promise<void> {
  await page.waitForFunction((id) => document.getElementById(id)?.matches(':state(ready), :state(error)') ?? false, id, { timeout: 5000 });
}

export interface CardView {
  state: CardState | null;
  href: string | null;
  rel: string | null;
  target: string | null;
  ariaBusy: string | null;
  title: string;
  description: string;
  descriptionHidden: boolean;
  /** The site line's name: site_name, else the registrable domain. */
  host: string;
  /** The registrable domain beside a site name ('' when the name is the domain). */
  domain: string;
  /** The "author · date" line. */
  byline: string;
  bylineHidden: boolean;
  badge: string;
  badgeHidden: boolean;
  mediaHidden: boolean;
  /** The image frame shows the cover (the site's initial) in place of an image: none, failed, or an error card. */
  cover: boolean;
  mediaBlurred: boolean;
  imageSrc: string | null;
  imageAlt: string | null;
  imageLoaded: boolean;
  faviconSrc: string | null;
  faviconAlt: string | null;
  faviconHidden: boolean;
  /** "banner" (image above the text) or "thumbnail" (image beside it), as laid out. */
  shape: 'banner' | 'thumbnail';
  /** The colour of the theme-colour stripe on the card's starting edge, or null when none shows. */
  accent: string | null;
  /** innerHTML of the whole shadow root, for "no injected markup" checks. */
  html: string;
}

/** What the card shows, read from the shadow DOM. */
export function readCard(page: Page, id = 'preview'): Promise<CardView> {
  return page.evaluate((id) => {
    const host = document.getElementById(id)!;
    const root = host.shadowRoot!;
    const part = (name: string) => root.querySelector(`[part=${name}]`) as HTMLElement;
    const visible = (el: HTMLElement) => !el.hidden && getComputedStyle(el).display !== 'none';
    const image = part('image') as HTMLImageElement;
    const favicon = part('favicon') as HTMLImageElement;
    const state = (['loading', 'ready', 'error'] as const).find((s) => host.matches(`:state(${s})`)) ?? null;
    return {
      state,
      href: part('card').getAttribute('href'),
      rel: part('card').getAttribute('rel'),
      target: part('card').getAttribute('target'),
      ariaBusy: part('card').getAttribute('aria-busy'),
      title: part('title').textContent ?? '',
      description: part('description').textContent ?? '',
      descriptionHidden: !visible(part('description')),
      host: part('host').textContent ?? '',
      domain: part('domain').textContent ?? '',
      byline: part('byline').textContent ?? '',
      bylineHidden: !visible(part('byline')),
      badge: part('badge').textContent ?? '',
      badgeHidden: !visible(part('badge')),
      mediaHidden: !visible(part('media')),
      cover: part('media').classList.contains('n'),
      mediaBlurred: getComputedStyle(image).filter.includes('blur'),
      imageSrc: image.getAttribute('src'),
      imageAlt: image.getAttribute('alt'),
      imageLoaded: image.complete && image.naturalWidth > 0,
      faviconSrc: favicon.getAttribute('src'),
      faviconAlt: favicon.getAttribute('alt'),
      faviconHidden: !visible(favicon),
      shape:
        visible(part('media')) && part('body').getBoundingClientRect().top < part('media').getBoundingClientRect().bottom - 1
          ? ('thumbnail' as const)
          : ('banner' as const),
      accent: /^(rgb\([^)]*\)) -?4px 0px 0px 0px inset$/.exec(getComputedStyle(part('card')).boxShadow)?.[1] ?? null,
      html: root.innerHTML,
    };
  }, id);
}

/**
 * Saves a screenshot of the element, with a margin so the focus ring (drawn outside the card)
 * shows, under test-artifacts/element/ (git-ignored; CI keeps the directory as artifacts).
 */
export async function snapshot(page: Page, name: string, id = 'preview'): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = `${ARTIFACTS_DIR}${name}.png`;
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  const box = await page.locator(`#${id}`).boundingBox();
  if (!box) throw new Error(`#${id} is not visible`);
  const margin = 8;
  await page.screenshot({
    path,
    animations: 'disabled',
    clip: { x: Math.max(0, box.x - margin), y: Math.max(0, box.y - margin), width: box.width + 2 * margin, height: box.height + 2 * margin },
  });
  return path;
}

/** Name and description of every link in Chromium's accessibility tree. */
export async function accessibleLinks(page: Page): Promise<{ name: string; description: string }[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: { role?: { value: string }; name?: { value: string }; description?: { value: string } }[];
    };
    return nodes.filter((n) => n.role?.value === 'link').map((n) => ({ name: n.name?.value ?? '', description: n.description?.value ?? '' }));
  } finally {
    await cdp.detach();
  }
}
