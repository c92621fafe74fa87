/**
 * A minimal PNG reader for segmentation masks (VOC's `SegmentationClass/`, `SegmentationObject/`): 8-bit
 * grey, RGB, RGBA or paletted images, not interlaced, every row's filter undone. Each pixel is given as
 * its RGB colour (a palette index looked up), which is how Datumaro maps a mask's colours to indices.
 */
import { inflateSync } from 'node:zlib';
import { ImportError } from './types';

export interface RgbImage {
  w: number;
  h: number;
  /** The colour of (x, y) as `r << 16 | g << 8 | b`. */
  at(x: number, y: number): number;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** The image of a PNG file, or the error OpenCV's reader leaves Datumaro with for what is not one. */
export function readPng(bytes: Uint8Array, path: string): RgbImage {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bad = () => new ImportError('Exception', `Can't read image '${path}'`);
  if (b.length < 8 || b.readUInt32BE(0) !== 0x89504e47) throw bad();
  let at = 8;
  let w = 0;
  let h = 0;
  let depth = 0;
  let type = 0;
  let interlace = 0;
  let palette: Buffer = Buffer.alloc(0);
  const idat: Buffer[] = [];
  while (at + 8 <= b.length) {
    const len = b.readUInt32BE(at);
    const kind = b.toString('latin1', at + 4, at + 8);
    const data = b.subarray(at + 8, at + 8 + len);
    if (kind === 'IHDR') {
      w = data.readUInt32BE(0);
      h = data.readUInt32BE(4);
      depth = data[8] as number;
      type = data[9] as number;
      interlace = data[12] as number;
    } else if (kind === 'PLTE') palette = Buffer.from(data);
    else if (kind === 'IDAT') idat.push(data);
    else if (kind === 'IEND') break;
    at += 12 + len;
  }
  const channels = CHANNELS[type];
  if (!channels || depth !== 8 || interlace !== 0 || w === 0 || h === 0) throw bad();
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat));
  } catch {
    throw bad();
  }
  const stride = w * channels;
  const px = Buffer.alloc(stride * h);
  for (let y = 0; y < h; y++) {
    const filter = raw[y * (stride + 1)] as number;
    const src = y * (stride + 1) + 1;
    for (let i = 0; i < stride; i++) {
      const x = raw[src + i] as number;
      const a = i >= channels ? (px[y * stride + i - channels] as number) : 0;
      const up = y > 0 ? (px[(y - 1) * stride + i] as number) : 0;
      const c = y > 0 && i >= channels ? (px[(y - 1) * stride + i - channels] as number) : 0;
      const pred =
        filter === 1
          ? a
          : filter === 2
            ? up
            : filter === 3
              ? (a + up) >> 1
              : filter === 4
                ? paeth(a, up, c)
                : 0;
      px[y * stride + i] = (x + pred) & 0xff;
    }
  }
  const color = (r: number, g: number, bl: number) => (r << 16) | (g << 8) | bl;
  return {
    w,
    h,
    at(x, y) {
      const o = y * stride + x * channels;
      if (type === 3) {
        const i = (px[o] as number) * 3;
        return color(palette[i] ?? 0, palette[i + 1] ?? 0, palette[i + 2] ?? 0);
      }
      if (type === 0 || type === 4) return color(px[o] as number, px[o] as number, px[o] as number);
      return color(px[o] as number, px[o + 1] as number, px[o + 2] as number);
    },
  };
}
