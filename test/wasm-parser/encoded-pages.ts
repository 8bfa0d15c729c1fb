// Non-UTF-8 pages made here with an encoder (iconv-lite), never copied from elsewhere.
// Each names what the scanner must read from it; charset.test.ts checks them whole, and
// chunking.test.ts cuts them at random.
import iconv from 'iconv-lite';

export interface EncodedPage {
  name: string;
  bytes: Uint8Array;
  contentType: string | null;
  charset: string;
  title: string;
  description: string;
}

const filler = (n: number) => `<meta name="filler" content="${'x'.repeat(n)}">`;

function page(
  name: string,
  encoding: string,
  charset: string,
  title: string,
  description: string,
  head: (title: string, description: string) => string,
  contentType: string | null = null,
): EncodedPage {
  const html = `<!doctype html><html><head>${head(title, description)}</head><body><p>${title}</p></body></html>`;
  return { name, bytes: new Uint8Array(iconv.encode(html, encoding)), contentType, charset, title, description };
}

const meta = (description: string) => `<meta name="description" content="${description}">`;

export const encodedPages: EncodedPage[] = [
  page(
    'Shift_JIS declared by <meta charset>',
    'Shift_JIS',
    'shift_jis',
    '阿部寛のホームページ',
    '日本語の説明文です。ソ表能',
    (t, d) => `<meta charset="Shift_JIS"><title>${t}</title>${meta(d)}`,
  ),
  page(
    'EUC-JP declared by http-equiv',
    'EUC-JP',
    'euc-jp',
    '【楽天市場】ショッピング',
    '楽天市場はインターネット通販',
    (t, d) => `<meta http-equiv="Content-Type" content="text/html; charset=EUC-JP"><title>${t}</title>${meta(d)}`,
  ),
  page(
    'GBK declared as gb2312',
    'GBK',
    'gbk',
    '腾讯首页',
    '腾讯网从2003年创立至今，已经成为集新闻信息',
    (t, d) => `<meta http-equiv="content-type" content='text/html;charset=gb2312'><title>${t}</title>${meta(d)}`,
  ),
  page(
    'windows-1251 declared after the first 1024 bytes, with Cyrillic before the declaration',
    'windows-1251',
    'windows-1251',
    'Главные новости - Газета.Ru',
    'Последние новости России и мира',
    (t, d) => `<title>${t}</title>${filler(1500)}<meta charset="windows-1251">${meta(d)}`,
  ),
  page(
    'windows-1252 declared by <meta charset>',
    'windows-1252',
    'windows-1252',
    'Café crème – “quoted” €5',
    'Über naïve façades',
    (t, d) => `<meta charset="windows-1252"><title>${t}</title>${meta(d)}`,
  ),
  page(
    'windows-1252 by default (no declaration anywhere)',
    'windows-1252',
    'windows-1252',
    'Crème brûlée',
    'Señor Müller’s café',
    (t, d) => `<title>${t}</title>${meta(d)}`,
  ),
  page(
    'Shift_JIS from the HTTP Content-Type, the page declaring nothing',
    'Shift_JIS',
    'shift_jis',
    'ホームページ',
    '説明',
    (t, d) => `<title>${t}</title>${meta(d)}`,
    'text/html; charset=Shift_JIS',
  ),
  page(
    'HTTP charset wins over the page declaration when the bytes are not UTF-8',
    'windows-1251',
    'windows-1251',
    'Новости',
    'Описание',
    (t, d) => `<meta charset="iso-8859-2"><title>${t}</title>${meta(d)}`,
    'text/html; charset="windows-1251"',
  ),
  page(
    'an HTTP utf-8 label that the bytes disprove falls to the page declaration',
    'EUC-JP',
    'euc-jp',
    '日本語のタイトル',
    '説明',
    (t, d) => `<meta charset="euc-jp"><title>${t}</title>${meta(d)}`,
    'text/html; charset=utf-8',
  ),
  page(
    'the choice changes mid-head: 6 KB of ASCII, then GBK bytes',
    'GBK',
    'gbk',
    '新闻标题',
    '描述文字',
    (t, d) => `<meta property="og:site_name" content="ascii site">${filler(6000)}<meta charset="gbk"><title>${t}</title>${meta(d)}`,
  ),
  page(
    'UTF-8 that declares windows-1251 stays UTF-8 (stored in another charset than declared)',
    'utf-8',
    'utf-8',
    'Интересные наблюдения',
    'Описание',
    (t, d) => `<meta charset="windows-1251"><title>${t}</title>${meta(d)}`,
    'text/html; charset=windows-1251',
  ),
  page(
    'an unknown label is ignored: windows-1252',
    'windows-1252',
    'windows-1252',
    'Déjà vu',
    'Voilà',
    (t, d) => `<meta charset="no-such-charset"><title>${t}</title>${meta(d)}`,
  ),
];

/** The same Japanese page behind each byte order mark; the BOM wins over the declared label. */
export const bomPages: EncodedPage[] = (
  [
    ['utf-8', [0xef, 0xbb, 0xbf]],
    ['utf-16le', [0xff, 0xfe]],
    ['utf-16be', [0xfe, 0xff]],
  ] as const
).map(([encoding, bom]) => {
  const title = 'BOM ページ';
  const description = 'バイト順マーク';
  const html = `<html><head><meta charset="windows-1252"><title>${title}</title>${meta(description)}</head><body>`;
  const body = iconv.encode(html, encoding);
  const bytes = new Uint8Array(bom.length + body.length);
  bytes.set(bom);
  bytes.set(body, bom.length);
  return { name: `${encoding} byte order mark`, bytes, contentType: 'text/html; charset=iso-8859-1', charset: encoding, title, description };
});
