// Text from a page is shown as the reader will read it: without the invisible characters that
// change what it seems to say. A right-to-left override turns "moc.elgoog · evil.test" into
// "google.com · evil.test", and zero-width or filler characters hide inside a name. Removed are
// every format character (Unicode category Cf: bidi controls and marks, zero-width space, word
// joiner, soft hyphen, BOM...) and the Hangul fillers that draw nothing, except the two joiners
// where they shape text: ZWJ inside an emoji sequence, ZWNJ after a letter of a script that is
// not Latin (Persian, Indic). dir="auto" on every piece sets its direction instead.
const INVISIBLE = /(?!\u200d\p{Extended_Pictographic}|(?<=[^\P{L}\p{sc=Latn}])\u200c)[\p{Cf}\u115f\u1160\u3164\uffa0]/gu;

/** `text` without its invisible characters and the blanks around it; '' for none. */
export const plainText = (text?: string | null): string => (text ?? '').replace(INVISIBLE, '').trim();
