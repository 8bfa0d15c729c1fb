import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jpegFrameReadiness } from '../../src/images/jpeg-frame.js';
import { sniffPrefix } from '../../src/images/probe.js';
import { ICC, MAX_EXIF, jpeg, xmp } from './image-bytes.js';

// jpegFrameReadiness decides when image-size may be asked about a JPEG: exactly when it can answer.

const SOF0 = Buffer.from([0xff, 0xc0]);

for (const [name, image] of [
  ['a bare baseline JPEG', jpeg(3, 2)],
  ['a camera JPEG (maximal EXIF + ICC)', jpeg(4032, 3024, [MAX_EXIF, ICC])],
  ['EXIF, ICC and two XMP segments', jpeg(640, 480, [MAX_EXIF, ICC, xmp(30_000), xmp(2_000)])],
] as const) {
  test(`${name}: "ready" exactly at the prefixes where image-size finds the size`, () => {
    const sof = image.indexOf(SOF0);
    const lengths = new Set<number>();
    for (let n = Math.max(0, sof - 40); n <= sof + 40; n++) lengths.add(n);
    for (let n = 0; n < sof; n += 997) lengths.add(n);
    for (const n of [...lengths].sort((a, b) => a - b)) {
      const prefix = image.subarray(0, n);
      const sniffed = sniffPrefix(prefix);
      const readiness = jpegFrameReadiness(prefix);
      assert.is(readiness === 'ready', sniffed !== null, `prefix of ${n} bytes (SOF at ${sof}): ${readiness}, sniffed ${JSON.stringify(sniffed)}`);
      if (n < sof + 9) assert.is(readiness, 'more', `prefix of ${n} bytes`);
    }
  });
}

test('fill bytes and standalone markers before a segment are stepped over', () => {
  const image = jpeg(5, 7);
  const withFill = Buffer.concat([image.subarray(0, 2), Buffer.from([0xff, 0xff, 0xff]), image.subarray(2)]);
  assert.is(jpegFrameReadiness(withFill), 'ready');
  const withRst = Buffer.concat([image.subarray(0, 2), Buffer.from([0xff, 0xd0]), image.subarray(2)]);
  assert.is(jpegFrameReadiness(withRst), 'ready');
});

test('"never" when the chain breaks, the scan or the end comes first, or a length is impossible', () => {
  const garbage = Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(4096, 0x55)]);
  assert.is(jpegFrameReadiness(garbage), 'never');
  assert.is(jpegFrameReadiness(Buffer.from('ffd8ffda000c03010002110311003f00', 'hex')), 'never', 'SOS before a frame header');
  assert.is(jpegFrameReadiness(Buffer.from('ffd8ffd9', 'hex')), 'never', 'EOI');
  assert.is(jpegFrameReadiness(Buffer.from('ffd8ffe00001', 'hex')), 'never', 'a length below 2');
  // A segment whose length points past the next marker lands in its payload: broken.
  assert.is(jpegFrameReadiness(Buffer.from('ffd8ffe0000400001234ffc0', 'hex')), 'never');
});

test('"more" while a segment is still arriving', () => {
  assert.is(jpegFrameReadiness(Buffer.from('ffd8', 'hex')), 'more');
  assert.is(jpegFrameReadiness(Buffer.from('ffd8ffe1', 'hex')), 'more');
  assert.is(jpegFrameReadiness(Buffer.concat([Buffer.from('ffd8', 'hex'), MAX_EXIF.subarray(0, 1000)])), 'more', 'inside the EXIF segment');
});

test.run();
