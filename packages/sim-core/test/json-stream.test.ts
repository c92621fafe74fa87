import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonStreamError, readJsonFile } from '../src/json-stream-read';
import { writeJson } from '../src/json-stream-write';

const dir = mkdtempSync(join(tmpdir(), 'sim-json-stream-'));
let files = 0;
/** A file holding `text` (or bytes). */
function fileWith(text: string | Buffer): string {
  const file = join(dir, `f${++files}.json`);
  writeFileSync(file, text);
  return file;
}

/** What writeJson hands out, as pieces. */
function pieces(value: unknown, options?: Parameters<typeof writeJson>[2]): string[] {
  const out: string[] = [];
  writeJson(value, (t) => out.push(t), options);
  return out;
}

/** The refusal readJsonFile gives for `text`. */
function refusal(text: string, options?: Parameters<typeof readJsonFile>[1]): JsonStreamError {
  try {
    readJsonFile(fileWith(text), options);
  } catch (err) {
    if (err instanceof JsonStreamError) return err;
    throw err;
  }
  throw new Error(`read ${JSON.stringify(text)} without a refusal`);
}

afterEach(() => vi.restoreAllMocks());

describe('writeJson', () => {
  it('writes exactly what JSON.stringify writes, for any JSON value and any piece sizes', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 200 }),
        (value, chunkChars, wholeChars) => {
          expect(pieces(value, { chunkChars, wholeChars }).join('')).toBe(JSON.stringify(value));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('follows JSON.stringify for toJSON, undefined, functions, symbols, holes and boxed values', () => {
    const value = {
      at: new Date(Date.UTC(2026, 0, 2)),
      gone: undefined,
      fn: () => 1,
      sym: Symbol('s'),
      list: [undefined, () => 1, Symbol('s'), new Number(3), new String('x'), new Boolean(false)],
      // A hole: written as null.
      sparse: new Array(3),
      custom: { toJSON: (key: string) => `custom:${key}` },
      map: new Map([[1, 2]]),
      nested: { deeper: [{ a: Number.NaN, b: Number.POSITIVE_INFINITY, c: -0 }] },
    };
    expect(pieces(value, { chunkChars: 1, wholeChars: 0 }).join('')).toBe(JSON.stringify(value));
  });

  it('hands out pieces of about chunkChars, never the whole text at once', () => {
    const value = {
      state: {
        rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row-${i}`, tags: ['a', 'b'] })),
      },
    };
    const out = pieces(value, { chunkChars: 4096, wholeChars: 1024 });
    const whole = JSON.stringify(value);
    expect(out.join('')).toBe(whole);
    expect(out.length).toBeGreaterThan(10);
    expect(Math.max(...out.map((p) => p.length))).toBeLessThan(4096 + 1024);
  });

  it('refuses a circular structure as JSON.stringify does', () => {
    const a: Record<string, unknown> = { list: Array.from({ length: 100 }, (_, i) => i) };
    a.self = a;
    expect(() => pieces(a, { wholeChars: 10 })).toThrow(TypeError);
    expect(() => pieces(a, { wholeChars: 10 })).toThrow(/circular/);
  });
});

describe('readJsonFile', () => {
  it('gives what JSON.parse gives, for any JSON text, spaced or not, and any chunk sizes', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 200 }),
        (value, spaced, chunkBytes, wholeBytes) => {
          const text = spaced ? ` ${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value);
          const expected = JSON.parse(text);
          expect(readJsonFile(fileWith(text), { chunkBytes, wholeBytes })).toStrictEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads strings with escapes and multi-byte characters across chunk boundaries', () => {
    const value = { 'k\\"ey': ['é✓😀\n\t"\\/\u0001', 'x'.repeat(50)], '😀': { a: '\u2028' } };
    const text = JSON.stringify(value);
    for (const chunkBytes of [1, 2, 3, 5, 7]) {
      for (const wholeBytes of [0, 4, 16, 1 << 20])
        expect(readJsonFile(fileWith(text), { chunkBytes, wholeBytes })).toStrictEqual(value);
    }
  });

  it('keeps a "__proto__" key as an own property, as JSON.parse does', () => {
    const text = '{"__proto__":{"polluted":true},"list":[{"__proto__":1}]}';
    const read = readJsonFile(fileWith(text), { wholeBytes: 0 }) as Record<string, unknown>;
    expect(read).toStrictEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts a UTF-8 byte order mark', () => {
    expect(readJsonFile(fileWith(Buffer.from('\uFEFF{"a":1}', 'utf8')))).toEqual({ a: 1 });
  });

  it('parses a large file as many small pieces, never its whole text at once', () => {
    const value = {
      state: { rows: Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `row-${i}`, tags: ['a'] })) },
    };
    const text = JSON.stringify(value);
    const parse = vi.spyOn(JSON, 'parse');
    expect(readJsonFile(fileWith(text), { chunkBytes: 4096, wholeBytes: 4096 })).toStrictEqual(value);
    const longest = Math.max(...parse.mock.calls.map(([t]) => t.length));
    expect(parse.mock.calls.length).toBeGreaterThan(100);
    expect(longest).toBeLessThanOrEqual(4096);
  });

  it.each([
    ['', 0, [], 'the file is empty'],
    ['  \n', 3, [], 'the file is empty'],
    ['{"state":{"clusters":[{"a":1},{"b":2', 36, ['state', 'clusters', 1, 'b'], 'unexpected end of file'],
    ['{"a":[1,2,]}', 10, ['a', 2], "unexpected ']' where a value was due"],
    ['{"a":[1 2]}', 8, ['a', 1], "expected ',' or ']' after an array element"],
    ['{"a":1 "b":2}', 7, ['a'], "expected ',' or '}' after a property value"],
    ['{"a" 1}', 5, ['a'], "expected ':' after a property name"],
    ['{"a":1,}', 7, [], 'expected a double-quoted property name'],
    ['{"a":{"b":tru}}', 10, ['a', 'b'], '"tru" is not a JSON value'],
    ['{"a":{"b":"x\\q"}}', 13, ['a', 'b'], 'Bad escaped character'],
    ['{"a":1} {"b":2}', 8, [], 'unexpected data after the JSON value'],
    ['{"a":1,"b', 9, [], 'unexpected end of file'],
    ['{"a":[{"x\\q":1}]}', 10, ['a', 0], 'Bad escaped character'],
  ])('refuses %j with the byte offset and member where it is wrong', (text, offset, segments, reason) => {
    for (const wholeBytes of [0, 1 << 20]) {
      const err = refusal(text, { wholeBytes });
      expect(err.offset).toBe(offset);
      expect(err.segments).toEqual(segments);
      expect(err.reason).toContain(reason);
      expect(err.message).toMatch(new RegExp(`^malformed JSON at byte ${offset}`));
    }
  });

  it('counts the byte offset in bytes, past multi-byte characters', () => {
    const err = refusal('{"é😀":[1,,2]}');
    expect(err.offset).toBe(Buffer.byteLength('{"é😀":[1,'));
    expect(err.message).toBe("malformed JSON at byte 13 (in é😀[1]): unexpected ',' where a value was due");
  });

  it('refuses nesting deeper than maxDepth, small or large, as too deep rather than malformed', () => {
    const deep = `${'['.repeat(201)}${']'.repeat(201)}`;
    for (const wholeBytes of [0, 1 << 20]) {
      const err = refusal(deep, { wholeBytes });
      expect(err.tooDeep).toBe(true);
      expect(err.reason).toBe("JSON nested deeper than 200 levels (the simulator's limit)");
      expect(err.message).toBe(
        `JSON nested deeper than 200 levels (the simulator's limit) at byte 200 (in [0][0][0][0][0][0][0][0][0][0] … [0][0][0] (200 levels))`,
      );
    }
    const ok = `${'['.repeat(200)}${']'.repeat(200)}`;
    expect(readJsonFile(fileWith(ok))).toStrictEqual(JSON.parse(ok));
    const deeper = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    expect(readJsonFile(fileWith(deeper), { maxDepth: 1000 })).toStrictEqual(JSON.parse(deeper));
    expect(refusal(deeper, { maxDepth: 999 }).offset).toBe(999);
  });

  it('shortens a long member path in its message to its first segments and its last', () => {
    const text = `{"state":{"list":[${'{"key":'.repeat(30)}[1,,2]${'}'.repeat(30)}]}}`;
    const err = refusal(text);
    expect(err.tooDeep).toBe(false);
    expect(err.segments).toHaveLength(34);
    expect(err.message).toBe(
      `malformed JSON at byte ${text.indexOf(',,') + 1} (in state.list[0].key.key.key.key.key.key.key … key.key[1] (34 levels)): unexpected ',' where a value was due`,
    );
    // Short ones whole, as before.
    expect(refusal('{"a":{"b":[1,,2]}}').message).toBe(
      "malformed JSON at byte 13 (in a.b[1]): unexpected ',' where a value was due",
    );
  });

  it('throws the fs error for a file that is not there', () => {
    expect(() => readJsonFile(join(dir, 'missing.json'))).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});
