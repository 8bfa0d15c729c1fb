// The card's stylesheet. Colours come from palette.ts; every one can be themed from the page
// through its --linkpeek-* custom property, and every piece is reachable with ::part().
// Light and dark follow prefers-color-scheme.
import { DARK, LIGHT, THEME_PROPERTIES, type Palette } from './palette.js';

const variables = (palette: Palette) =>
  (Object.keys(palette) as (keyof Palette)[]).map((key) => `--_${key}:var(${THEME_PROPERTIES[key]},${palette[key]});`).join('');

const CSS = `
:host{display:block;max-width:var(--linkpeek-width,32rem);font:14px/1.4 var(--linkpeek-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);${variables(LIGHT)}}
@media(prefers-color-scheme:dark){:host{${variables(DARK)}}}
[hidden]{display:none!important}
a{display:flex;flex-direction:column;overflow:hidden;background:var(--_bg);color:var(--_fg);border:1px solid var(--_border);border-radius:var(--linkpeek-radius,12px);text-decoration:none}
a:focus-visible{outline:3px solid var(--_focus);outline-offset:2px}
a[href]:hover{border-color:var(--_muted)}
.m{aspect-ratio:1.91;background:var(--_skeleton);overflow:hidden}
.m img{display:block;width:100%;height:100%;object-fit:cover}
img:not([src]){visibility:hidden}
.blur img{filter:blur(24px);transform:scale(1.2)}
.b{display:flex;flex-direction:column;gap:4px;padding:12px 14px;min-width:0}
.t{font-weight:600;font-size:1.1em;line-height:1.3}
.t,.d{display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;overflow:hidden;overflow-wrap:anywhere}
.d,.s{color:var(--_muted)}
.s{display:flex;align-items:center;gap:6px;font-size:.93em}
.s img{width:16px;height:16px;flex:none;border-radius:3px}
.h{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.w{align-self:flex-start;padding:2px 8px;border-radius:99px;background:var(--_badgeBg);color:var(--_badgeFg);font-size:.86em;font-weight:600}
:host([data-layout=compact]) a{flex-direction:row}
:host([data-layout=compact]) .m{flex:none;width:6.5rem;aspect-ratio:auto;min-height:6.5rem}
:host([data-layout=compact]) .d{-webkit-line-clamp:1}
.l .t,.l .d{background:var(--_skeleton);border-radius:4px}
.l .t{width:70%;height:1.3em}
.l .d{height:2.8em}
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
