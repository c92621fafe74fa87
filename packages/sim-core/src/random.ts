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
export function createRandom(seed: string | number): Random {
  let [a, b, c, d] = seedWords(String(seed));
  function u32(): number {
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
    return t >>> 0;
  }
  // Warm up so that similar seeds diverge.
  for (let i = 0; i < 12; i++) u32();
  const random: Random = {
    next: () => u32() / 4294967296,
    int: (min, max) => min + Math.floor(random.next() * (max - min)),
    hex(length) {
      let s = '';
      while (s.length < length) s += u32().toString(16).padStart(8, '0');
      return s.slice(0, length);
    },
    digits(length) {
      let s = String(random.int(1, 10));
      while (s.length < length) s += String(random.int(0, 10));
      return s;
    },
    uuid() {
      const h = random.hex(32);
      const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
  return random;
}
