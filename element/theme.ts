// Light or dark, and the page's theme colour as an accent. styles.ts picks every colour with
// light-dark(), so the color-scheme decides: data-theme when set (CSS, on the card), else the
// one the page declares (inherited), else the OS (the "os" state below: a page that declares none
// is "normal"). The accent is a 4px stripe on the card's starting edge (the left one, the right
// one in a right-to-left page) in theme_color, in each scheme only where it has 3:1 against the
// card's background there (WCAG 1.4.11), so a change of data-theme or of the OS needs no script.
import { contrastRatio } from './palette.js';

/**
 * Sets the "os" state when the page declares no color-scheme. Called on each render, and when
 * the page changes its color-scheme: styles.ts gives the host a transition on color-scheme only
 * so that such a change fires `transitionend` there (the new value is computed by then).
 */
export function followScheme(host: HTMLElement, states: CustomStateSet): void {
  if (getComputedStyle(host).colorScheme == 'normal') states.add('os');
  else states.delete('os');
}

/** Called on each render, after the custom states were cleared. */
export function applyTheme(host: HTMLElement, states: CustomStateSet, card: HTMLElement, themeColor?: string | null): void {
  followScheme(host, states);
  // Through the CSSOM, which ignores anything that is not one colour (null clears); a strict
  // style-src CSP does not apply to it.
  const style = card.style;
  style.removeProperty('--_a');
  style.color = themeColor ?? '';
  const stripe = (scheme: string) => {
    style.colorScheme = scheme;
    const computed = getComputedStyle(card);
    return contrastRatio(computed.color, computed.backgroundColor) >= 3 ? computed.color : '#0000';
  };
  // Only colours the browser computed ("rgb(…)") go into the shadow.
  if (style.color) style.setProperty('--_a', `light-dark(${stripe('light')},${stripe('dark')})`);
  style.color = style.colorScheme = '';
}
