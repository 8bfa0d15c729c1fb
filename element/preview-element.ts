// <linkpeek-preview>: renders one link-preview card in its shadow DOM.
//   data-url       a page URL: its Metadata is fetched from the API
//   data-meta      Metadata JSON already at hand: rendered without any request (wins over data-url)
//   data-endpoint  the API base URL; default: the origin component.js was loaded from
//   data-layout    "card" (default) or "compact" (pure CSS, see styles.ts)
//   data-theme     "light", "dark" or "auto" (default: the page's color-scheme, else the OS; pure CSS)
// The state is exposed as a custom state: linkpeek-preview:state(loading|ready|error); like <img>,
// the element fires `load` (a card) or `error` (the error state) each time it settles, in a task of
// its own, so a listener that a later script adds still hears a data-meta card's.
// A data-url card asks the API only when it nears the viewport, so a long page spends its
// rate-limit budget (docs/SPEC.md "Limits") on the cards a reader reaches.
import type { Metadata } from '../generated/types.gen.js';
import { apiBase, sharedMetadata } from './api.js';
import { fillDetails, fitImage, fitText, shortened } from './card-details.js';
import { CARD_HTML, ERROR_TITLE, REASON_TEXTS, SAFETY_LABELS } from './card-template.js';
import { showImage } from './image-source.js';
import { parseMetadata } from './metadata-guard.js';
import { plainText } from './plain-text.js';
import { httpUrl, linkText } from './safe-url.js';
import { siteDomain } from './site-domain.js';
import { cardStyles } from './styles.js';
import { applyTheme, followScheme } from './theme.js';
import { playerFrame, playerUrl, providerImage } from './video-player.js';

type State = 'loading' | 'ready' | 'error';

/** How far outside the viewport a card starts its request: about one scroll step ahead. */
const NEAR_VIEWPORT = '200px';

/** data-endpoint values already warned about: a page with many cards logs each mistake once. */
const badEndpoints: (string | undefined)[] = [];

export class LinkPeekPreview extends HTMLElement {
  static observedAttributes = ['data-url', 'data-meta', 'data-endpoint'];

