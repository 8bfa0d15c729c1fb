// The clean-up steps of the fields beyond docs/SPEC.md (extra-rules.ts), one per kind of value,
// in the manner of normalize.ts: raw string in, a clean value or null (the rules table then falls
// through to its next source). Strict on purpose: a value that is not clearly what the field
// says is skipped rather than guessed at.

import colorNames from 'color-name';
import { normalizeText } from './normalize.js';
import { memoized } from '../memo.js';

/** Length bounds, in code points; real site names and bylines stay under 120 (page-shapes.md in bench/results). */
export const EXTRA_LIMITS = {
  siteName: 300,
  author: 300,
  /** Longer input is not looked at: the longest tag a page means fits easily (`zh-Hant-TW-x-…`). */
  lang: 64,
  /** Longer input is not a color this field returns (`hsla(359.5deg, 100%, 50%, 0.75)` is 32). */
  color: 64,
} as const;

/** A value that is a link (a profile page, `//host/…`, `www.…`) is not a name. */
const LINK = /^(?:https?:|\/\/|www\.)/i;

/** Site name: text, trimmed and bounded; a URL is not a name → null. */
export function normalizeSiteName(raw: string): string | null {
  const text = normalizeText(raw, EXTRA_LIMITS.siteName);
  return text === null || LINK.test(text) ? null : text;
}

/** Author: text, bounded, a leading "By " dropped (bylines carry it); a URL is not a name → null. */
export function normalizeAuthor(raw: string): string | null {
  const text = normalizeText(raw, EXTRA_LIMITS.author);
  if (text === null || LINK.test(text)) return null;
  return normalizeText(text.replace(/^by(?:\s+|$)/i, ''), EXTRA_LIMITS.author);
}

/**
 * A language tag: the first of a comma-separated list (Content-Language may name several),
 * canonicalised by Intl.getCanonicalLocales (`en-us` → `en-US`, `iw` → `he`). Only a tag whose
 * language is 2 or 3 letters (ISO 639) counts: BCP 47 also lets 5–8 letters through, none of
 * which is registered, so `english` is not taken for a tag; `und` (undetermined) says nothing.
 * Intl reads Unicode locale identifiers, which have no extlang: the extlang form (`zh-cmn-Hans`)
 * is read as its preferred form (`cmn-Hans`, RFC 5646 4.5), which Intl canonicalises (`zh-Hans`).
 */
export function normalizeLang(raw: string): string | null {
  const tag = raw.split(',')[0]!.trim();
  if (tag === '' || tag.length > EXTRA_LIMITS.lang) return null;
  const canonical = canonicalLocale(tag) ?? canonicalLocale(tag.replace(/^[a-z]{2,3}-([a-z]{3})(?=-|$)/i, '$1'));
  if (canonical === null || !/^[a-z]{2,3}(?:-|$)/.test(canonical) || canonical === 'und') return null;
  return canonical;
}

/**
 * Tags already canonicalised: pages repeat a handful (`en`, `en-US`) and Intl takes microseconds
 * per call. 512 are kept (each at most EXTRA_LIMITS.lang characters).
 */
const canonicalLocale = memoized((tag): string | null => {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    // RangeError: not a well-formed tag.
    return null;
  }
}, 512);

/**
 * Years a publication date may have. Earlier ones are placeholders (`0001-01-01`, an unset date
 * in Go or .NET), later ones typos; the bound is fixed so extraction never reads the clock.
 */
export const DATE_YEARS = { min: 1800, max: 2199 } as const;

/**
 * ISO 8601 / RFC 3339: a calendar date, optionally a time (`T` or a space, as RFC 3339 5.6
 * allows) with optional seconds and fraction, and an optional offset (`Z`, `±hh:mm`, `±hhmm`, `±hh`;
 * ` UTC` and ` GMT` too, as Ruby and others print it).
 */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s?(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?)?$/i;
