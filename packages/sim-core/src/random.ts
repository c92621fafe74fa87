/**
 * Deterministic randomness (counters for sequential ids belong in a simulator's own state, so that
 * they travel with state snapshots). Every world derives its streams from one seed, so the same seed and the
 * same requests give the same ids and the same probabilistic fault decisions.
 */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max). */
  int(min: number, max: number): number;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
  /** `length` decimal digits (the first one non-zero). */
  digits(length: number): string;
  /** An RFC 4122 version-4 shaped UUID. */
  uuid(): string;
}

/** FNV-1a then splitmix to turn any seed into four 32-bit words. */
function seedWords(seed: string): [number, number, number, number] {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    h = (h + 0x9e3779b9) >>> 0;
    let z = h;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    out.push((z ^ (z >>> 16)) >>> 0);
  }
  return out as [number, number, number, number];
}

/**
 * Creates a seeded generator (sfc32).
 *
 * @example
 * const a = createRandom('42'); const b = createRandom('42');
 * a.uuid() === b.uuid(); // true
 */
/** Two hex digits per byte value. */
const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A 32-bit word as 8 lower-case hex digits. */
function hex8(n: number): string {
  return (
    (BYTE_HEX[n >>> 24] as string) +
    (BYTE_HEX[(n >>> 16) & 0xff] as string) +
    (BYTE_HEX[(n >>> 8) & 0xff] as string) +
    (BYTE_HEX[n & 0xff] as string)
  );
}

/** Char codes of the hex digits, and scratch space for `uuid()`. */
const HEX_CODES = Array.from({ length: 16 }, (_, d) => d.toString(16).charCodeAt(0));
const NIBBLES: number[] = new Array(32).fill(0);
const UUID_CODES: number[] = new Array(36).fill(0);

export function createRandom(seed: string | number): Random {
  return new Sfc32(String(seed));
}

/** The sfc32 generator: its four words are fields and its methods on the prototype (a world has two). */
class Sfc32 implements Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    [this.a, this.b, this.c, this.d] = seedWords(seed);
    // Warm up so that similar seeds diverge.
    for (let i = 0; i < 12; i++) this.u32();
  }

  private u32(): number {
    let { a, b, c, d } = this;
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    return t >>> 0;
  }

  next(): number {
    return this.u32() / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min));
  }
  hex(length: number): string {
    let s = '';
    while (s.length < length) s += hex8(this.u32());
    return s.slice(0, length);
  }
  digits(length: number): string {
    let s = String(this.int(1, 10));
    while (s.length < length) s += String(this.int(0, 10));
    return s;
  }
  uuid(): string {
    // The same as formatting hex(32) (four words) as a version-4 uuid, made as one flat string: one
    // is made per request and kept in its journal entry (bench/, decision 0008).
    for (let w = 0; w < 4; w++) {
      const word = this.u32();
      for (let i = 0; i < 8; i++) NIBBLES[w * 8 + i] = (word >>> (28 - 4 * i)) & 0xf;
    }
    let o = 0;
    for (let i = 0; i < 32; i++) {
      if (i === 8 || i === 12 || i === 16 || i === 20) UUID_CODES[o++] = 45; // '-'
      const n = i === 12 ? 4 : i === 16 ? ((NIBBLES[16] as number) & 0x3) | 0x8 : (NIBBLES[i] as number);
      UUID_CODES[o++] = HEX_CODES[n] as number;
    }
    return String.fromCharCode.apply(null, UUID_CODES);
  }
}
