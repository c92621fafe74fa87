/**
 * How exports write numbers, XML attributes and COCO's instances. `quoteAttr` is `xml.sax.saxutils.quoteattr`. `pyFixed` is Python's `"%.Nf"`: correctly rounded, an exact binary tie to even. It skips the exact
 * expansion when the scaled value's fraction is not one half; checked here against that expansion for
 * every value, ties made on purpose among them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attributeConverter, INSTANCES, instanceJson } from '../src/domain/exports/coco';
import { quoteAttr } from '../src/domain/exports/cvat-meta';
import type { FrameShape } from '../src/domain/exports/frame-shapes';
import { compactJson, pyFixed } from '../src/domain/exports/py-format';
import type { LabelRec } from '../src/domain/model';

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

describe('instanceJson', () => {
  it('writes a COCO instance as compactJson writes it, for boxes, polygons, masks and groups', () => {
    const labels: LabelRec[] = [1, 2].map((id) => ({
      id,
      name: `l${id}`,
      color: '#000000',
      type: 'any',
      project_id: null,
      task_id: 1,
      parent_id: null,
      svg: null,
      attributes: [
        {
          id: id * 10,
          name: 'n',
          mutable: false,
          input_type: 'number',
          default_value: '1',
          values: '0\n9\n1',
        },
        {
          id: id * 10 + 1,
          name: 'c',
          mutable: true,
          input_type: 'checkbox',
          default_value: 'false',
          values: 'false',
        },
      ],
    }));
    const attrsOf = attributeConverter(labels);
    const coord = fc.double({ min: 0, max: 60, noNaN: true });
    const shape = fc.record({
      type: fc.constantFrom('rectangle', 'polygon', 'mask', 'ellipse', 'points'),
      label_id: fc.constantFrom(1, 2),
      group: fc.constantFrom(0, 0, 1, 2),
      occluded: fc.boolean(),
      rotation: fc.constantFrom(0, 0, 12.5),
      points: fc.array(coord, { minLength: 6, maxLength: 8 }),
      value: fc.constantFrom('3', '2.5', 'true'),
    });
    fc.assert(
      fc.property(fc.array(shape, { maxLength: 6 }), (specs) => {
        const shapes: FrameShape[] = specs.map((x) => {
          const [a = 0, b = 0, c = 0, d = 0] = x.points;
          const points =
            x.type === 'rectangle' || x.type === 'ellipse'
              ? [Math.min(a, c), Math.min(b, d), Math.max(a, c) + 1, Math.max(b, d) + 1]
              : x.type === 'mask'
                ? [0, 3, 2, 4, 5, 1, 5, 8, 9, 12]
                : x.points;
          return {
            type: x.type,
            frame: 0,
            label_id: x.label_id,
            group: x.group,
            source: 'manual',
            occluded: x.occluded,
            outside: false,
            z_order: 0,
            rotation: x.rotation,
            points,
            attributes: [{ spec_id: x.label_id * 10, value: x.value === 'true' ? '1' : x.value }],
            elements: [],
          };
        });
        for (const [i, a] of INSTANCES.annotate(
          shapes,
          { name: 'f.jpg', width: 64, height: 48 },
          attrsOf,
        ).entries()) {
          a.id = i + 1;
          a.image_id = 7;
          expect(instanceJson(a)).toBe(compactJson(a));
        }
      }),
      { seed: 11, numRuns: 300 },
    );
  });
});
