// data-meta comes from the embedding page and the API answer crosses the network: both are
// checked against the Metadata schema (openapi.yaml) before anything is rendered. A value that
// is not valid Metadata is rejected with the first problem found, named by its path
// ("data-meta.image.url is not a string"), and the element shows its error state.
// Each table below is typed by the generated types, so a field added to openapi.yaml does not
// compile until it has its check here.
// Lenient where a hand-written data-meta or an older server may leave things out: a missing
// nullable field reads as null, and so do the fields beyond docs/SPEC.md (site_name … embed).
// Types are checked, not the forms inside strings: a renderer skips a published_time that is not
// a date and a theme_color that is not a colour (it goes in through the CSSOM), and the card stays.
import type { Embed, ImageMetadata, Metadata, SafetyTag } from '../generated/types.gen.js';
import { httpUrl } from './safe-url.js';

/** Why the value at `path` is not what the schema says, or '' when it is. */
type Check = (v: unknown, path: string) => string;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v == 'object' && v != null && !Array.isArray(v);
const is =
  (test: (v: unknown) => unknown, what: string): Check =>
  (v, path) =>
    test(v) ? '' : `${path} is not ${what}`;
/** Null, missing, or of `type`. */
const nullable = (type: string) => is((v) => v == null || typeof v == type, `a ${type}`);
const text = nullable('string');
const count = nullable('number');

/**
 * The values of an enum, keyed by its generated union so that a value added to openapi.yaml is a
 * compile error here (the generated JSON schemas would bring their descriptions into the bundle).
 */
const oneOf = (values: Record<string, 1>) => (v: unknown) => Object.keys(values).includes(v as string);
const SAFETY_TAG = oneOf({ adult: 1, security_threat: 1, suspicious_domain: 1 } satisfies Record<SafetyTag, 1>);
const EMBED_TYPE = oneOf({ photo: 1, video: 1, link: 1, rich: 1 } satisfies Record<NonNullable<Embed>['type'], 1>);

const object =
  <T>(fields: Record<keyof NonNullable<T>, Check>, orNull?: 1): Check =>
  (v, path) =>
    orNull && v == null
      ? ''
      : isObject(v)
        ? (Object.entries<Check>(fields)
            .map(([key, check]) => check(v[key], `${path}.${key}`))
            .find(Boolean) ?? '')
        : `${path} is not an object`;

const image = object<ImageMetadata>({
  url: text,
  type: text,
  width: count,
  height: count,
  size: count,
  cors_safe: nullable('boolean'),
});

const stringMap = is((v) => isObject(v) && Object.values(v).every((s) => typeof s == 'string'), 'an object of strings');

/** What is wrong with `v` as Metadata named `path` ("data-meta.title is not a string"), or ''. */
export const metadataProblem = object<Metadata>({
  // The card is a link to it: a javascript: or data: URL is no page (safe-url.ts).
  url: is(httpUrl, 'an http(s) URL'),
  title: text,
  description: text,
  type: text,
  image,
  favicon: image,
  og: stringMap,
  twitter: stringMap,
  safety_tags: is((v) => v == null || (Array.isArray(v) && v.every(SAFETY_TAG)), 'a list of safety tags'),
  site_name: text,
  lang: text,
  author: text,
  published_time: text,
  theme_color: text,
  embed: object<Embed>(
    {
      type: is(EMBED_TYPE, 'an oEmbed type'),
      provider_name: text,
      provider_url: text,
      title: text,
      author_name: text,
      author_url: text,
      thumbnail_url: text,
      thumbnail_width: count,
      thumbnail_height: count,
      width: count,
      height: count,
      html: text,
    },
    1,
  ),
  // An older server's answer or a hand-written data-meta may leave it out: the card falls back.
  fetched_url: is((v) => v == null || httpUrl(v), 'an http(s) URL'),
});

/** A data-meta attribute's value and what is wrong with it as Metadata ('' when nothing is). */
export function parseMetadata(json: string): [value: unknown, problem: string] {
  try {
    const value: unknown = JSON.parse(json);
    return [value, metadataProblem(value, 'data-meta')];
  } catch {
    return [null, 'data-meta is not valid JSON'];
  }
}
