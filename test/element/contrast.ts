// WCAG 2.2 contrast ratio (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio) for tests: palette
// hex values and colours as Chromium computes them, measured by the element's own function
// (element/palette.ts, which reads "rgb(r, g, b)" only).
import { contrastRatio as computedContrast } from '../../element/palette.js';

type Rgb = [number, number, number];

/** "#rrggbb" or "rgb(r, g, b)" / "rgba(r, g, b, 1)" as computed by a browser. */
function parseColor(color: string): Rgb {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (hex) return [1, 2, 3].map((i) => parseInt(hex[i]!, 16)) as Rgb;
  const rgb = /^rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)$/.exec(color);
  if (!rgb || (rgb[4] !== undefined && Number(rgb[4]) !== 1)) throw new Error(`not an opaque colour: ${color}`);
  return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
}

export function contrastRatio(a: string, b: string): number {
  const computed = (color: string) => `rgb(${parseColor(color).join(', ')})`;
  return computedContrast(computed(a), computed(b));
}
