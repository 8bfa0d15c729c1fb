// Unknown query parameters are tolerated (utm tags happen), but one a typo away from a parameter
// the operation declares (`perfer` for `prefer`, `ulr` for `url`) is named in a response header, so
// a caller sees why their setting had no effect. The header is our own: RFC 9111 5.5 obsoleted
// `Warning` (its 299 code included), and caches and clients no longer read it.

/** The response header naming near misses (openapi.yaml components/headers/LinkPeekWarning). */
export const WARNING_HEADER = 'LinkPeek-Warning';

/** Past this many, the rest of a long query is not looked at: the header stays short. */
const MAX_WARNINGS = 5;

/**
 * Edits (insert, delete, substitute, swap two neighbours) within which a name is a typo of a
 * declared one: 1 for names of up to 4 letters (`url`: `ur`, `ulr`, `urls`), 2 for longer ones
 * (`prefer`: `perfer`, `prefre`, `prefered`). Two edits on a three-letter name would take in
 * most one- and two-letter parameters (`l`, `v`, `ab`).
 */
function allowedEdits(name: string): number {
  return name.length <= 4 ? 1 : 2;
}

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one piece). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The declared name `given` is a typo of (case aside), or null; `given` is not itself declared. */
export function nearMiss(given: string, declared: Iterable<string>): string | null {
  const lower = given.toLowerCase();
  for (const name of declared) {
    // A length this far off is no typo of the name: not worth the table.
    if (Math.abs(lower.length - name.length) > allowedEdits(name)) continue;
    if (editDistance(lower, name) <= allowedEdits(name)) return name;
  }
  return null;
}

/**
 * The header's value for these query names, or null when none is a near miss: a Structured Field
 * list of strings (RFC 8941 3.3.3), one per near miss, e.g.
 * `"unknown parameter perfer; did you mean prefer?"`. Characters a string item cannot hold are
 * percent-encoded.
 */
export function nearMissWarning(given: Iterable<string>, declared: ReadonlySet<string>): string | null {
  const warnings: string[] = [];
  for (const name of given) {
    if (declared.has(name)) continue;
    const meant = nearMiss(name, declared);
    if (meant === null) continue;
    const shown = name.replace(/[^\x20-\x7e]|["\\%]/gu, (c) => [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
    warnings.push(`"unknown parameter ${shown}; did you mean ${meant}?"`);
    if (warnings.length === MAX_WARNINGS) break;
  }
  return warnings.length === 0 ? null : warnings.join(', ');
}
