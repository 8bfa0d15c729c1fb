// What an image host of the simulated internet answers: a real, small image of the type its URL
// names (by extension, as CDNs serve them; a path without one gets a JPEG, the web's commonest).
// Built once from the proxy tests' image bytes; the preview image is a 1200×630 PNG, the size
// og:image guides ask for, so a probe reads real dimensions.

import { GIF, JPEG, WEBP, png } from '../proxy/images.js';

export interface WorldImage {
  contentType: string;
  bytes: Buffer;
}

const PREVIEW_PNG = png(1200, 630);
const ICON_PNG = png(32, 32);

/** An ICO holding one 32×32 PNG (the form browsers and favicon generators write today). */
const ICO = (() => {
  const header = Buffer.from([0, 0, 1, 0, 1, 0]);
  const entry = Buffer.alloc(16);
  entry.set([32, 32, 0, 0], 0); // width, height, palette, reserved
  entry.writeUInt16LE(1, 4); // colour planes
  entry.writeUInt16LE(32, 6); // bits per pixel
  entry.writeUInt32LE(ICON_PNG.length, 8);
  entry.writeUInt32LE(header.length + entry.length, 12);
  return Buffer.concat([header, entry, ICON_PNG]);
})();

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" height="32" fill="#3a6ea5"/></svg>');

const BY_EXTENSION: Record<string, WorldImage> = {
  png: { contentType: 'image/png', bytes: PREVIEW_PNG },
  jpg: { contentType: 'image/jpeg', bytes: JPEG },
  jpeg: { contentType: 'image/jpeg', bytes: JPEG },
  gif: { contentType: 'image/gif', bytes: GIF },
  webp: { contentType: 'image/webp', bytes: WEBP },
  ico: { contentType: 'image/x-icon', bytes: ICO },
  svg: { contentType: 'image/svg+xml', bytes: SVG },
};

/** The image served at `pathname`. */
export function imageFor(pathname: string): WorldImage {
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase() ?? '';
  return BY_EXTENSION[extension] ?? BY_EXTENSION.jpg!;
}
