// The card's stylesheet. Colours come from palette.ts as light-dark() pairs; every one can be
// themed from the page through its --linkpeek-* custom property, and every piece is reachable
// with ::part(). Which half of each pair applies is the card's color-scheme: data-theme when set
// (on the card, so the host still shows what the page gives it), else the one the page declares
// (inherited), else the OS (the "os" state, set by theme.ts).
import { DARK, LIGHT, themeProperty, type Palette } from './palette.js';

const variables = (Object.keys(LIGHT) as (keyof Palette)[])
  .map((key) => `--_${key}:var(${themeProperty(key)},light-dark(${LIGHT[key]},${DARK[key]}));`)
  .join('');

// .l loading (a skeleton of the banner card), .e error, .k the thumbnail layout of a square,
// portrait or small image (card-details.ts): a grid whose first row is as tall as the banner's
// frame (its ::before, 1.91:1 as wide as the card), the image a square in the first column and
// the text beside it over both rows, so the card is exactly as tall as a banner card; .c a small
// image shown whole, never enlarged; .n a frame without an image (none, failed, or the error
// card: a cover with the site's initial), .v video (the play badge .p), .blur adult. Every length is in rem or em, so
// the card follows the reader's font size. Every card of a layout has one height, whatever its
// answer, image or error (the text block .b is fixed and fitText() shortens what does not fit), and
// linkpeek-preview.css reserves it: nothing below a card moves when it settles. Each text line is
// 1.225rem high (a badge or byline with the gap before it too), so a shortened description frees
// exactly the room another line takes.
const CSS = `:host{display:block;max-width:var(--linkpeek-width,32rem);font:.875rem/1.4 var(--linkpeek-font,system-ui,sans-serif);transition:color-scheme 1ms allow-discrete;${variables}}
:host(:state(os)) a{color-scheme:light dark}
:host([data-theme=light]) a{color-scheme:light}
:host([data-theme=dark]) a{color-scheme:dark}
[hidden]{display:none!important}
a{display:flex;flex-direction:column;overflow:hidden;background:var(--_bg);color:var(--_fg);border:1px solid var(--_border);border-radius:var(--linkpeek-radius,.75rem);text-decoration:none;box-shadow:inset .25rem 0 var(--_a,#0000)}
a:dir(rtl){box-shadow:inset -.25rem 0 var(--_a,#0000)}
a:focus-visible{outline:3px solid var(--_focus);outline-offset:2px}
a[href]:hover{border-color:var(--_fg)}
a[href]:hover .t,.e[href] .t{text-decoration:underline}
.m{position:relative;aspect-ratio:1.91;max-height:var(--linkpeek-image-height,none);background:var(--_skeleton);overflow:hidden}
.m img,iframe{display:block;width:100%;height:100%;object-fit:cover;border:0}
.c img{object-fit:scale-down}
:host(:not([data-layout=compact])) .k{display:grid;grid-template:auto 6.925rem/min(35%,10rem) 1fr}
:host(:not([data-layout=compact])) .k:before{content:"";grid-area:1/1/2/3;width:100%;aspect-ratio:1.91;max-height:var(--linkpeek-image-height,none)}
:host(:not([data-layout=compact])) .k .m{grid-area:1/1/3/2;align-self:start;width:calc(100% - .75rem);aspect-ratio:1;max-height:none;margin:.75rem 0;margin-inline-start:.75rem;border-radius:.5rem}
:host(:not([data-layout=compact])) .k .b{grid-area:1/2/3/3;height:auto;contain:size}
.k .m[hidden]+.b{grid-column:1/3}
:host(:not([data-layout=compact])) .k .t{-webkit-line-clamp:3}
:host(:not([data-layout=compact])) .k .d{-webkit-line-clamp:5}
.n:before{content:attr(data-i)/"";position:absolute;inset:0;display:grid;place-items:center;font-size:3em;font-weight:600;color:var(--_muted)}
img:not([src]){visibility:hidden}
.blur img{filter:blur(24px);transform:scale(1.2)}
.p,iframe{position:absolute;inset:0}
.p{display:none;margin:auto;width:3rem;height:3rem;border-radius:50%;background:#0009}
.v .p{display:block}
.p:after{content:"";position:absolute;inset:0;margin:auto;left:.3125rem;width:1rem;height:1.125rem;background:#fff;clip-path:polygon(0 0,100% 50%,0 100%)}
.b{box-sizing:border-box;height:6.925rem;overflow:hidden;display:flex;flex-direction:column;gap:.25rem;padding:.75rem .875rem;min-width:0}
.b>*{flex-shrink:0}
.t{font-weight:600;font-size:1.1em;line-height:1.225rem}
.t,.d{display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;overflow:hidden;overflow-wrap:anywhere}
.d,.s,.y{color:var(--_muted)}
.s,.y{font-size:.93em}
.y{line-height:.975rem}
.s{display:flex;align-items:center;gap:.3rem;min-height:1.25rem;margin-top:auto}
.s:after{content:"\\2197"/"(opens in a new tab)"}
.e[href] .t:after{content:" \\2197"/"(opens in a new tab)"}
.s img{width:1rem;height:1rem;flex:none;padding:.125rem;border-radius:.25rem;background:light-dark(var(--_skeleton),#fff)}
.h,.o,.y{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.h{min-width:min(5em,25%)}
.o{flex-shrink:0;max-width:40%;direction:rtl;text-align:left}
.b>*{text-align:left}
a:dir(rtl) .b>*{text-align:right}
.o:empty{display:none}
i{font-style:normal}
i:before{content:"\\b7"/""}
.h:empty+i,i:has(+.o:empty){display:none}
.w{align-self:flex-start;line-height:.725rem;padding:.125rem .5rem;border-radius:99px;background:var(--_badgeBg);color:var(--_badgeFg);font-size:.86em;font-weight:600}
.e .t{font-weight:400}
.e .s{display:none}
:host([data-layout=compact]) a{flex-direction:row}
:host([data-layout=compact]) .m{flex:none;width:min(6.5rem,25%);height:6.5rem;aspect-ratio:auto;margin:.75rem 0;margin-inline-start:.75rem;border-radius:.5rem}
:host([data-layout=compact]) .d{-webkit-line-clamp:1}
:host([data-layout=compact]) .b{height:8rem}
.l .t,.l .d{background:var(--_skeleton);border-radius:.25rem}
.l .t{width:70%;height:1.225rem}
.l .d{height:2.45rem}
.l .m,.l .t,.l .d{animation:p 1s ease-in-out infinite alternate}
@keyframes p{to{opacity:.45}}
@media(prefers-reduced-motion:reduce){.l *{animation:none!important}}
`;

let sheet: CSSStyleSheet | undefined;

/**
 * One constructed stylesheet shared by every card: cheaper than a <style> per instance, and
 * adopted sheets are not inline styles, so a page's strict style-src CSP does not block them.
 */
export function cardStyles(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  return sheet;
}
