// Tells a wall from a page: a bot check (markers.ts BOT_CHECK_MARKERS) in the answer's headers or
// head, or a redirect that ended on a consent or login page (CONSENT_PAGES). Pure functions over
// what the fetch and the head scanner already produced; the service turns a wall into its 422.
//
// Its own module, beside neither src/fetch nor src/metadata: it reads the scanner's tags, which
// the transport layer never sees, and the metadata service, the benchmark and any other caller
// can use it without pulling in each other.

import type { RawTags } from '../../wasm-parser/types.js';
import { FetchFailed } from '../errors.js';
import { failures } from '../failure-reasons.js';
import { BOT_CHECK_MARKERS, CHALLENGE_STATUSES, CONSENT_PAGES, type BotCheckMarker, type ConsentPage } from './markers.js';
import { hrefWithoutFragment } from '../url-fragment.js';

/** What an answer shows of itself: its status and headers (lower-case names), its URL, its head. */
export interface AnswerEvidence {
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The URL the answer came from (after redirects): relative script sources resolve against it. */
  url: URL;
  /** The head's tags; null when the head was not read (not HTML, or not read yet). */
  tags: RawTags | null;
}

/** The first bot-check marker the answer carries, or null. Markers that need the head wait for it. */
export function findBotCheck(answer: AnswerEvidence): BotCheckMarker | null {
  const head = answer.tags && new HeadView(answer.tags, answer.url);
  return BOT_CHECK_MARKERS.find((marker) => matches(marker, answer, head)) ?? null;
}

/** True when a non-2xx answer's head is worth reading for bot-check markers (markers.ts CHALLENGE_STATUSES). */
export function mayBeChallengePage(status: number): boolean {
  return CHALLENGE_STATUSES.has(status);
}

/**
 * The consent or login page a redirect ended on, or null. Only a redirect counts: a URL asked for
 * directly is the page the caller wanted, whatever it is.
 */
export function findConsentWall(requested: URL, final: URL): ConsentPage | null {
  // Without a redirect the fetch hands back the very URL it was given: nothing to compare.
  if (requested === final || hrefWithoutFragment(requested) === hrefWithoutFragment(final)) return null;
  const host = final.hostname.toLowerCase();
  const path = final.pathname.toLowerCase();
  return (
    CONSENT_PAGES.find(
      (wall) => (typeof wall.host === 'string' ? wall.host === host : wall.host.test(host)) && (wall.path === undefined || wall.path.test(path)),
    ) ?? null
  );
}

/**
 * Throws the page failure (422, cached for CACHE_FAILURE_TTL_MS like any page failure) of a wall,
 * if the answer is one. Called once when the headers arrive (tags null) and again after the head
 * scan, so a header marker never waits for the body.
 */
export function refuseWalls(requested: URL, answer: AnswerEvidence): void {
  const consent = findConsentWall(requested, answer.url);
  if (consent) {
    throw new FetchFailed(`redirected to a ${consent.page} page at ${answer.url.hostname}`, {
      failure: failures.consentWall(answer.url.hostname, consent.page),
    });
  }
  const check = findBotCheck(answer);
  if (check) {
    throw new FetchFailed(`${check.service} bot check (${describe(check)}), status ${answer.status}`, { failure: failures.botCheck(check.service) });
  }
}

function matches(marker: BotCheckMarker, { status, headers }: AnswerEvidence, head: HeadView | null): boolean {
  if (marker.status && !marker.status.includes(status)) return false;
  if (marker.header) {
    const value = headers[marker.header.name];
    if (value === undefined || (marker.header.value && !marker.header.value.test(value.trim()))) return false;
  }
  const needsHead = marker.title || marker.untitled || marker.meta || marker.script;
  if (!needsHead) return true;
  if (!head) return false;
  if (marker.title && (!marker.title.test(head.title) || head.describesArticle)) return false;
  if (marker.untitled && head.title !== '') return false;
  if (marker.meta && !head.tags.metas.some((m) => metaMatches(marker.meta!, m.name, m.content))) return false;
  if (marker.script && !head.scripts().some((src) => scriptMatches(marker.script!, src))) return false;
  return true;
}

/** The head as the markers read it, each part worked out once per answer, not once per marker. */
class HeadView {
  /** The title with its white space collapsed; '' when there is none. */
  readonly title: string;
  /**
   * The head describes an article (`og:type=article`, an `og:description` or an
   * `article:published_time`). An interstitial carries none of these: it is a stand-in served
   * before any page exists. So they veto a title marker: a real article may well be titled
   * "Just a moment..." and served by Cloudflare. Header and script markers are not vetoed.
   */
  readonly describesArticle: boolean;
  private scriptUrls: { host: string; path: string }[] | null = null;

  constructor(
    readonly tags: RawTags,
    private readonly page: URL,
  ) {
    this.title = tags.title?.replace(/\s+/g, ' ').trim() ?? '';
    this.describesArticle = tags.metas.some(isArticleMetadata);
  }

  /** Host and path (lower-cased) of each http(s) script source, resolved against the page URL, parsed on first use. */
  scripts(): { host: string; path: string }[] {
    this.scriptUrls ??= this.tags.scriptSrcs.flatMap((src) => {
      const url = URL.parse(src.trim(), this.page);
      return url && (url.protocol === 'http:' || url.protocol === 'https:') ? [{ host: url.hostname.toLowerCase(), path: url.pathname.toLowerCase() }] : [];
    });
    return this.scriptUrls;
  }
}

/** A meta that only a page with content carries (HeadView.describesArticle). */
function isArticleMetadata({ property, name, content }: RawTags['metas'][number]): boolean {
  const key = (property ?? name)?.trim().toLowerCase();
  if (content === null || content.trim() === '') return false;
  if (key === 'og:type') return content.trim().toLowerCase() === 'article';
  return key === 'og:description' || key === 'article:published_time';
}

function metaMatches(want: NonNullable<BotCheckMarker['meta']>, name: string | null, content: string | null): boolean {
  return name?.trim().toLowerCase() === want.name && content !== null && want.content.test(content.trim());
}

function scriptMatches(want: NonNullable<BotCheckMarker['script']>, { host, path }: { host: string; path: string }): boolean {
  if (want.host !== undefined && host !== want.host && !host.endsWith(`.${want.host}`)) return false;
  return want.path.test(path);
}

/** The marker in one line, for the log. */
function describe(marker: BotCheckMarker): string {
  const parts: string[] = [];
  if (marker.header) parts.push(`header ${marker.header.name}`);
  if (marker.status) parts.push(`status ${marker.status.join('/')}`);
  if (marker.title) parts.push('title');
  if (marker.untitled) parts.push('no title');
  if (marker.meta) parts.push(`meta ${marker.meta.name}`);
  if (marker.script) parts.push(`script ${marker.script.host ?? ''}${marker.script.path.source}`);
  return parts.join(' + ');
}