  /** One observer for every card: a card in (or near) view starts its request, once. */
  static #near = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) if (entry.isIntersecting) (entry.target as LinkPeekPreview).#start?.();
    },
    // scrollMargin: the same margin inside a scrolling container (a feed, a chat pane), whose own
    // clip rootMargin does not widen; browsers without it ignore it and start cards on sight there.
    { rootMargin: NEAR_VIEWPORT, scrollMargin: NEAR_VIEWPORT },
  );

  #internals = this.attachInternals();
  // delegatesFocus: host.focus() (and a click on the card's padding) focuses the link inside.
  #root = this.attachShadow({ mode: 'open', delegatesFocus: true });
  #request: AbortController | undefined;
  /** The request waiting for the card to near the viewport. */
  #start: (() => void) | undefined;
  #queued = false;
  /** The player of this card's video (video-player.ts), or null. */
  #player: string | null = null;

  constructor() {
    super();
    this.#root.adoptedStyleSheets = [cardStyles()];
    this.#root.innerHTML = CARD_HTML;
    this.addEventListener('transitionend', () => followScheme(this, this.#internals.states));
    this.#part('media').addEventListener('click', (event) => this.#clickMedia(event));
    // An image that fails leaves the card exactly as one without an image: the banner's cover.
    this.#part('image').addEventListener('failed', () => {
      this.#part('card').classList.remove('k');
      fitText(this.#part);
    });
    // Enter on a video's card plays it in place, as a click on its image does; the card's link
    // opens the page once the player is there.
    this.#part('card').addEventListener('keydown', (event) => event.key == 'Enter' && this.#player && this.#clickMedia(event));
  }

  /**
   * A click on a blurred image reveals it; a click on a video's image (its play badge) plays it
   * in place. Either one stays on the page instead of following the card's link.
   */
  #clickMedia(event: Event) {
    const media = this.#part('media');
    const blurred = media.classList.contains('blur');
    if (!blurred && !this.#player) return;
    event.preventDefault();
    if (blurred) return media.classList.remove('blur');
    media.classList.remove('v');
    media.append(playerFrame(this.#player!, this.#part('title').textContent));
    this.#player = null;
  }

  connectedCallback() {
    this.#schedule();
  }

  /** A removed element cancels its request, or stops waiting to make one. */
  disconnectedCallback() {
    this.#stop();
  }

  #stop() {
    LinkPeekPreview.#near.unobserve(this);
    this.#start = undefined;
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
    this.#stop();
    const { meta, url, endpoint } = this.dataset;
    const base = apiBase(endpoint);
    if (!base && !badEndpoints.includes(endpoint)) {
      badEndpoints.push(endpoint);
      console.warn('linkpeek-preview: data-endpoint is not an http(s) URL');
    }
    let target = httpUrl(url);
    if (meta != null) {
      const [value, problem] = parseMetadata(meta);
      if (problem) {
        // The page's author needs to know why; the reader still gets a link when one is known.
        console.warn(`linkpeek-preview: ${problem}`);
        target ??= httpUrl((value as { url?: unknown } | null)?.url);
      }
      return this.#settle(problem ? null : (value as Metadata), base, target);
    }
    if (!target || !base) return this.#settle(null, base, target);
    this.#paint('loading', target, '', '', siteDomain(target));
    const request = (this.#request = new AbortController());
    // Asked once the card nears the viewport (`#near`); #stop drops it unasked.
    this.#start = () => {
      LinkPeekPreview.#near.unobserve(this);
      this.#start = undefined;
      void sharedMetadata(base, target, request.signal, this).then((result) => {
        if (request != this.#request) return; // superseded or removed meanwhile
        this.#request = undefined;
        this.#settle(result, base, target);
      });
    };
    LinkPeekPreview.#near.observe(this);
  }

  /** Shows the card or the error state, then tells the page, once per settle, as <img> does. */
  #settle(result: Metadata | string | null, base: string | null, target: string | null) {
    const ready = result && typeof result == 'object';
    if (ready) this.#ready(result, base, target);
    else this.#error(target, result);
    setTimeout(() => this.dispatchEvent(new Event(ready ? 'load' : 'error')));
  }

  /** The error state is a plain link to the page whenever its URL is known; it says why when the API did. */
  #error(target: string | null, reason?: string | null) {
    const why = reason ? REASON_TEXTS[reason as keyof typeof REASON_TEXTS] : undefined;
    this.#paint('error', target, target ? linkText(target) : ERROR_TITLE, why ?? '', '');
    fitText(this.#part);
  }

  /**
   * The card links to, and names the domain of, the address the reader was given: the one the
   * service fetched (after redirects), else the one the card was asked for. `url` is what the page
   * says of itself (og:url may name any site), so it serves only a data-meta that has neither.
   */
  #ready(metadata: Metadata, base: string | null, target: string | null) {
    const href = httpUrl(metadata.fetched_url) ?? target ?? httpUrl(metadata.url)!;
    const domain = siteDomain(href);
    const tags = metadata.safety_tags ?? [];
    this.#paint('ready', href, plainText(metadata.title) || domain, shortened(plainText(metadata.description)), domain, metadata.theme_color, metadata);
    const part = this.#part;
    const badge = part('badge');
    badge.textContent = tags.map((tag) => SAFETY_LABELS[tag]).join(' · ');
    badge.hidden = !tags.length;
    const media = part('media');
    media.classList.toggle('blur', tags.includes('adult'));
    const image = part('image') as HTMLImageElement;
    fitImage(part, image, metadata);
    this.#player = playerUrl(href);
    // A video provider's own images come through the proxy: nothing reaches it before a click.
    const source = (raw?: string | null, url = httpUrl(raw)) => [url, base, !!this.#player || providerImage(url)] as const;
    const picture = source(metadata.image.url);
    showImage(this, image, media, ...picture);
    if (!picture[0]) media.classList.add('n');
    const favicon = part('favicon') as HTMLImageElement;
    showImage(this, favicon, favicon, ...source(metadata.favicon.url), true);
    const video = !!this.#player || metadata.embed?.type == 'video';
    media.classList.toggle('v', video);
    // The badge's name joins the link's; a nameless one adds nothing.
    part('play').ariaLabel = video ? 'Video' : null;
    fitText(part);
  }

  /** Sets the state and the text pieces; every value goes in as text, every URL was checked. */
  #paint(state: State, href: string | null, title: string, description: string, domain: string, themeColor?: string | null, metadata?: Metadata) {
    const part = this.#part;
    const states = this.#internals.states;
    states.clear();
    states.add(state);
    const card = part('card');
    if (href) card.setAttribute('href', href);
    else card.removeAttribute('href');
    card.className = state == 'loading' ? 'l' : state == 'error' ? 'e' : '';
    card.ariaBusy = String(state == 'loading');
    part('title').textContent = title;
    // A title in a right-to-left script turns the whole card, so its lines align as one.
    card.dir = /^[^\p{L}]*[\p{sc=Arab}\p{sc=Hebr}\p{sc=Syrc}\p{sc=Thaa}\p{sc=Nkoo}]/u.test(title) ? 'rtl' : '';
    const text = part('description');
    text.textContent = description;
    text.hidden = state != 'loading' && !description;
    text.style.webkitLineClamp = part('title').style.webkitLineClamp = '';
    fillDetails(part, domain, metadata);
    const badge = part('badge');
    badge.hidden = true;
    badge.textContent = '';
    part('play').ariaLabel = this.#player = null;
    const media = part('media');
    // Its cover (.n): the error card's, and a card's without an image.
    media.className = state == 'error' ? 'm n' : 'm';
    media.hidden = false;
    media.querySelector('iframe')?.remove();
    const image = part('image') as HTMLImageElement;
    image.onload = null;
    // No image yet: this drops an earlier render's, and aborts its proxy requests.
    showImage(this, image, media, null, null);
    showImage(this, part('favicon') as HTMLImageElement, part('favicon'), null, null);
    media.dataset.i = [...(part('host').textContent || title)][0]?.toUpperCase() ?? '';
    applyTheme(this, states, card, themeColor);
  }

  #part = (name: string) => this.#root.querySelector(`[part=${name}]`) as HTMLElement;
}
