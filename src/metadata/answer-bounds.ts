// A size bound on an answer's raw `og` and `twitter` maps. Every other field has its own bound
// (normalize.ts FIELD_LIMITS, the oEmbed reader's bytes), but these maps pass the page's tags on
// as they are: a 2 MB page of 240 og and 240 twitter tags of 4,096 characters gave a 1.97 MB
// answer, cached and sent again to anyone for nothing.
//
// Measured on the 392 real pages of the test corpus (2026-11-27): at most 17 og and 22 twitter
// keys on one page, the longest value 4,109 characters (an og:description), the largest map
// 4.7 KB of JSON, the largest answer 11.8 KB. The bounds keep all of that with room to spare,
// and hold a map to 16 KiB of JSON whatever the page says:
//   - a value longer than 8,192 characters is left out (a data: URI, never a preview's text);
//   - at most 64 entries, in the page's order;
//   - an entry that would take the map's JSON past 16 KiB is left out.
// Leaving an entry out, never cutting it: these are raw values, and a cut URL is another URL.

/** The bounds of one raw map. */
export const RAW_MAP_BOUNDS = {
  entries: 64,
  valueChars: 8 * 1024,
  jsonBytes: 16 * 1024,
} as const;

/** Each page's maps are bounded once, however many answers (both preferences) carry them. */
const bounded = new WeakMap<Readonly<Record<string, string>>, Record<string, string>>();

/** `map` within RAW_MAP_BOUNDS: the same object when it already fits. */
export function boundRawMap(map: Readonly<Record<string, string>>): Record<string, string> {
  let out = bounded.get(map);
  if (out === undefined) bounded.set(map, (out = within(map)));
  return out;
}

function within(map: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  let entries = 0;
  let bytes = 2; // {}
  let changed = false;
  for (const [key, value] of Object.entries(map)) {
    // "key":"value", with its comma: the bytes this entry adds to the map's JSON.
    const cost = Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(value)) + 2;
    if (entries >= RAW_MAP_BOUNDS.entries || value.length > RAW_MAP_BOUNDS.valueChars || bytes + cost > RAW_MAP_BOUNDS.jsonBytes) {
      changed = true;
      continue;
    }
    out[key] = value;
    entries++;
    bytes += cost;
  }
  return changed ? out : map;
}
