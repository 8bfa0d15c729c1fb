// adult when the page labels itself. Sites that want to be filtered say so in their
// head: the RTA label (Restricted To Adults, rtalabel.org) and the `rating` meta that Google
// SafeSearch reads (`adult`, or the RTA label); `mature` is the other value in common use.

import type { RawTags } from '../../wasm-parser/types.js';
import type { SafetyProvider } from './provider.js';

/** The fixed RTA label string; it appears as a meta content, alone or inside a PICS label. */
const RTA_LABEL = 'rta-5042-1996-1400-1577-rta';

/** Values of `<meta name="rating">` that mean adults only (compared lower-case, per token). */
const ADULT_RATINGS: ReadonlySet<string> = new Set(['adult', 'mature', RTA_LABEL]);

export function labelsItselfAdult(tags: RawTags): boolean {
  return tags.metas.some((meta) => {
    const content = meta.content?.toLowerCase() ?? '';
    // The RTA label counts wherever it is: name=RATING, http-equiv=PICS-Label, or other names.
    if (content.includes(RTA_LABEL)) return true;
    if (meta.name?.trim().toLowerCase() !== 'rating') return false;
    return content.split(/[\s,;]+/).some((token) => ADULT_RATINGS.has(token));
  });
}

export const adultSelfLabelProvider: SafetyProvider = {
  name: 'adult-self-label',
  check: ({ tags }) => (tags !== null && labelsItselfAdult(tags) ? ['adult'] : []),
};
