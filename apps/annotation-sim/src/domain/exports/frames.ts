/**
 * The frames of an export. The simulator keeps no media: every frame is a placeholder named
 * `frame_000000.jpg`, … (CVAT's name for a video's frames) of {@link FRAME_WIDTH}×{@link FRAME_HEIGHT},
 * and where an archive carries images they are small valid JPEG files of that size (one flat grey).
 */

export const FRAME_WIDTH = 640;
export const FRAME_HEIGHT = 480;

/** `frame_000012.jpg` for frame 12. */
export function frameName(frame: number): string {
  return `frame_${String(frame).padStart(6, '0')}.jpg`;
}

/** A JPEG marker segment: `FF xx`, then its length (itself included) and payload. */
function segment(marker: number, payload: number[]): number[] {
  const length = payload.length + 2;
  return [0xff, marker, length >> 8, length & 0xff, ...payload];
}

let placeholder: Uint8Array | undefined;

/**
 * A baseline greyscale JPEG of the frame size, every 8×8 block mid-grey: quantization table of ones,
 * one-code Huffman tables (DC difference 0, end of block), so each block is two `0` bits.
 */
export function placeholderJpeg(): Uint8Array {
  if (placeholder) return placeholder;
  const w = FRAME_WIDTH;
  const h = FRAME_HEIGHT;
  const oneCode = (tableClass: number) => [tableClass << 4, 1, ...new Array<number>(15).fill(0), 0];
  const blocks = Math.ceil(w / 8) * Math.ceil(h / 8);
  const bits = blocks * 2;
  const scan = new Array<number>(Math.ceil(bits / 8)).fill(0);
  // Pad the last byte with 1 bits, as the standard asks.
  if (bits % 8 !== 0) scan[scan.length - 1] = (1 << (8 - (bits % 8))) - 1;
  placeholder = new Uint8Array([
    0xff,
    0xd8, // SOI
    ...segment(0xdb, [0, ...new Array<number>(64).fill(1)]), // DQT 0
    ...segment(0xc0, [8, h >> 8, h & 0xff, w >> 8, w & 0xff, 1, 1, 0x11, 0]), // SOF0, one component
    ...segment(0xc4, oneCode(0)), // DHT DC 0
    ...segment(0xc4, oneCode(1)), // DHT AC 0
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]), // SOS
    ...scan,
    0xff,
    0xd9, // EOI
  ]);
  return placeholder;
}
