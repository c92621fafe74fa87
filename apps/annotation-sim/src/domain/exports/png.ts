/**
 * A minimal PNG writer (8-bit RGB, no interlace, every row filtered with None): what a segmentation
 * mask needs. The pixels are the point; the bytes differ from OpenCV's encoder (its filters and level).
 */
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, tail]);
}

/**
 * The PNG of a `w`×`h` image whose pixel (x, y) is `rgb(x, y)`.
 *
 * @example rgbPng(2, 1, () => [0, 0, 0])
 */
export function rgbPng(w: number, h: number, rgb: (x: number, y: number) => readonly number[]): Uint8Array {
  const raw = Buffer.alloc((w * 3 + 1) * h);
  let at = 0;
  for (let y = 0; y < h; y++) {
    raw[at++] = 0; // filter: None
    for (let x = 0; x < w; x++) {
      const [r = 0, g = 0, b = 0] = rgb(x, y);
      raw[at++] = r;
      raw[at++] = g;
      raw[at++] = b;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, adaptive filters, no interlace
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw)),
      chunk('IEND', new Uint8Array(0)),
    ]),
  );
}
