// <linkpeek-preview>: renders one link-preview card in its shadow DOM.
//   data-url       a page URL: its Metadata is fetched from the API
//   data-meta      Metadata JSON already at hand: rendered without any request (wins over data-url)
//   data-endpoint  the API base URL; default: the origin component.js was loaded from
//   data-layout    "card" (default) or "compact" (pure CSS, see styles.ts)
//   data-theme     "light", "dark" or "auto" (default: the page's color-scheme, else the OS; pure CSS)
// The state is exposed as a custom state: linkpeek-preview:state(loading|ready|error).
import type { Metadata } from '../generated/types.gen.js';
import { apiBase, fetchMetadata } from './api.js';
import { fillDetails, fitShape } from './card-details.js';
import { CARD_HTML, ERROR_TITLE, REASON_TEXTS, SAFETY_LABELS } from './card-template.js';
import { showImage } from './image-source.js';
import { parseMetadata } from './metadata-guard.js';
import { hostOf, httpUrl, linkText } from './safe-url.js';
import { cardStyles } from './styles.js';
import { applyTheme } from './theme.js';

type State = 'loading' | 'ready' | 'error';

export class LinkPeekPreview extends HTMLElement {
  static observedAttributes = ['data-url', 'data-meta', 'data-endpoint'];

  #internals = this.attachInternals();
  #root = this.attachShadow({ mode: 'open' });
  #request: AbortController | undefined;
  #queued = false;

  constructor() {
    super();
    this.#root.adoptedStyleSheets = [cardStyles()];
    this.#root.innerHTML = CARD_HTML;
  }

  connectedCallback() {
    this.#schedule();
  }

  /** A removed element cancels its request. */
  disconnectedCallback() {
    this.#request?.abort();
    this.#request = undefined;
  }

  attributeChangedCallback() {
    this.#schedule();
  }

  /** Several attribute changes in one task (or the upgrade's burst) make one render. */
  #schedule() {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (this.isConnected) this.#update();
    });
  }

  #update() {
    this.#request?.abort();
    this.#request = undefined;
    const { meta, url, endpoint } = this.dataset;
    const base = apiBase(endpoint);
    const target = httpUrl(url);
    if (meta != null) {
      const metadata = parseMetadata(meta);
      return metadata ? this.#ready(metadata, base) : this.#error(target);
    }
    if (!target || !base) return this.#error(target);
    this.#loading(target);
    const request = (this.#request = new AbortController());
    void fetchMetadata(base, target, request.signal).then((result) => {
      if (request != this.#request) return; // superseded or removed meanwhile
      this.#request = undefined;
      if (result && typeof result == 'object') this.#ready(result, base);
      else this.#error(target, result);
    });
  }

  #loading(target: string) {
    this.#paint('loading', target, '', '', hostOf(target));
  }

  /** The error state is a plain link to the page whenever its URL is known; it says why when the API did. */
  #error(target: string | null, reason?: string | null) {
    const why = reason ? REASON_TEXTS[reason as keyof typeof REASON_TEXTS] : undefined;
    this.#paint('error', target, target ? linkText(target) : ERROR_TITLE, why ?? '', '');
  }

  #ready(metadata: Metadata, base: string | null) {
    const href = httpUrl(metadata.url);
    const host = hostOf(href);
    const title = metadata.title || host;
    const tags = metadata.safety_tags ?? [];
    this.#paint('ready', href, title, metadata.description ?? '', host, metadata.theme_color);
    const part = this.#part;
    fillDetails(part, host, metadata);
    const badge = part('badge');
    badge.textContent = tags.map((tag) => SAFETY_LABELS[tag]).join(' · ');
    badge.hidden = !tags.length;
    const media = part('media');
    media.classList.toggle('blur', tags.includes('adult'));
    const image = part('image') as HTMLImageElement;
    fitShape(part('card'), image, metadata);
    showImage(image, media, httpUrl(metadata.image.url), base);
    const favicon = part('favicon') as HTMLImageElement;
    showImage(favicon, favicon, httpUrl(metadata.favicon.url), base);
  }

  /** Sets the state and the text pieces; every value goes in as text, every URL was checked. */
  #paint(state: State, href: string | null, title: string, description: string, host: string, themeColor?: unknown) {
    const part = this.#part;
    const states = this.#internals.states;
    states.clear();
    states.add(state);
    const card = part('card');
    if (href) card.setAttribute('href', href);
    else card.removeAttribute('href');
    card.className = state == 'loading' ? 'l k' : state == 'error' ? 'e' : '';
    card.ariaBusy = String(state == 'loading');
    part('title').textContent = title;
    const text = part('description');
    text.textContent = description;
    text.hidden = state != 'loading' && !description;
    fillDetails(part, host);
    const badge = part('badge');
    badge.hidden = true;
    badge.textContent = ''; // a hidden label still counts in aria-labelledby
    const media = part('media');
    const image = part('image') as HTMLImageElement;
    const favicon = part('favicon') as HTMLImageElement;
    for (const img of [image, favicon]) {
      img.onerror = img.onload = null;
      img.removeAttribute('src');
    }
    media.hidden = state == 'error';
    favicon.hidden = true;
    applyTheme(this, states, card, themeColor);
  }

  #part = (name: string) => this.#root.querySelector(`[part=${name}]`) as HTMLElement;
}
