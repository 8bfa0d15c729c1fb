// The card's colours, light and dark, as data: styles.ts turns them into CSS custom properties
// (each a light-dark() pair) and test/element/contrast.test.ts checks every pair against WCAG 2.2 AA.
// Each default can be overridden by the page with the public property `--linkpeek-<name>`
// (themeProperty below: badgeBg is --linkpeek-badge-bg).

export interface Palette {
  /** Card background. */
  bg: string;
  /** Title text; also the card outline on hover. */
  fg: string;
  /** Description, host name and error text. */
  muted: string;
  /** Card outline: WCAG 1.4.11 wants 3:1 against the card and the page. */
  border: string;
  /** Keyboard focus ring: WCAG 2.4.13 wants 3:1 against the page and the card. */
  focus: string;
  /** Loading skeleton blocks and the empty image area. */
  skeleton: string;
  /** Safety badge background and text. */
  badgeBg: string;
  badgeFg: string;
}

export const LIGHT: Palette = {
  bg: '#ffffff',
  fg: '#1b1f24',
  muted: '#57606a',
  border: '#868e96',
  focus: '#0a58ca',
  skeleton: '#e8ebef',
  badgeBg: '#fff0ee',
  badgeFg: '#a4161a',
};

export const DARK: Palette = {
  bg: '#161b22',
  fg: '#e6edf3',
  muted: '#9ba5b0',
  border: '#6e7681',
  focus: '#79b8ff',
  skeleton: '#262c36',
  badgeBg: '#3d1214',
  badgeFg: '#ffb3ad',
};

/** Public theming hook of a palette entry: `linkpeek-preview { --linkpeek-badge-bg: … }`. */
export const themeProperty = (key: keyof Palette) => `--linkpeek-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * WCAG 2.2 contrast ratio of two opaque colours as a browser computes them ("rgb(r, g, b)");
 * NaN when either is anything else (translucent, another colour space), which fails every check.
 */
export function contrastRatio(a: string, b: string): number {
  const [x, y] = [a, b].map((color) => {
    const rgb = /^rgb\((.+), (.+), (.+)\)$/.exec(color);
    const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return rgb ? [0.2126, 0.7152, 0.0722].reduce((sum, weight, i) => sum + weight * linear(+rgb[i + 1]! / 255), 0.05) : NaN;
  });
  const ratio = x! / y!;
  return ratio < 1 ? 1 / ratio : ratio;
}
