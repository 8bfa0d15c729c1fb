// Which charset turns a page's bytes into readable text, and the small parsers that feed that
// choice. The order, strongest first:
//   1. a byte order mark (WHATWG Encoding "decode": the BOM wins over every label);
//   2. bytes that are valid UTF-8 are UTF-8, whatever is declared: real pages often declare a
//      charset they are not stored in (gb2312, windows-1251 and iso-8859-1 pages stored as
//      UTF-8 are common), and text that validates as UTF-8 is almost never anything else;
//   3. the charset parameter of the HTTP Content-Type (read by src/media-type.ts);
//   4. the first `<meta charset>` / `<meta http-equiv=content-type>` before `<body>`, wherever it is
//      (browsers re-decode when it comes after the first 1024 bytes, HTML "change the encoding");
//   5. windows-1252 (the WHATWG default for an unknown locale).
// Labels in 3 and 4 that say UTF-8 when the bytes are not come last, as the bytes disprove them;
// when nothing else is declared they still win over 5, lossy, if the bytes are mostly UTF-8 (a
// stray byte in a UTF-8 page), but not for windows-1252 text labelled UTF-8.
// lol-html in html-rewriter-wasm reads UTF-8 only (it has no encoding option), so every other
// choice is decoded with TextDecoder (full ICU here) and re-encoded as UTF-8 before it reaches
// the rewriter.

export type CharsetBasis = 'bom' | 'valid-utf8' | 'http' | 'meta' | 'default';

export interface ByteOrderMark {
  charset: 'utf-8' | 'utf-16le' | 'utf-16be';
  length: number;
}

/** The BOM at the start of `bytes`, or null (WHATWG Encoding "BOM sniff"). */
export function sniffBom(bytes: Uint8Array): ByteOrderMark | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: 'utf-8', length: 3 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { charset: 'utf-16be', length: 2 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { charset: 'utf-16le', length: 2 };
  return null;
}

// Labels repeat from page to page: a TextDecoder is built once per label to learn its name. Only
// labels TextDecoder knows are kept, so the map holds at most the WHATWG list (about 220 labels).
const knownLabels = new Map<string, string>([
  // windows-1252 for text purposes (HTML "prescan" step 4). Node 20's TextDecoder refuses the
  // label, Node 24's accepts it: decided here, not by the runtime.
  ['x-user-defined', 'windows-1252'],
]);

function encodingForKey(key: string): string | null {
  const known = knownLabels.get(key);
  if (known !== undefined) return known;
  try {
    const encoding = new TextDecoder(key).encoding;
    knownLabels.set(key, encoding);
    return encoding;
  } catch {
    // The "replacement" labels (iso-2022-kr, hz-gb-2312...) are not decodable here.
    return null;
  }
}

/**
 * The WHATWG encoding name for a label ("Shift_JIS" → "shift_jis", "gb2312" → "gbk",
 * "latin1" → "windows-1252"), or null when TextDecoder does not know it.
 */
export function encodingForLabel(label: string): string | null {
  const key = label.trim().toLowerCase();
  return key === '' ? null : encodingForKey(key);
}

/**
 * The encoding a label asks for when it is found in the page itself. A page cannot declare itself
 * UTF-16 (its bytes would not be readable as ASCII to find the declaration), so HTML's prescan
 * turns UTF-16 labels into UTF-8.
 */
export function encodingForDeclaredLabel(label: string): string | null {
  const name = encodingForLabel(label);
  return name === 'utf-16le' || name === 'utf-16be' ? 'utf-8' : name;
}

/**
 * HTML "algorithm for extracting a character encoding from a meta element": the label after
 * `charset=` in a `<meta http-equiv=content-type content=...>`, quoted or not.
 */
export function charsetOfMetaContent(content: string): string | null {
  const lower = content.toLowerCase();
  let from = 0;
  for (;;) {
    const at = lower.indexOf('charset', from);
    if (at < 0) return null;
    let i = at + 'charset'.length;
    while (isSpace(lower.charCodeAt(i))) i++;
    if (lower[i] !== '=') {
      from = at + 1;
      continue;
    }
    i++;
    while (isSpace(lower.charCodeAt(i))) i++;
    const quote = content[i];
    if (quote === '"' || quote === "'") {
      const close = content.indexOf(quote, i + 1);
      return close < 0 ? null : content.slice(i + 1, close);
    }
    let end = i;
    while (end < content.length && !isSpace(content.charCodeAt(end)) && content[end] !== ';') end++;
    return end > i ? content.slice(i, end) : null;
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
}

/**
 * How many bytes at the end of `bytes` are the start of a UTF-8 sequence that the next chunk may
 * complete (0–3). Only the lead byte's promise is checked; validity is isUtf8's job.
 */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  const n = bytes.length;
  // Look back over at most three bytes for the lead byte of the last sequence.
  for (let back = 1; back <= 3 && back <= n; back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

/**
 * Length of the valid UTF-8 sequence starting at `i` (1–4), or 0 when the byte there does not
 * start one (RFC 3629 table: no overlongs, no surrogates, nothing above U+10FFFF; a sequence cut
 * by the end of `bytes` counts as invalid).
 */
function utf8SequenceAt(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  if (b < 0x80) return 1;
  let need: number;
  let min = 0x80;
  let max = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) need = 1;
  else if (b >= 0xe0 && b <= 0xef) {
    need = 2;
    if (b === 0xe0) min = 0xa0;
    if (b === 0xed) max = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    need = 3;
    if (b === 0xf0) min = 0x90;
    if (b === 0xf4) max = 0x8f;
  } else return 0;
  const second = bytes[i + 1];
  if (second === undefined || second < min || second > max) return 0;
  for (let k = 2; k <= need; k++) {
    const next = bytes[i + k];
    if (next === undefined || (next & 0xc0) !== 0x80) return 0;
  }
  return need + 1;
}

/**
 * Index of the first byte that does not start a valid UTF-8 sequence, or -1. Only run on a block
 * that isUtf8 already rejected, to find how much of it is still text.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const length = utf8SequenceAt(bytes, i);
    if (length === 0) return i;
    i += length;
  }
  return -1;
}

/**
 * How much of `blocks` speaks for UTF-8: valid multi-byte sequences, against bytes that start no
 * valid sequence. Run once, when a block fails isUtf8 (a rare path).
 */
export function utf8Evidence(blocks: Uint8Array[]): { multiByte: number; invalid: number } {
  let multiByte = 0;
  let invalid = 0;
  for (const bytes of blocks) {
    for (let i = 0; i < bytes.length;) {
      const length = utf8SequenceAt(bytes, i);
      if (length === 0) {
        invalid++;
        i++;
      } else {
        if (length > 1) multiByte++;
        i += length;
      }
    }
  }
  return { multiByte, invalid };
}
