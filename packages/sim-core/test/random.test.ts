import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../src/duration';
import { createRandom } from '../src/random';

describe('seeded random', () => {
  it('gives the same sequence for the same seed', () => {
    fc.assert(
      fc.property(fc.string(), (seed) => {
        const a = createRandom(seed);
        const b = createRandom(seed);
        expect([a.uuid(), a.hex(12), a.next(), a.digits(6)]).toEqual([
          b.uuid(),
          b.hex(12),
          b.next(),
          b.digits(6),
        ]);
      }),
    );
  });

  it('gives different sequences for different seeds', () => {
    expect(createRandom('1').uuid()).not.toBe(createRandom('2').uuid());
  });

  it('makes version-4 shaped uuids and bounded integers', () => {
    const r = createRandom('x');
    for (let i = 0; i < 200; i++) {
      expect(r.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const n = r.int(3, 7);
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThan(7);
      expect(r.digits(5)).toMatch(/^[1-9]\d{4}$/);
    }
  });
});

describe('durations', () => {
  it('parses units and compound durations', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration(250)).toBe(250);
  });

  it('rejects what is not a duration', () => {
    for (const bad of ['', '5', 's', '1.s', '-1s', '1 s', '1y']) {
      expect(() => parseDuration(bad), bad).toThrow(/invalid duration/);
    }
    expect(() => parseDuration(-1)).toThrow(/must be >= 0/);
  });
});
