// The card's fixed markup. No untrusted value is ever part of it: the element fills the
// pieces with textContent and checked URLs only: the data comes from untrusted pages.
import type { FailureReason, SafetyTag } from '../generated/types.gen.js';

/**
 * The whole card is one link; rel drops the opener and the referrer. Its accessible name is its
 * content in reading order (the play badge's "Video", badges, title, description, site line
 * ending in "(opens in a new tab)", the alt text of the arrow icon, styles.ts, then the byline),
 * so the name holds every word the card shows (WCAG 2.5.3 "Label in Name"); the description is
 * cut short (card-details.ts) so a screen reader does not read a long one in full. The image is
 * decorative (alt=""): the title says it all. Every text piece takes its direction from its own
 * first strong letter (dir=auto): an English title on a right-to-left page, or an Arabic one on a
 * left-to-right page. The element's own words (badges) are English.
 */
export const CARD_HTML =
  '<a part="card" rel="noopener noreferrer" target="_blank">' +
  '<div part="media" class="m"><img part="image" alt="" referrerpolicy="no-referrer" decoding="async">' +
  '<span part="play" class="p" role="img"></span></div>' +
  '<div part="body" class="b">' +
  '<span part="badge" class="w" lang="en"></span>' +
  '<div part="title" class="t" dir="auto"></div>' +
  '<div part="description" class="d" dir="auto"></div>' +
  '<div part="site" class="s"><img part="favicon" alt="" referrerpolicy="no-referrer">' +
  '<span part="host" class="h" dir="auto"></span><i></i><span part="domain" class="o" dir="auto"></span></div>' +
  '<div part="byline" class="y" dir="auto"></div>' +
  '</div></a>';

/** Readable badge text per safety tag (docs/SPEC.md "SafetyTag"). */
export const SAFETY_LABELS: Record<SafetyTag, string> = {
  adult: 'Adult content',
  security_threat: 'Security threat',
  suspicious_domain: 'Suspicious site',
};

/** The error state's text when there is no page URL to link to. */
export const ERROR_TITLE = 'Preview unavailable';

/**
 * The error state's one line under the link, from the 422's `reason` (openapi.yaml): short words
 * for a reader of the page, not the API's own message. An unknown or missing reason adds no line.
 */
export const REASON_TEXTS: Partial<Record<FailureReason, string>> = {
  http_status: 'The page answered with an error.',
  timeout: 'The site took too long to answer.',
  name_not_resolved: 'This address does not exist.',
  too_many_redirects: 'The page redirects too many times.',
  redirect_loop: 'The page redirects in a loop.',
  tls_certificate: "The site's certificate is not valid.",
  connection_refused: 'The site could not be reached.',
  unreachable: 'The site could not be reached.',
  // The preview service's own fault, not the site's: said so, so readers do not blame the site.
  resolver_unavailable: 'Preview service error; retry.',
  empty_page: 'The page is empty.',
  bot_check: 'The site blocked the preview with a bot check.',
  consent_wall: 'The site asks for consent or a sign-in first.',
};
