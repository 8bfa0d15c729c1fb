// Real PNG bytes for fixture images (a smooth two-colour gradient), so Chromium decodes and
// paints them like any photo. Uncompressed-filter RGB, zlib from Node.
import { crc32, deflateSync } from 'node:zlib';

type Rgb = [number, number, number];

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A diagonal gradient; with `checker`, every other square of that size is white (sharp edges show a blur). */
export function gradientPng(width: number, height: number, from: Rgb, to: Rgb, checker = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const t = (x / width + y / height) / 2;
      const white = checker > 0 && (Math.floor(x / checker) + Math.floor(y / checker)) % 2 === 1;
      for (let c = 0; c < 3; c++) rows[row + 1 + x * 3 + c] = white ? 255 : Math.round(from[c]! + (to[c]! - from[c]!) * t);
    }
  }
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}
