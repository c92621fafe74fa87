/**
 * The colour CVAT gives a label created without one (`get_label_color` of
 * `cvat/apps/dataset_manager/formats/utils.py`): the predefined colour of its normalized name, else a
 * colour from a 3-byte BLAKE2s hash of that name; when a sibling already has it, a tint or shade of it
 * that no predefined or sibling colour has, else the middle of the widest gap between used colours.
 */
import { lazy } from '@sims/sim-core';
import { PREDEFINED_COLORS } from './label-color-table';

type Rgb = readonly [number, number, number];

/** The predefined colours by normalized name, parsed on first use. */
const predefinedColors = lazy((): Map<string, Rgb> => {
  const table = new Map<string, Rgb>();
  for (const entry of PREDEFINED_COLORS.split(/\s+/)) {
    if (entry === '') continue;
    const [name, hex] = entry.split('=') as [string, string];
    table.set(name, hexToRgb(hex) as Rgb);
  }
  return table;
});

/** `hex2rgb`: `#rrggbb` as three bytes; null when it is not that (CVAT would fail on it). */
function hexToRgb(color: string): Rgb | null {
  const hex = color.replace(/^#+/, '');
  if (!/^[0-9a-fA-F]{6}/.test(hex)) return null;
  return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as unknown as Rgb;
}

const rgbToHex = (c: Rgb) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/**
 * Datumaro's `make_file_name` then `-` to `_` (`normalize_label`): NFKD, ASCII only, characters other
 * than word characters, whitespace and `-` dropped, trimmed, lower case, runs of `-` and whitespace as
 * one `-`. Python's `\s` on ASCII includes the separators \x1c–\x1f.
 */
export function normalizeLabelName(name: string): string {
  const ascii = [...name.normalize('NFKD')].filter((ch) => ch.charCodeAt(0) < 128).join('');
  const ws = ' \\t\\n\\r\\f\\v\\x1c-\\x1f';
  return ascii
    .replace(new RegExp(`[^A-Za-z0-9_${ws}-]`, 'g'), '')
    .replace(new RegExp(`^[${ws}]+|[${ws}]+$`, 'g'), '')
    .toLowerCase()
    .replace(new RegExp(`[${ws}-]+`, 'g'), '-')
    .replaceAll('-', '_');
}

const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
] as const;

const rotr = (x: number, n: number) => ((x >>> n) | (x << (32 - n))) >>> 0;

/** One BLAKE2s compression (RFC 7693 §3.2) of a 64-byte block into `h`. */
function compress(h: number[], block: Uint8Array, counter: number, last: boolean): void {
  const m = Array.from(
    { length: 16 },
    (_, i) =>
      (block[4 * i]! | (block[4 * i + 1]! << 8) | (block[4 * i + 2]! << 16) | (block[4 * i + 3]! << 24)) >>>
      0,
  );
  const v = [...h, ...IV];
  v[12] = (v[12]! ^ counter) >>> 0;
  v[13] = (v[13]! ^ Math.floor(counter / 2 ** 32)) >>> 0;
  if (last) v[14] = ~v[14]! >>> 0;
  const g = (a: number, b: number, c: number, d: number, x: number, y: number) => {
    v[a] = (v[a]! + v[b]! + x) >>> 0;
    v[d] = rotr(v[d]! ^ v[a]!, 16);
    v[c] = (v[c]! + v[d]!) >>> 0;
    v[b] = rotr(v[b]! ^ v[c]!, 12);
    v[a] = (v[a]! + v[b]! + y) >>> 0;
    v[d] = rotr(v[d]! ^ v[a]!, 8);
    v[c] = (v[c]! + v[d]!) >>> 0;
    v[b] = rotr(v[b]! ^ v[c]!, 7);
  };
  for (const s of SIGMA) {
    g(0, 4, 8, 12, m[s[0]]!, m[s[1]]!);
    g(1, 5, 9, 13, m[s[2]]!, m[s[3]]!);
    g(2, 6, 10, 14, m[s[4]]!, m[s[5]]!);
    g(3, 7, 11, 15, m[s[6]]!, m[s[7]]!);
    g(0, 5, 10, 15, m[s[8]]!, m[s[9]]!);
    g(1, 6, 11, 12, m[s[10]]!, m[s[11]]!);
    g(2, 7, 8, 13, m[s[12]]!, m[s[13]]!);
    g(3, 4, 9, 14, m[s[14]]!, m[s[15]]!);
  }
  for (let i = 0; i < 8; i++) h[i] = (h[i]! ^ v[i]! ^ v[i + 8]!) >>> 0;
}

/**
 * BLAKE2s without a key and with a digest of `size` bytes (Python's `blake2s(data, digest_size=size)`):
 * Node's `blake2s256` has a fixed size, and the size is part of the hash's parameters, not a truncation.
 */
export function blake2s(data: Uint8Array, size: number): Uint8Array {
  const h = [...IV];
  h[0] = (h[0]! ^ 0x01010000 ^ size) >>> 0;
  const blocks = Math.max(1, Math.ceil(data.length / 64));
  for (let i = 0; i < blocks; i++) {
    const block = new Uint8Array(64);
    block.set(data.subarray(i * 64, i * 64 + 64));
    const last = i === blocks - 1;
    compress(h, block, last ? data.length : (i + 1) * 64, last);
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (h[i >> 2]! >>> (8 * (i & 3))) & 0xff;
  return out;
}

/** `get_color_from_index`: the index's bits dealt out to the channels, high bits first. */
function colorFromIndex(index: number): Rgb {
  const color = [0, 0, 0];
  let rest = index;
  for (let j = 7; j >= 0; j--) {
    for (let c = 0; c < 3; c++) color[c]! |= ((rest >> c) & 1) << j;
    rest >>= 3;
  }
  return color as unknown as Rgb;
}

const key = (c: Rgb) => c.join(',');

/** `generate_color`: the first tint then shade of `color` not in use, else the middle of the widest gaps. */
function generateColor(color: Rgb, used: Map<string, Rgb>): Rgb {
  for (const added of [255, 0]) {
    for (let factor = 1; factor < 10; factor++) {
      const tinted = color.map((c) => Math.trunc(c + ((added - c) * factor) / 10)) as unknown as Rgb;
      if (!used.has(key(tinted))) return tinted;
    }
  }
  const colors = [...used.values()];
  const channel = (index: number) => {
    const sorted = colors.map((c) => c[index]!).sort((a, b) => a - b);
    let best = 0;
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i]! - sorted[i - 1]! > sorted[best + 1]! - sorted[best]!) best = i - 1;
    return Math.floor((sorted[best]! + sorted[best + 1]!) / 2);
  };
  return [channel(0), channel(1), channel(2)];
}

/**
 * The colour CVAT gives a label named `name` among siblings coloured `siblingColors` (`get_label_color`).
 *
 * @example labelColor('car', []) // '#2080c0'
 */
export function labelColor(name: string, siblingColors: readonly string[]): string {
  const table = predefinedColors();
  const siblings = siblingColors.map(hexToRgb).filter((c): c is Rgb => c !== null);
  const normalized = normalizeLabelName(name);
  let color = table.get(normalized);
  if (color === undefined) {
    const d = blake2s(new TextEncoder().encode(normalized), 3);
    color = colorFromIndex((d[0]! << 16) | (d[1]! << 8) | d[2]!);
  }
  if (siblings.some((c) => key(c) === key(color as Rgb))) {
    const used = new Map<string, Rgb>();
    for (const c of [...table.values(), ...siblings]) used.set(key(c), c);
    color = generateColor(color, used);
  }
  return rgbToHex(color);
}