/** The parts RFC 2822 3.3 dates share: an optional weekday, the month's abbreviation, the time and zone. */
const WEEKDAY = '(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\\s*)?';
const MONTH_ABBREVIATION = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME_AND_ZONE = '(\\d{2}):(\\d{2})(?::(\\d{2}))?\\s+(GMT|UTC?|Z|[+-]\\d{4}|[ECMP][SD]T)';
/** RFC 2822 3.3 (what HTTP dates and RSS use): `[Thu, ]20 Jun 2019 12:55[:10] GMT|±hhmm`. */
const RFC_2822 = new RegExp(`^${WEEKDAY}(\\d{1,2})\\s+${MONTH_ABBREVIATION}\\s+(\\d{4})\\s+${TIME_AND_ZONE}$`, 'i');
/**
 * The same with the month before the day, as US pages write it (Engadget's JSON-LD:
 * `Mon, Jan 7 2019 15:37:00 EST`), a comma after the day allowed. The zone is required: without
 * one the time is the writer's local time, which nothing on the page says.
 */
const RFC_2822_MONTH_FIRST = new RegExp(`^${WEEKDAY}${MONTH_ABBREVIATION}\\s+(\\d{1,2}),?\\s+(\\d{4})\\s+${TIME_AND_ZONE}$`, 'i');
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** An English month, its 3-letter abbreviation or its full name (case aside). */
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
/**
 * Dates alone in the orders that cannot be misread, as scholarly and other pages write them:
 * `2022/09/01` (also `2022/9/1`; year first, so month before day), `2012 Nov 26` and
 * `Dec 20, 2006` / `December 20, 2006`. Not `05/29/2007` (US or European order?), not
 * `20190806`, not asctime (`Tue May 24 05:55:00 2016`).
 */
const SLASH_DATE = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/;
const YEAR_MONTH_DAY = new RegExp(`^(\\d{4})\\s+${MONTH}\\s+(\\d{1,2})$`, 'i');
const MONTH_DAY_YEAR = new RegExp(`^${MONTH}\\s+(\\d{1,2}),\\s+(\\d{4})$`, 'i');
/** RFC 2822 4.3's zone names (universal time and the North American zones), in minutes east of UTC. */
const ZONE_NAMES: Record<string, number> = {
  ut: 0,
  utc: 0,
  gmt: 0,
  z: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
};

/**
 * A publication date as an ISO 8601 instant (`2024-05-01T09:30:00.000Z`), or null. Accepts the
 * forms of ISO_DATE, RFC_2822 and RFC_2822_MONTH_FIRST, then (tried only when those fail) the dates alone of
 * SLASH_DATE, YEAR_MONTH_DAY and MONTH_DAY_YEAR; no Date.parse guessing. A date without a time
 * is taken at 00:00 UTC, a time without an offset as UTC. Out-of-range parts (month 13,
 * 30 February, 25:00, an offset past ±23:59), years outside DATE_YEARS and the Unix epoch
 * itself (a zero written out as a date) are null.
 */
export function normalizeDate(raw: string): string | null {
  const text = raw.trim();
  if (text.length > 64) return null;
  const iso = ISO_DATE.exec(text);
  if (iso) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = iso;
    const offset = /^[+-]/.test(zone) ? offsetMinutes(zone) : 0;
    return instant(+y!, +mo!, +d!, +h, +mi, +s, +fraction.slice(0, 3).padEnd(3, '0'), offset);
  }
  const rfc = RFC_2822.exec(text);
  if (rfc) {
    const [, d, mon, y, h, mi, s = '0', zone] = rfc;
    return instant(+y!, MONTHS.indexOf(mon!.toLowerCase()) + 1, +d!, +h!, +mi!, +s, 0, zoneOffset(zone!));
  }
  const monthFirst = RFC_2822_MONTH_FIRST.exec(text);
  if (monthFirst) {
    const [, mon, d, y, h, mi, s = '0', zone] = monthFirst;
    return instant(+y!, MONTHS.indexOf(mon!.toLowerCase()) + 1, +d!, +h!, +mi!, +s, 0, zoneOffset(zone!));
  }
  return dateAlone(text);
}

/** An RFC 2822 zone (`±hhmm` or a name of ZONE_NAMES) → minutes east of UTC; null when past ±23:59. */
function zoneOffset(zone: string): number | null {
  return /^[+-]/.test(zone) ? offsetMinutes(zone) : (ZONE_NAMES[zone.toLowerCase()] ?? null);
}

