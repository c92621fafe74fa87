import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pythonFloatRepr, pythonJsonDumps } from '../src/domain/python-json';

/**
 * Python's `json.dumps` with its defaults, written the plain way (the simulator's renders in one pass,
 * with shortcuts): separators `", "`/`": "`, ensure_ascii, `position` lists as floats.
 */
function referenceDumps(v: unknown, asFloat = false): string {
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') {
    if (asFloat) return pythonFloatRepr(v);
    return Number.isInteger(v) && Math.abs(v) < 1e21 ? v.toFixed(0) : pythonFloatRepr(v);
  }
  if (typeof v === 'string') return referenceString(v);
  if (Array.isArray(v)) return `[${v.map((x) => referenceDumps(x, asFloat)).join(', ')}]`;
  if (typeof v === 'object') {
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (x === undefined) continue;
      parts.push(`${referenceString(k)}: ${referenceDumps(x, asFloat || k === 'position')}`);
    }
    return `{${parts.join(', ')}}`;
  }
  return 'null';
}

function referenceString(s: string): string {
  const named: Record<string, string> = {
    '"': '\\"',
    '\\': '\\\\',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\b': '\\b',
    '\f': '\\f',
  };
  let out = '"';
  for (const ch of s.split('')) {
    const c = ch.charCodeAt(0);
    out += named[ch] ?? (c < 0x20 || c > 0x7e ? `\\u${c.toString(16).padStart(4, '0')}` : ch);
  }
  return `${out}"`;
}

/** Strings that exercise every escaping branch: quotes, backslashes, controls, DEL, BMP, astral. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '\n\r\t\b\f', '\u0000\u001f\u007f', 'é ☃ 😀', 'plain ascii / text', "it's"),
);
/** Keys include `position` (float lists) and integer-like keys (their enumeration order differs). */
const key = fc.oneof(nasty, fc.constantFrom('position', 'frame', 'id', '0', '10', '2', 'webhook_id'));
const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1e21, -1e21, 1e16, 1e-5, 0.1, 2 ** 53, Number.MAX_VALUE),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nasty,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
}));

describe('pythonJsonDumps (one pass, with shortcuts)', () => {
  it('is byte for byte the plain rendering for any JSON-like value', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(pythonJsonDumps(v)).toBe(referenceDumps(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('matches the plain rendering on the edge cases it shortcuts', () => {
    const sparse: unknown[] = [1];
    sparse[3] = 2;
    const cases: unknown[] = [
      { event: 'update:task', webhook_id: 3, task: { name: 'renamed ☃', position: [1, 2.5] } },
      { changes: { position: { from: [1, 2], to: [3, 4.5] } }, frame: 3 },
      { a: undefined, b: [undefined, () => 1, Symbol('s'), 10n], c: new Date(0), 'k"\\': 'v' },
      { 10: 'ten', 2: 'two', b: 'b', 1: 'one' },
      sparse,
      [-0, 0.5, 1e21, -1e21, Number.NaN, Number.POSITIVE_INFINITY],
      'x'.repeat(10_000),
      // Inherited and non-enumerable properties are not written (Object.entries' own enumerable keys).
      Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true }, hidden: { value: 3 } }),
      // More distinct keys than the rendered-key cache keeps.
      Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}é`, i])),
    ];
    for (const c of cases) expect(pythonJsonDumps(c)).toBe(referenceDumps(c));
  });
});
