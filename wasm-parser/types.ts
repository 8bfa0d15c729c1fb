// What the head scanner hands to the rules: the raw tags of a page's head, in document order,
// entity-decoded, before any interpretation. No I/O and no URL logic here.

/** One `<meta>` element. Attribute names are matched case-insensitively; values are raw text. */
export interface RawMeta {
  property: string | null;
  name: string | null;
  itemprop: string | null;
  httpEquiv: string | null;
  content: string | null;
  /** `<meta charset>`, kept so the charset sniffer and tests can see it. */
  charset: string | null;
  /**
   * `value=`, which early Twitter Card markup used instead of `content=`
   * (`<meta name="twitter:card" value="summary">`). Absent in RawMeta values made before it existed.
   */
  value?: string | null;
  /**
   * `media=`, the media query of a `<meta name=theme-color>`. Present only when the tag has the
   * attribute, so RawMeta values without one compare equal to those made before it existed.
   */
  media?: string;
}

/** One `<link>` element. */
export interface RawLink {
  rel: string;
  href: string;
  type: string | null;
  sizes: string | null;
}

export interface RawTags {
  metas: RawMeta[];
  /** Text of the first `<title>`, joined across chunks; null when there is none. */
  title: string | null;
  links: RawLink[];
  /** First `<base href>`, unresolved. */
  baseHref: string | null;
  /** `<html lang>`. */
  lang: string | null;
  /** `src` of every `<script>` before `<body>` (parking-page markers for the safety checks). */
  scriptSrcs: string[];
  /**
   * Text of each `<script type=application/ld+json>` before `<body>`, raw (script text is not
   * entity-decoded), within COLLECT_LIMITS (a script over its bound is left out whole, never cut).
   * Present only when at least one was kept.
   */
  jsonLd?: string[];
}

export interface ScanResult {
  tags: RawTags;
  /** Bytes of the input consumed before the scan stopped (at the first `<body>` or the end). */
  bytesConsumed: number;
  /** True when the scan stopped at `<body>` rather than at the end of the input. */
  stoppedAtBody: boolean;
  /**
   * Present when the head held more markup than a scan reads (MAX_START_TAGS) before `<body>`:
   * `tags` hold what was found until then, the same for the same bytes. Absent otherwise.
   */
  markupLimit?: true;
  /** The charset the bytes were decoded with (WHATWG label, e.g. "utf-8", "shift_jis"). */
  charset: string;
}
