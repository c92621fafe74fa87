import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  pythonFloatRepr as pyFloatRepr,
  pythonString as pyJsonString,
  pythonRepr as pyRepr,
  pythonJsonDumps,
  renderDrfJson,
} from '../../src/domain/python-json';
import {
  PythonJsonError as PyJsonError,
  parsePythonJson as parsePyJson,
} from '../../src/domain/python-json-parse';

/** `json.dumps` of values as the events API holds them: a JS -0 is Python's float -0.0. */
const dumpsPy = (value: unknown) => pythonJsonDumps(value, { signedZero: true });
const roundTrip = (text: string) => dumpsPy(parsePyJson(text));

describe('Python-compatible JSON', () => {
  it("re-serializes like json.dumps(json.loads(text)) with Python's separators", () => {
    expect(roundTrip('{"a":1,"b":[true,false,null],"c":{}}')).toBe(
      '{"a": 1, "b": [true, false, null], "c": {}}',
    );
    expect(roundTrip('  [ ]  ')).toBe('[]');
    expect(roundTrip('"x"')).toBe('"x"');
  });

  it('keeps ints and floats apart as Python does', () => {
    expect(roundTrip('[1, 1.0, 1.50, -0, -0.0, 1e5, 12345678901234567890, 1E400]')).toBe(
      '[1, 1.0, 1.5, 0, -0.0, 100000.0, 12345678901234567890, Infinity]',
    );
    expect(roundTrip('[NaN, -Infinity]')).toBe('[NaN, -Infinity]');
  });

  it('formats floats like repr(float)', () => {
    expect(pyFloatRepr(0.1)).toBe('0.1');
    expect(pyFloatRepr(1e16)).toBe('1e+16');
    expect(pyFloatRepr(1234567890123456.0)).toBe('1234567890123456.0');
    expect(pyFloatRepr(0.0001)).toBe('0.0001');
    expect(pyFloatRepr(0.00001)).toBe('1e-05');
    expect(pyFloatRepr(-2.5e-7)).toBe('-2.5e-07');
    expect(pyFloatRepr(1.5e300)).toBe('1.5e+300');
  });

  it('escapes non-ASCII and control characters as ensure_ascii does', () => {
    expect(roundTrip('"é😀\\u0001\\t\\/\u007f"')).toBe('"\\u00e9\\ud83d\\ude00\\u0001\\t/\\u007f"');
  });

  it('keeps the first position and the last value of a duplicate key', () => {
    expect(roundTrip('{"a":1,"b":2,"a":3}')).toBe('{"a": 3, "b": 2}');
  });

  it("rejects what Python's json.loads rejects, with Python's message", () => {
    for (const bad of ['', '{', '[1,]', '01', '{"a" 1}', "{'a': 1}", '"tab\there"', 'tru', '1 2']) {
      expect(() => parsePyJson(bad), bad).toThrow(PyJsonError);
    }
    expect(() => parsePyJson('[1,\n x]')).toThrow('Expecting value: line 2 column 2 (char 5)');
  });

  it('renders DRF JSON compact and unicode-preserving', () => {
    expect(renderDrfJson({ a: 'é', b: [1, 2.5] })).toBe('{"a":"é","b":[1,2.5]}');
  });

  it('writes repr() of dicts, lists, None and booleans', () => {
    expect(pyRepr({ a: null, b: [true, false], c: "it's", d: 'x' })).toBe(
      `{'a': None, 'b': [True, False], 'c': "it's", 'd': 'x'}`,
    );
  });
});

describe('DRF date-times', () => {
  it('accepts what Django parses and rejects the rest', async () => {
    const { parseIsoDateTime } = await import('../../src/domain/events/time');
    const { formatDrfDateTime } = await import('../../src/domain/dates');
    const iso = (v: string) => {
      const us = parseIsoDateTime(v);
      return us === undefined ? undefined : formatDrfDateTime(us);
    };
    expect(iso('2026-08-12T10:00:00Z')).toBe('2026-08-12T10:00:00Z');
    expect(iso('2026-08-12 10:00:00.5+02:00')).toBe('2026-08-12T08:00:00.500000Z');
    expect(iso('2026-08-12T10:00:00.1234567')).toBe('2026-08-12T10:00:00.123456Z');
    expect(iso('2026-8-2T9:05 Z')).toBe('2026-08-02T09:05:00Z');
    expect(iso('2026-08-12')).toBe('2026-08-12T00:00:00Z');
    expect(iso(' 2026-08-12T10:00:00Z')).toBeUndefined();
    expect(iso('2026-02-30T10:00:00Z')).toBeUndefined();
    expect(iso('2026-08-12T24:00:00Z')).toBeUndefined();
    expect(iso('yesterday')).toBeUndefined();
  });

  it('writes every string as a plain character-by-character escaper does, with and without ensure_ascii', () => {
    const plain = (s: string, ascii: boolean) => {
      let out = '"';
      for (const unit of Array.from({ length: s.length }, (_, k) => s.charCodeAt(k))) {
        const ch = String.fromCharCode(unit);
        if (ch === '"') out += '\\"';
        else if (ch === '\\') out += '\\\\';
        else if (ch === '\n') out += '\\n';
        else if (ch === '\r') out += '\\r';
        else if (ch === '\t') out += '\\t';
        else if (ch === '\b') out += '\\b';
        else if (ch === '\f') out += '\\f';
        else if (unit < 0x20 || (ascii && unit > 0x7e)) out += `\\u${unit.toString(16).padStart(4, '0')}`;
        else out += ch;
      }
      return `${out}"`;
    };
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\u0000', '\u007f', 'é', '\ud800', '😀') }),
    );
    fc.assert(
      fc.property(text, fc.boolean(), (s, ascii) => {
        expect(pyJsonString(s, ascii)).toBe(plain(s, ascii));
        expect(dumpsPy(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
      }),
      { numRuns: 1000 },
    );
    expect([dumpsPy(-0), dumpsPy(2 ** 60), dumpsPy(-7), dumpsPy(1.5)]).toEqual([
      '-0.0',
      '1152921504606846976',
      '-7',
      '1.5',
    ]);
  });
});
