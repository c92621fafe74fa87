/**
 * How exports write numbers and XML attributes. `quoteAttr` is `xml.sax.saxutils.quoteattr`. `pyFixed` is Python's `"%.Nf"`: correctly rounded, an exact binary tie to even. It skips the exact
 * expansion when the scaled value's fraction is not one half; checked here against that expansion for
 * every value, ties made on purpose among them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteAttr } from '../src/domain/exports/cvat-meta';
import { pyFixed } from '../src/domain/exports/py-format';

/** The oracle: the exact decimal expansion of `v`, rounded half to even at `digits` by hand. */
function exactFixed(v: number, digits: number): string {
  const exact = Math.abs(v).toFixed(100);
  const [int, frac] = exact.split('.') as [string, string];
  const rest = frac.slice(digits);
  let kept = BigInt(int + frac.slice(0, digits));
  const tie = /^50*$/.test(rest);
  if ((rest[0] ?? '0') > '5' || (rest[0] === '5' && !tie) || (tie && kept % 2n === 1n)) kept += 1n;
  let text = kept.toString().padStart(digits + 1, '0');
  if (digits > 0) text = `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  // Python keeps the sign of a negative value that rounds to zero, and of -0.0.
  return v < 0 || Object.is(v, -0) ? `-${text}` : text;
}

describe('pyFixed', () => {
  it('rounds exact ties to even and everything else as the exact expansion does', () => {
    expect(pyFixed(3.125, 2)).toBe('3.12');
    expect(pyFixed(3.375, 2)).toBe('3.38');
    expect(pyFixed(0.5, 0)).toBe('0');
    expect(pyFixed(2.675, 2)).toBe('2.67'); // 2.67499999… in binary: no tie
    expect(pyFixed(1.005, 2)).toBe('1.00');
    expect(pyFixed(-0, 2)).toBe('-0.00');
    expect(pyFixed(-0.001, 2)).toBe('-0.00');
    const ties = fc
      .tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.constantFrom(1, 2, 3))
      .map(([n, d]) => [(n + 0.5) / 2 ** d, d] as const);
    const any = fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 6 }));
    fc.assert(
      fc.property(fc.oneof(ties, any), ([v, digits]) => {
        expect(pyFixed(v, digits)).toBe(exactFixed(v, digits));
      }),
      { seed: 37, numRuns: 3000 },
    );
  });
});

describe('quoteAttr', () => {
  it('quotes as quoteattr does: escapes, new lines and tabs as references, the quote the value lacks', () => {
    expect(quoteAttr('plain 1.50')).toBe('"plain 1.50"');
    expect(quoteAttr('<a & b>')).toBe('"&lt;a &amp; b&gt;"');
    expect(quoteAttr('two\nlines\tand\r')).toBe('"two&#10;lines&#9;and&#13;"');
    expect(quoteAttr('say "hi"')).toBe(`'say "hi"'`);
    expect(quoteAttr(`it's "x"`)).toBe(`"it's &quot;x&quot;"`);
    expect(quoteAttr("it's")).toBe(`"it's"`);
  });
});
