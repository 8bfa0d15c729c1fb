// Image bytes and fixture routes for the probe tests, built here so no binary fixture is needed.
// Beside test/proxy/images.ts (PNG of any size, a 1×1 JPEG): a JPEG of any size behind any APPn
// segments, an ICO, SVGs, and upstream routes that honour or ignore Range and count what they sent.

import type http from 'node:http';
import { JPEG, png } from '../proxy/images.js';
import type { Route, UpstreamResponse } from '../helpers/upstream.js';

export { png };

/** One JPEG marker segment: FF, marker, 16-bit length (itself included), payload. */
function segment(marker: number, payload: Buffer): Buffer {
  if (payload.length + 2 > 0xffff) throw new Error('a JPEG segment holds at most 65,533 payload bytes');
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** A maximal EXIF segment: APP1 "Exif\0\0" padded to the 16-bit limit (a camera thumbnail fills it). */
export const MAX_EXIF = segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), Buffer.alloc(65_533 - 6, 0x20)]));
/** An ICC profile segment the size of the common sRGB IEC61966-2.1 profile (3,144 bytes). */
export const ICC = segment(0xe2, Buffer.concat([Buffer.from('ICC_PROFILE\0\x01\x01', 'latin1'), Buffer.alloc(3_144, 0x11)]));
/** An XMP segment of `size` payload bytes (Photoshop writes tens of KB). */
export function xmp(size: number): Buffer {
  const ns = Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1');
  return segment(0xe1, Buffer.concat([ns, Buffer.alloc(size - ns.length, 0x20)]));
}

/**
 * A baseline JPEG of `width`×`height` (the 1×1 scan of test/proxy/images.ts with its SOF patched:
 * image-size reads only SOF) with `segments` between SOI and the rest, and `trailer` bytes after.
 */
export function jpeg(width: number, height: number, segments: Buffer[] = [], trailer = 0): Buffer {
  const body = Buffer.from(JPEG.subarray(2)); // without SOI
  const sof = body.indexOf(Buffer.from([0xff, 0xc0]));
  body.writeUInt16BE(height, sof + 5);
  body.writeUInt16BE(width, sof + 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), ...segments, body, Buffer.alloc(trailer)]);
}

/** An ICO holding PNG images of the given sizes, in order (ICONDIR + one ICONDIRENTRY each). */
export function ico(sizes: number[]): Buffer {
  const images = sizes.map((s) => png(s, s));
  const dir = Buffer.alloc(6 + 16 * sizes.length);
  dir.writeUInt16LE(1, 2); // type 1: icon
  dir.writeUInt16LE(sizes.length, 4);
  let offset = dir.length;
  sizes.forEach((s, i) => {
    const e = 6 + 16 * i;
    dir[e] = s >= 256 ? 0 : s; // 0 means 256
    dir[e + 1] = s >= 256 ? 0 : s;
    dir.writeUInt16LE(1, e + 4); // planes
    dir.writeUInt16LE(32, e + 6); // bits per pixel
    dir.writeUInt32LE(images[i]!.length, e + 8);
    dir.writeUInt32LE(offset, e + 12);
    offset += images[i]!.length;
  });
  return Buffer.concat([dir, ...images]);
}

export const SVG_ICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><circle cx="24" cy="24" r="20"/></svg>',
);
/** An SVG with no width, height or viewBox: an image nobody can size from its bytes. */
export const SVG_UNSIZED = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><circle cx="24" cy="24" r="20"/></svg>');

/** What a route wrote: body bytes handed to the socket, and the response's status. */
export interface Sent {
  bytes: number;
  status: number;
}

type Headers = Record<string, string>;

/**
 * Serves `bytes` honouring a single `bytes=A-B` Range like a static file server (206 + Content-Range),
 * or 200 with everything when there is no Range. Records what it sent in `sent`.
 */
export function ranged(bytes: Buffer, headers: Headers, sent: Sent[] = []): Route {
  return (req, res) => {
    const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers['range'] ?? ''));
    if (!range) return writeAll(res, 200, bytes, headers, sent);
    const start = Number(range[1]);
    const end = Math.min(range[2] === '' ? bytes.length - 1 : Number(range[2]), bytes.length - 1);
    if (start >= bytes.length) return writeAll(res, 416, Buffer.alloc(0), { 'content-range': `bytes */${bytes.length}` }, sent);
    writeAll(res, 206, bytes.subarray(start, end + 1), { ...headers, 'content-range': `bytes ${start}-${end}/${bytes.length}` }, sent);
  };
}

/** Ignores Range: 200 with all of `bytes`, written in 16 KiB pieces with backpressure, counting what was written. */
export function ignoringRange(bytes: Buffer, headers: Headers, sent: Sent[] = []): Route {
  return (_req, res) => writeAll(res, 200, bytes, headers, sent);
}

function writeAll(res: UpstreamResponse, status: number, bytes: Buffer, headers: Headers, sent: Sent[]): void {
  const record: Sent = { bytes: 0, status };
  sent.push(record);
  res.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
  const out = res as http.ServerResponse;
  let offset = 0;
  const pump = (): void => {
    while (offset < bytes.length) {
      if (res.destroyed) return;
      const piece = bytes.subarray(offset, offset + 16 * 1024);
      offset += piece.length;
      record.bytes += piece.length;
      if (!out.write(piece)) {
        out.once('drain', pump);
        return;
      }
    }
    out.end();
  };
  pump();
}
