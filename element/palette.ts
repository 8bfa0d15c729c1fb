// The card's colours, light and dark, as data: styles.ts turns them into CSS custom properties
// and test/element/contrast.test.ts checks every text pair against WCAG 2.2 AA.
// Each default can be overridden by the page with the public property named in `theme`.

export interface Palette {
  /** Card background. */
  bg: string;
  /** Title text. */
  fg: string;
  /** Description, host name and error text. */
  muted: string;
  /** Card outline (decorative: the card is identified by its text). */
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
  border: '#d0d7de',
  focus: '#0a58ca',
  skeleton: '#e8ebef',
  badgeBg: '#fff0ee',
  badgeFg: '#a4161a',
};

export const DARK: Palette = {
  bg: '#161b22',
  fg: '#e6edf3',
  muted: '#9ba5b0',
  border: '#30363d',
  focus: '#79b8ff',
  skeleton: '#262c36',
  badgeBg: '#3d1214',
  badgeFg: '#ffb3ad',
};

/** Public theming hooks: `linkpeek-preview { --linkpeek-bg: … }` overrides the default. */
export const THEME_PROPERTIES: Record<keyof Palette, string> = {
  bg: '--linkpeek-bg',
  fg: '--linkpeek-fg',
  muted: '--linkpeek-muted',
  border: '--linkpeek-border',
  focus: '--linkpeek-focus',
  skeleton: '--linkpeek-skeleton',
  badgeBg: '--linkpeek-badge-bg',
  badgeFg: '--linkpeek-badge-fg',
};
