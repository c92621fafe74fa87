/**
 * The images the frame and preview endpoints answer. The simulator keeps no media (only each file's
 * name and the size its header declared), so a frame is a valid image of the frame's size, flat grey (a
 * PNG for the original of a `.png` file, else a baseline JPEG), and a preview a JPEG of the size CVAT
 * scales the first frame to.
 */
import { crc32, deflateSync } from 'node:zlib';
import type { FrameRec } from './model';

/** CVAT's `PREVIEW_SIZE`: a preview fits in 256×256, keeping the frame's aspect ratio. */
const PREVIEW_SIDE = 256;

/** A JPEG marker segment: `FF xx`, then its length (itself included) and payload. */
function segment(marker: number, payload: number[]): number[] {
  const length = payload.length + 2;
  return [0xff, marker, length >> 8, length & 0xff, ...payload];
}

/** A Huffman table of one code (`0`) for the symbol 0: DC difference 0, or AC end of block. */
const oneCode = (tableClass: number) => [tableClass << 4, 1, ...new Array<number>(15).fill(0), 0];

/**
 * A baseline greyscale JPEG of `width`×`height` whose every 8×8 block is mid-grey: each block is two
 * `0` bits (DC difference 0, end of block), so the bytes grow with the area at 1/256 byte a pixel.
 *
 * @example greyJpeg(640, 480).length // 1,347 bytes, which any decoder reads as 640×480
 */
export function greyJpeg(width: number, height: number): Uint8Array<ArrayBuffer> {
  const w = Math.max(1, Math.min(width, 0xffff));
  const h = Math.max(1, Math.min(height, 0xffff));
  const bits = Math.ceil(w / 8) * Math.ceil(h / 8) * 2;
  const head = [
    0xff,
    0xd8, // SOI
    ...segment(0xdb, [0, ...new Array<number>(64).fill(1)]), // DQT 0
    ...segment(0xc0, [8, h >> 8, h & 0xff, w >> 8, w & 0xff, 1, 1, 0x11, 0]), // SOF0, one component
    ...segment(0xc4, oneCode(0)),
    ...segment(0xc4, oneCode(1)),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]), // SOS
  ];
  const out = new Uint8Array(head.length + Math.ceil(bits / 8) + 2);
  out.set(head);
  // The scan is all 0 bits; the last byte is padded with 1 bits, as the standard asks.
  if (bits % 8 !== 0) out[out.length - 3] = (1 << (8 - (bits % 8))) - 1;
  out[out.length - 2] = 0xff;
  out[out.length - 1] = 0xd9; // EOI
  return out;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A greyscale PNG of `width`×`height`, every pixel mid-grey (each row a filter byte and its pixels,
 * deflated): the original of a frame uploaded as a PNG is a PNG, as CVAT answers the file itself.
 */
export function greyPng(width: number, height: number): Uint8Array<ArrayBuffer> {
  const w = Math.max(1, width);
  const h = Math.max(1, height);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth; colour type 0 (grey), no interlace
  const rows = Buffer.alloc((w + 1) * h, 0x80);
  for (let y = 0; y < h; y++) rows[y * (w + 1)] = 0; // filter: none
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(
    Buffer.concat([
      signature,
      pngChunk('IHDR', ihdr),
      pngChunk('IDAT', deflateSync(rows)),
      pngChunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/**
 * The size CVAT's preview of a frame has: PIL's `Image.thumbnail((256, 256))` (never enlarged; the
 * side that is cut is the floor or the ceiling of the exact value, whichever keeps the aspect better).
 */
export function previewSize(frame: FrameRec): { width: number; height: number } {
  let x = Math.min(frame.width, PREVIEW_SIDE);
  let y = Math.min(frame.height, PREVIEW_SIDE);
  const aspect = frame.width / frame.height;
  const nearest = (value: number, off: (n: number) => number) => {
    const [lo, hi] = [Math.floor(value), Math.ceil(value)];
    return Math.max(off(hi) < off(lo) ? hi : lo, 1);
  };
  if (x / y >= aspect) x = nearest(y * aspect, (n) => Math.abs(aspect - n / y));
  else y = nearest(x / aspect, (n) => (n === 0 ? 0 : Math.abs(aspect - x / n)));
  return { width: x, height: y };
}
