// GET / : the showcase: a URL box with <linkpeek-preview> rendering live, the curl
// and SDK examples, and links to the API reference (/docs) and /openapi.yaml. Examples show the page's own origin, filled
// in by the browser (the Host header is not trusted into HTML). The one dynamic value, the
// default URL from config, is HTML-escaped. The code blocks scroll sideways, so each is focusable
// and named by its heading: a keyboard can reach and scroll it (WCAG 2.1.1).
import { createHash } from 'node:crypto';
import { PATHS } from '../paths.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--panel:#fff;--line:#d0d7de;--accent:#0a58ca}
@media(prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9ba5b0;--bg:#0d1117;--panel:#161b22;--line:#30363d;--accent:#79b8ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:46rem;margin:0 auto;padding:2.5rem 1.25rem 4rem}
h1{margin:0 0 .25rem;font-size:2rem}
h2{margin:2.5rem 0 .5rem;font-size:1.15rem}
p{margin:.25rem 0 1rem;color:var(--muted)}
a{color:var(--accent)}
form{display:flex;flex-wrap:wrap;gap:.5rem;margin:1.5rem 0}
input,select,button{font:inherit;padding:.55rem .75rem;border:1px solid var(--line);border-radius:8px;background:var(--panel);color:var(--fg)}
input{flex:1 1 20rem;min-width:0}
button{background:var(--accent);border-color:var(--accent);color:var(--panel);font-weight:600;cursor:pointer}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
pre{overflow:auto;padding:1rem;border:1px solid var(--line);border-radius:8px;background:var(--panel);font-size:.875rem}
#reason{margin:-.75rem 0 1rem;color:var(--fg)}
linkpeek-preview{margin:1rem 0}
`;

// The box takes any URL the browser accepts (type=url lets ftp: through); the API previews http
// and https pages only (docs/SPEC.md) and answers other schemes 400 without a reason the card can
// show, so the page says why next to the box.
const SCRIPT = `
const form = document.getElementById('try');
const preview = document.getElementById('preview');
const reason = document.getElementById('reason');
const fill = (selector, text) => { for (const node of document.querySelectorAll(selector)) node.textContent = text; };
const whyNot = (url) => {
  const scheme = URL.canParse(url) ? new URL(url).protocol : null;
  if (scheme === 'http:' || scheme === 'https:') return '';
  return scheme === null ? 'That is not a URL: LinkPeek previews http:// and https:// pages.' : 'LinkPeek previews http:// and https:// pages only, not ' + scheme + '// addresses.';
};
const show = (url) => {
  preview.dataset.url = url;
  reason.textContent = whyNot(url);
  reason.hidden = reason.textContent === '';
  fill('[data-page]', url);
  fill('[data-page-query]', encodeURIComponent(url).replace(/'/g, '%27'));
};
const layout = () => {
  preview.dataset.layout = form.layout.value;
  fill('[data-layout-attribute]', form.layout.value === 'card' ? '' : ' data-layout="' + form.layout.value + '"');
};
fill('[data-origin]', location.origin);
form.addEventListener('submit', (event) => {
  event.preventDefault();
  show(form.url.value);
  history.replaceState(null, '', '?url=' + encodeURIComponent(form.url.value));
});
form.layout.addEventListener('change', layout);
const shared = new URLSearchParams(location.search).get('url');
if (shared) form.url.value = shared;
show(form.url.value);
layout();
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The showcase allows only its own inline style (by hash) and stylesheets, scripts and API calls to
 * its own origin, and images from anywhere on the web (previews load them directly).
 */
export const SHOWCASE_CSP = [
  "default-src 'none'",
  `script-src 'self' ${sha256(SCRIPT)}`,
  // 'self': the card's height reserve, /linkpeek-preview.css, linked as the snippet shows.
  `style-src 'self' ${sha256(STYLE)}`,
  "connect-src 'self'",
  "img-src 'self' https: http:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function showcaseHtml(defaultUrl: string): string {
  const url = escapeHtml(defaultUrl);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>LinkPeek — link previews as a service</title>
<style>${STYLE}</style>
<link rel="stylesheet" href="/linkpeek-preview.css">
<script type="module" src="/component.js"></script>
</head>
<body>
<main>
<h1>LinkPeek</h1>
<p>A free, public API that turns a page URL into one clean link-preview object, proxies preview images, and renders the card with one custom element. No key, no signup.</p>

<form id="try">
<input id="url" name="url" type="url" required value="${url}" placeholder="https://example.com/article" aria-label="Page URL">
<select name="layout" aria-label="Layout"><option value="card">Card</option><option value="compact">Compact</option></select>
<button type="submit">Preview</button>
</form>
<p id="reason" role="status" hidden></p>
<linkpeek-preview id="preview" data-url="${url}"></linkpeek-preview>

<h2 id="embed">Embed it</h2>
<pre tabindex="0" role="group" aria-labelledby="embed"><code>&lt;link rel="stylesheet" href="<span data-origin></span>/linkpeek-preview.css"&gt;
&lt;script type="module" src="<span data-origin></span>/component.js"&gt;&lt;/script&gt;
&lt;linkpeek-preview data-url="<span data-page>${url}</span>"<span data-layout-attribute></span>&gt;&lt;/linkpeek-preview&gt;</code></pre>

<h2 id="curl">curl</h2>
<pre tabindex="0" role="group" aria-labelledby="curl"><code>curl '<span data-origin></span>${PATHS.metadata}?url=<span data-page-query>${encodeURIComponent(defaultUrl).replace(/'/g, '%27')}</span>'</code></pre>

<h2 id="sdk">SDK (TypeScript)</h2>
<pre tabindex="0" role="group" aria-labelledby="sdk"><code>import { createClient, getMetadata } from 'linkpeek-client';

const client = createClient({ baseUrl: '<span data-origin></span>' });
const { data, error } = await getMetadata({ client, query: { url: '<span data-page>${url}</span>' } });
if (data) console.log(data.title, data.image.url);</code></pre>

<p>The API reference, with an example request and answer for every endpoint: <a href="/docs">/docs</a>. The whole contract: <a href="/openapi.yaml">openapi.yaml</a> (OpenAPI 3.0.0).</p>
</main>
<script type="module">${SCRIPT}</script>
</body>
</html>
`;
}
