/**
 * An image's width and height from its first bytes, as CVAT reads them (PIL opens each uploaded image
 * for `data/meta`'s frame sizes). The simulator keeps no media, so an upload's size is read once from
 * its header while the body is at hand: PNG, JPEG, GIF, BMP and WebP, the formats clients upload.
 */

export interface ImageSize {
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(b: Uint8Array, bytes: readonly number[]): boolean {
  if (b.length < bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (b[i] !== bytes[i]) return false;
  return true;
}

/** `n` bytes as Latin-1 text (a loop: a spread would step an iterator per byte of every upload). */
function ascii(b: Uint8Array, at: number, n: number): string {
  let text = '';
  for (let i = at; i < Math.min(at + n, b.length); i++) text += String.fromCharCode(b[i] as number);
  return text;
}

const u16be = (b: Uint8Array, at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const u16le = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, at: number) => u16le(b, at) | ((b[at + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, at: number) => u16be(b, at) * 0x10000 + u16be(b, at + 2);
const i32le = (b: Uint8Array, at: number) => u16le(b, at) | (u16le(b, at + 2) << 16) | 0;

/** JPEG's start-of-frame markers (baseline, progressive, lossless…): not DHT (C4), JPG (C8), DAC (CC). */
const isStartOfFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/** A JPEG's size from its first SOF segment, walking the marker segments before it (EXIF and all). */
function jpegSize(b: Uint8Array): ImageSize | undefined {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1] as number;
    // Fill bytes, and the markers that carry no length (TEM, RSTn).
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (isStartOfFrame(marker)) {
      if (at + 9 > b.length) return undefined;
      return { height: u16be(b, at + 5), width: u16be(b, at + 7) };
    }
    if (marker === 0xda || marker === 0xd9) return undefined;
    at += 2 + u16be(b, at + 2);
  }
  return undefined;
}

/** A WebP's canvas size: VP8X, lossless VP8L or lossy VP8. */
function webpSize(b: Uint8Array): ImageSize | undefined {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8X' && b.length >= 30) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  if (chunk === 'VP8L' && b.length >= 25) {
    const bits = u16le(b, 21) | (u16le(b, 23) << 16);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ' && b.length >= 30)
    return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  return undefined;
}

/**
 * The width and height an image's header declares; undefined when the bytes are not a header this
 * reader knows (another format, or cut before the size).
 *
 * @example imageSize(pngBytes) // { width: 640, height: 480 }
 */
export function imageSize(b: Uint8Array): ImageSize | undefined {
  if (startsWith(b, PNG_SIGNATURE)) {
    return b.length >= 24 && ascii(b, 12, 4) === 'IHDR'
      ? { width: u32be(b, 16), height: u32be(b, 20) }
      : undefined;
  }
  if (startsWith(b, [0xff, 0xd8])) return jpegSize(b);
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') {
    return b.length >= 10 ? { width: u16le(b, 6), height: u16le(b, 8) } : undefined;
  }
  if (ascii(b, 0, 2) === 'BM' && b.length >= 26) {
    // BITMAPINFOHEADER; a negative height is a top-down bitmap.
    return { width: Math.abs(i32le(b, 18)), height: Math.abs(i32le(b, 22)) };
  }
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return webpSize(b);
  return undefined;
}
