// Image bytes for the proxy tests, built here so no binary fixture is needed. The proxy decides by
// the first bytes (signatures), so the allowed formats are real, minimal, decodable images, and
// the refused ones carry their real signatures.

import zlib from 'node:zlib';

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid RGBA PNG of `width`×`height`; `extra` bytes of a private ancillary chunk make it as large as needed. */
export function png(width = 1, height = 1, extra = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  const raw = Buffer.alloc(height * (1 + width * 4), 0x7f);
  for (let y = 0; y < height; y++) raw[y * (1 + width * 4)] = 0; // filter: none
  const parts = [Buffer.from('89504e470d0a1a0a', 'hex'), pngChunk('IHDR', ihdr)];
  if (extra > 0) parts.push(pngChunk('prVt', Buffer.alloc(extra, 0x42)));
  parts.push(pngChunk('IDAT', zlib.deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/** A PNG of exactly `size` bytes (size ≥ 100), filled with random-looking data. */
export function pngOfSize(size: number): Buffer {
  const base = png().length;
  const image = png(1, 1, size - base - 12);
  if (image.length !== size) throw new Error(`pngOfSize: ${image.length} ≠ ${size}`);
  return image;
}

/** The smallest well-formed 1×1 GIF89a. */
export const GIF = Buffer.from('47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b', 'hex');

/** A 1×1 baseline JPEG (JFIF). */
export const JPEG = Buffer.from(
  'ffd8ffe000104a46494600010100000100010000ffdb004300080606070605080707070909080a0c140d0c0b0b0c1912130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432' +
    'ffc0000b080001000101011100ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b5100002010303020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffda0008010100003f00fbd3ffd9',
  'hex',
);

/** A 1×1 lossless WebP. */
export const WEBP = Buffer.from('524946461a000000574542505650384c0d0000002f0000001007101111888808fe0700', 'hex');

export const HTML = Buffer.from('<!doctype html><html><body><script>alert(document.domain)</script></body></html>');
export const SVG_WITH_SCRIPT = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.domain)</script><rect width="10" height="10"/></svg>',
);
/** BMP: "BM", file size, reserved, offset, then a BITMAPINFOHEADER of a 1×1 24-bit image. */
export const BMP = Buffer.from('424d3a0000000000000036000000280000000100000001000000010018000000000004000000130b0000130b00000000000000000000ffffff00', 'hex');
/** TIFF, little-endian ("II*\0"), with an empty IFD offset. */
export const TIFF = Buffer.from('49492a000800000000000000000000000000000000000000000000000000000000000000', 'hex');
/** AVIF: an ISO-BMFF ftyp box with brand avif. */
export const AVIF = Buffer.concat([Buffer.from('0000001c667479706176696600000000617669666d6966316d696166', 'hex'), Buffer.alloc(40)]);
/** ICO: reserved 0, type 1, one 16×16 entry. */
export const ICO = Buffer.concat([Buffer.from('000001000100101000000100200068040000160000', 'hex'), Buffer.alloc(40)]);

/**
 * A GIF/JavaScript polyglot: valid GIF signature and header, and the whole file also parses as a
 * script ("GIF89a" is an identifier, the rest an assignment after a comment).
 */
export const GIF_JS_POLYGLOT = Buffer.concat([
  Buffer.from('GIF89a/*', 'latin1'),
  Buffer.from('0100010080000000000000ffffff', 'hex'),
  Buffer.from('*/=1;alert(document.domain);//', 'latin1'),
  Buffer.from('3b', 'hex'),
]);

/** A PNG that is also an HTML document: a valid PNG with markup in a text chunk. */
export const PNG_HTML_POLYGLOT = (() => {
  const image = png();
  const iend = image.length - 12;
  const text = pngChunk('tEXt', Buffer.from('Comment\0<html><script>alert(document.domain)</script></html>', 'latin1'));
  return Buffer.concat([image.subarray(0, iend), text, image.subarray(iend)]);
})();
