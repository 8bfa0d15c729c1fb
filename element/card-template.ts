// The card's fixed markup. No untrusted value is ever part of it: the element fills the
// pieces with textContent and checked URLs only (issue 7 "Untrusted data").
import type { SafetyTag } from '../generated/types.gen.js';

/**
 * The whole card is one link; rel drops the opener and the referrer (issue 7). Its accessible
 * name is badge + title + host, and the description is its accessible description, so a screen
 * reader announces a short link name instead of the whole card text.
 */
export const CARD_HTML =
  '<a part="card" rel="noopener noreferrer" target="_blank" aria-labelledby="w t h" aria-describedby="d">' +
  '<div part="media" class="m"><img part="image" alt="" referrerpolicy="no-referrer" decoding="async"></div>' +
  '<div part="body" class="b">' +
  '<span part="badge" class="w" id="w"></span>' +
  '<div part="title" class="t" id="t"></div>' +
  '<div part="description" class="d" id="d"></div>' +
  '<div part="site" class="s"><img part="favicon" alt="" width="16" height="16" referrerpolicy="no-referrer"><span part="host" class="h" id="h"></span></div>' +
  '</div></a>';

/** Readable badge text per safety tag (SPEC.md "SafetyTag"). */
export const SAFETY_LABELS: Record<SafetyTag, string> = {
  adult: 'Adult content',
  security_threat: 'Security threat',
  suspicious_domain: 'Suspicious site',
};

export const ERROR_TITLE = 'Preview unavailable';
