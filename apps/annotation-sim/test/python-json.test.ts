import { describe, expect, it } from 'vitest';
import { pythonFloatRepr, pythonJsonDumps } from '../src/domain/python-json';
import { signWebhookBody } from '../src/domain/signing';

describe('pythonJsonDumps', () => {
  it('uses Python default separators and keeps key order', () => {
    expect(pythonJsonDumps({ b: 1, a: [1, 2, { c: null }], d: true, e: false })).toBe(
      '{"b": 1, "a": [1, 2, {"c": null}], "d": true, "e": false}',
    );
  });

  it('escapes every non-ASCII character as \\uXXXX, astral characters as surrogate pairs', () => {
    expect(pythonJsonDumps('Кот ☃ 😀 é')).toBe('"\\u041a\\u043e\\u0442 \\u2603 \\ud83d\\ude00 \\u00e9"');
  });

  it('escapes control characters, quotes, backslashes and DEL like Python', () => {
    expect(pythonJsonDumps('a"b\\c\n\r\t\b\f\u0001\u007f/')).toBe(
      '"a\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u007f/"',
    );
  });

  it('renders float fields with Python repr', () => {
    expect(pythonJsonDumps({ position: [1, 2.5, 0, 1e-7, 1e16], frame: 3 })).toBe(
      '{"position": [1.0, 2.5, 0.0, 1e-07, 1e+16], "frame": 3}',
    );
    expect(pythonJsonDumps({ changes: { position: { from: [1, 2], to: [3, 4.5] } } })).toBe(
      '{"changes": {"position": {"from": [1.0, 2.0], "to": [3.0, 4.5]}}}',
    );
    expect(pythonFloatRepr(0.1)).toBe('0.1');
    expect(pythonFloatRepr(123456789.125)).toBe('123456789.125');
  });

  it('matches the HMAC the CVAT docs show for an empty body with key "mykey"', () => {
    expect(signWebhookBody('mykey', '')).toBe(
      'sha256=e1b24265bf2e0b20c81837993b4f1415f7b68c503114d100a40601eca6a2745f',
    );
  });
});
