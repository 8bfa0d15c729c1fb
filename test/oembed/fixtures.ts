// What the oEmbed integration tests share: the exact Metadata object they expect, oEmbed answers
// as an upstream route, and the name resolution of their fixture hosts.

import type { Embed, Metadata } from '../../generated/types.gen.js';
import { scriptedLookup } from '../fetch/harness.js';
import { respond, type Route } from '../helpers/upstream.js';

export const html = { 'content-type': 'text/html; charset=utf-8' };

/** site.test (pages) and video.test (a provider's site and endpoint) are the fixture on 127.0.0.1; inside.test is 127.0.0.2. */
export const fixtureLookup = () =>
  scriptedLookup((name) => (name === 'site.test' || name === 'video.test' ? ['127.0.0.1'] : name === 'inside.test' ? ['127.0.0.2'] : null));

export const q = (url: string, extra: Record<string, string> = {}) => `/v1/metadata?${new URLSearchParams({ url, ...extra })}`;

/** A page whose head declares `endpoint` as its JSON oEmbed answer. */
export function pageWithLink(title: string, endpoint: string): Route {
  return respond(
    200,
    `<!doctype html><html><head><title>${title}</title><link rel="alternate" type="application/json+oembed" href="${endpoint}"></head><body></body></html>`,
    html,
  );
}

/** An oEmbed answer: `answer` as JSON (a string is sent as it is), labelled application/json unless told. */
export function oembedAnswer(answer: object | string, contentType = 'application/json; charset=utf-8'): Route {
  return respond(200, typeof answer === 'string' ? answer : JSON.stringify(answer), { 'content-type': contentType });
}

/** A complete embed as a provider sends it (with `version`, which the API leaves out). */
export function videoAnswer(title: string): Record<string, unknown> {
  return {
    version: '1.0',
    type: 'video',
    provider_name: 'Video Test',
    provider_url: 'https://video.example/',
    title,
    author_name: 'Author',
    author_url: 'https://video.example/author',
    thumbnail_url: 'https://i.video.example/thumb.jpg',
    thumbnail_width: 480,
    thumbnail_height: '360',
    width: 640,
    height: 360,
    html: '<iframe src="https://video.example/embed/1" width="640" height="360"></iframe>',
  };
}

/** The Embed the API answers for videoAnswer(title). */
export function videoEmbed(title: string): NonNullable<Embed> {
  const { version: _version, ...fields } = videoAnswer(title);
  return { ...fields, thumbnail_height: 360 } as NonNullable<Embed>;
}

/** The whole Metadata object of a page with nothing else to read (docs/SPEC.md Metadata rule 2), with `fields` over it. */
export function metadataBody(url: string, fields: Partial<Metadata> = {}): Metadata {
  const empty = { url: null, type: null, width: null, height: null, size: null };
  return {
    title: null,
    description: null,
    url,
    image: empty,
    type: null,
    favicon: { ...empty, url: `${new URL(url).origin}/favicon.ico` },
    og: {},
    twitter: {},
    safety_tags: [],
    site_name: null,
    lang: null,
    author: null,
    published_time: null,
    theme_color: null,
    embed: null,
    fetched_url: url,
    ...fields,
  };
}