/** The forms of SLASH_DATE, YEAR_MONTH_DAY and MONTH_DAY_YEAR, at 00:00 UTC; else null. */
function dateAlone(text: string): string | null {
  const slash = SLASH_DATE.exec(text);
  if (slash) return instant(+slash[1]!, +slash[2]!, +slash[3]!, 0, 0, 0, 0, 0);
  const ymd = YEAR_MONTH_DAY.exec(text);
  if (ymd) return instant(+ymd[1]!, monthNumber(ymd[2]!), +ymd[3]!, 0, 0, 0, 0, 0);
  const mdy = MONTH_DAY_YEAR.exec(text);
  if (mdy) return instant(+mdy[3]!, monthNumber(mdy[1]!), +mdy[2]!, 0, 0, 0, 0, 0);
  return null;
}

/** `Nov`, `NOVEMBER` → 11 (MONTH has matched, so its first three letters name it). */
function monthNumber(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
}

/** `+05:30`, `-0800`, `+01` → minutes east of UTC; null when past ±23:59. */
function offsetMinutes(zone: string): number | null {
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

function instant(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number, offset: number | null): string | null {
  if (offset === null || year < DATE_YEARS.min || year > DATE_YEARS.max) return null;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  // RFC 3339 allows second 60 (a leap second): it is read as the next second.
  if (hour > 23 || minute > 59 || second > 60) return null;
  const time = Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset * 60_000;
  return time === 0 ? null : new Date(time).toISOString();
}

/** Days in `month` (1–12) of `year`, Gregorian. */
function daysIn(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** Hex colors of 3, 4, 6 or 8 digits. */
const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/;
const NUMBER = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)';
const PLAIN = new RegExp(`^${NUMBER}$`);
const PERCENT = new RegExp(`^${NUMBER}%$`);
const NUMBER_OR_PERCENT = new RegExp(`^${NUMBER}%?$`);
const HUE = new RegExp(`^${NUMBER}(?:deg|rad|grad|turn)?$`);
/** The function and its arguments; nothing may follow the closing parenthesis. */
const FUNCTION = /^(rgba?|hsla?)\(([^()]*)\)$/;

/**
 * A CSS color (CSS Color 4): `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()`/`hsl()`/
 * `hsla()` with comma or space syntax, or a named color; lower-cased, whitespace collapsed.
 * Anything else is null, so a value carrying more CSS (`red;background:url(…)`) never passes.
 */
export function normalizeColor(raw: string): string | null {
  const color = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  if (color === '' || color.length > EXTRA_LIMITS.color) return null;
  if (HEX.test(color) || Object.hasOwn(colorNames, color)) return color;
  const call = FUNCTION.exec(color);
  return call && validArguments(call[1]!.startsWith('hsl'), call[2]!.trim()) ? color : null;
}

/**
 * Comma syntax: three components and an optional alpha, all separated by commas. Space syntax:
 * three components, then optionally `/` and an alpha. rgb components are numbers or percentages;
 * hsl takes a hue (a number or an angle), then two percentages (plain numbers too, in space syntax).
 */
function validArguments(hsl: boolean, args: string): boolean {
  let parts: string[];
  let alpha: string | undefined;
  const legacy = args.includes(',');
  if (legacy) {
    parts = args.split(',').map((p) => p.trim());
    if (parts.length === 4) alpha = parts.pop();
  } else {
    const [main = '', after, ...extra] = args.split('/').map((p) => p.trim());
    if (extra.length > 0) return false;
    parts = main.split(' ');
    alpha = after;
  }
  if (parts.length !== 3 || (alpha !== undefined && !NUMBER_OR_PERCENT.test(alpha))) return false;
  if (!hsl) {
    const kind = PERCENT.test(parts[0]!) ? PERCENT : PLAIN;
    // Comma syntax does not mix numbers and percentages; space syntax may.
    return parts.every((p) => (legacy ? kind : NUMBER_OR_PERCENT).test(p));
  }
  const [hue, saturation, lightness] = parts as [string, string, string];
  const amount = legacy ? PERCENT : NUMBER_OR_PERCENT;
  return HUE.test(hue) && amount.test(saturation) && amount.test(lightness);
}
