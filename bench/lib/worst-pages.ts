// The most expensive heads we could build for the head scanner, each at most MAX_PAGE_BYTES
// (2 MiB, the fetcher's cap after decoding): the pages bench/scan-worst.ts scans. Each is cut at
// the cap the way the fetcher cuts it.

import iconv from 'iconv-lite';

export const PAGE_CAP = 2 * 1024 * 1024;

export interface WorstPage {
  name: string;
  bytes: Uint8Array;
  contentType: string;
}

const HEAD = '<!doctype html><html lang=en><head><meta charset=utf-8><title>Worst page</title><meta property="og:title" content="Worst">';

/** `unit` repeated until the page reaches the cap, after `head`; cut at the cap. */
function flood(head: string, unit: string, tail = ''): Uint8Array {
  const room = PAGE_CAP - Buffer.byteLength(head) - Buffer.byteLength(tail);
  const count = Math.max(0, Math.floor(room / Buffer.byteLength(unit)));
  return capped(Buffer.from(head + unit.repeat(count) + tail));
}

function capped(bytes: Buffer): Uint8Array {
  return new Uint8Array(bytes.subarray(0, PAGE_CAP));
}

const html = 'text/html; charset=utf-8';
const page = (name: string, bytes: Uint8Array, contentType = html): WorstPage => ({ name, bytes, contentType });

/** Every tag kind we could think of, alone, as a flood of start tags. */
const TAG_KINDS = [
  'i',
  'b',
  'a',
  'p',
  'div',
  'span',
  'li',
  'td',
  'tr',
  'table',
  'option',
  'select',
  'form',
  'button',
  'img',
  'br',
  'input',
  'meta',
  'link',
  'base',
  'title',
  'html',
  'head',
  'style',
  'template',
  'svg',
  'math',
  'noscript',
  'iframe',
  'object',
  'frameset',
  'xmp',
];

export function worstPages(): WorstPage[] {
  const pages: WorstPage[] = [];
  for (const tag of TAG_KINDS) pages.push(page(`<${tag}> flood`, flood(HEAD, `<${tag}>`)));
  pages.push(
    page('<i></i> pairs', flood(HEAD, '<i></i>')),
    page('<i/> self-closed', flood(HEAD, '<i/>')),
    page('</i> end tags', flood(HEAD, '</i>')),
    page('<x-y> custom elements', flood(HEAD, '<x-y>')),
    page('<a1> one-letter names', flood(HEAD, '<a1>')),
    page('nested <template><svg><noscript>', flood(HEAD, '<template><svg><noscript><math>')),
    page('<meta> with og:image (image hook)', flood(HEAD, '<meta property=og:image content=/i.png>')),
    page('<link rel=icon> flood', flood(HEAD, '<link rel=icon href=/f.ico>')),
    page('<script src> flood', flood(HEAD, '<script src=/a.js></script>')),
    page('<title>t</title> pairs', flood(HEAD, '<title>t</title>')),
    page('10,000 <meta> with 1 KB attributes', flood(HEAD, `<meta name="description" content="${'x'.repeat(1000)}" property="og:description">`)),
    page('<meta> with 1 KB of entities', flood(HEAD, `<meta name=description content="${'&amp;'.repeat(200)}">`)),
    page('<meta> of many short attributes', flood(HEAD, `<meta ${Array.from({ length: 100 }, (_, i) => `a${i}=1`).join(' ')}>`)),
    page('one <meta> with 2 MB of attributes', flood(`${HEAD}<meta `, 'a=1 ', '>')),
    page('one <div> with 2 MB of attributes', flood(`${HEAD}<div `, 'a=1 ', '>')),
    ...longTags(),
    page('one <meta> with a 2 MB attribute', flood(`${HEAD}<meta name=description content="`, 'x', '">')),
    page('an unclosed tag of 2 MB', flood(`${HEAD}<i a="`, 'x')),
    page('a 2 MB title', flood('<!doctype html><html><head><title>', 'x')),
    page('a 2 MB title of entities', flood('<!doctype html><html><head><title>', '&amp;')),
    page('a 2 MB JSON-LD script', flood(`${HEAD}<script type="application/ld+json">{"@type":"Article","x":"`, 'x', '"}</script>')),
    page('2,000 JSON-LD scripts', flood(HEAD, `<script type="application/ld+json">{"@type":"Article","headline":"${'h'.repeat(900)}"}</script>`)),
    page('comments', flood(HEAD, '<!---->')),
    page('bogus comments', flood(HEAD, '<!x>')),
    page('< and </ soup', flood(HEAD, '< </ <! <?')),
    page('plain text', flood(HEAD, 'x')),
    page('entities in text', flood(HEAD, '&amp;')),
    page('late <meta charset> (re-scan of <i> flood)', lateCharset('<i>')),
    page('late <meta charset> (re-scan of <meta> flood)', lateCharset('<meta>')),
    page('shift_jis declared by HTTP, <i> flood', capped(iconv.encode(`${HEAD}${'<i>'.repeat(PAGE_CAP / 3)}`, 'shift_jis')), 'text/html; charset=shift_jis'),
  );
  return pages;
}

/**
 * One start tag of many attributes, as long as the budget lets lol-html buffer (the handler reads
 * it in one call): every element the scanner reads attributes of, and `>` inside quoted values.
 */
function longTags(): WorstPage[] {
  const pages: WorstPage[] = [];
  for (const size of [32 * 1024, 256 * 1024, 1024 * 1024]) {
    const kb = `${size / 1024} KB`;
    for (const tag of ['meta', 'link', 'base', 'html', 'script']) {
      pages.push(page(`one <${tag}> with ${kb} of attributes`, capped(Buffer.from(`${HEAD}<${tag} ${'a '.repeat(size / 2)}>`))));
    }
    pages.push(page(`one <meta> with ${kb} of quoted ">"`, capped(Buffer.from(`${HEAD}<meta ${'a=">" '.repeat(size / 6)}>`))));
  }
  return pages;
}

/**
 * Bytes that are not UTF-8 at once (windows-1252 tentative), a flood, then `<meta charset>` at the
 * end: the scanner switches charset and scans everything again, so both passes count.
 */
function lateCharset(unit: string): Uint8Array {
  const tail = '<meta charset=shift_jis>';
  const head = Buffer.concat([Buffer.from('<!doctype html><html><head><title>caf'), Buffer.from([0xe9]), Buffer.from('</title>')]);
  const count = Math.floor((PAGE_CAP - head.length - tail.length) / unit.length);
  return capped(Buffer.concat([head, Buffer.from(unit.repeat(count) + tail)]));
}
