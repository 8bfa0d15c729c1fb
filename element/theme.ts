// Light or dark, and the page's theme colour as an accent. styles.ts picks each colour with
// light-dark(), so the card's color-scheme decides: data-theme when set, else the color-scheme
// the page declares (inherited), else the OS ("os" state: a page that declares none is "normal").
// The accent is a left border in theme_color, shown only where it has 3:1 against the card's
// background as computed now (WCAG 1.4.11), so it is decided again whenever the theme changes.
import { contrastRatio } from './palette.js';

export function applyTheme(host: HTMLElement, states: CustomStateSet, card: HTMLElement, themeColor: unknown): void {
  states.delete('os');
  if (getComputedStyle(host).colorScheme == 'normal') states.add('os');
  // Through the CSSOM: anything that is not one colour is ignored (a non-string becomes a string
  // first, "null" or "[object Object]"), and a strict style-src CSP does not apply to it.
  const style = card.style;
  style.borderLeftColor = '';
  style.borderLeftColor = themeColor as string;
  const computed = getComputedStyle(card);
  const accent = !!style.borderLeftColor && contrastRatio(computed.borderLeftColor, computed.backgroundColor) >= 3;
  if (!accent) style.borderLeftColor = '';
  card.classList.toggle('c', accent);
}
