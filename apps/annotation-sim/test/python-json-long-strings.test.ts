import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pythonRepr, pythonString } from '../src/domain/python-json';
import { PythonJsonError, parsePythonJson } from '../src/domain/python-json-parse';

/**
 * Long strings through the Python-JSON reader and writers (issue 33): an event whose payload is an 8 MB
 * string aborted annotation-sim under a 256 MB heap, because strings were read and written a character
 * at a time (~32 bytes of heap a character). The texts must stay exactly those of the plain
 * character-by-character definitions below, at every length and on every path.
 */

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;

/** Units that take every path: escaped or not, either quote, surrogate halves, pairs, non-printables. */
const UNITS = [
  'a',
  ' ',
  '"',
  "'",
  '\\',
  '/',
  '\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  '\u00a0',
  '\u200b',
  '\u2028',
  '\ue000',
  '\u0378',
  '\ufeff',
  'Ω',
  '\ud800',
  '\udbff',
  '\udc00',
  '😀',
  '\u{E0001}',
  '\u{F0000}',
];

/** Strings from a few units to ~50,000, so the writers' slices end anywhere, pairs included. */
const longish = fc
  .tuple(
    fc.array(fc.constantFrom(...UNITS), { maxLength: 40 }),
    fc.integer({ min: 1, max: 1200 }),
    fc.string(),
  )
  .map(([units, times, tail]) => units.join('').repeat(times) + tail);

/** `json.dumps` of a string, one UTF-16 unit at a time. */
function plainJsonString(s: string, ascii: boolean): string {
  const short: Record<string, string> = {
    '"': '\\"',
    '\\': '\\\\',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\b': '\\b',
    '\f': '\\f',
  };
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const unit = s.charCodeAt(k);
    const ch = s[k] as string;
    if (short[ch]) out += short[ch];
    else if (unit < 0x20 || (ascii && unit > 0x7e)) out += `\\u${unit.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Python's `repr` of a string, one code point at a time. */
function plainRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const printable = /^[^\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    const hex = code.toString(16);
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n' || ch === '\r' || ch === '\t') out += JSON.stringify(ch).slice(1, -1);
    else if (ch === ' ' || printable.test(ch)) out += ch;
    else if (code < 0x100) out += `\\x${hex.padStart(2, '0')}`;
    else if (code < 0x10000) out += `\\u${hex.padStart(4, '0')}`;
    else out += `\\U${hex.padStart(8, '0')}`;
  }
  return out + quote;
}

/**
 * `json.loads` of a text that starts with a string literal, one unit at a time: the string, or
 * Python's message for the first problem.
 */
function plainLoads(text: string): string {
  const at = (what: string, pos: number) => {
    const before = text.slice(0, pos);
    const line = before.split('\n').length;
    return `error ${what}: line ${line} column ${pos - before.lastIndexOf('\n')} (char ${pos})`;
  };
  const short: Record<string, string> = {
    '"': '"',
    '\\': '\\',
    '/': '/',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
  };
  let out = '';
  let i = 1;
  for (;;) {
    if (i >= text.length) return at('Unterminated string starting at', 0);
    const ch = text[i] as string;
    if (ch === '"') break;
    if (ch.charCodeAt(0) < 0x20) return at('Invalid control character at', i);
    if (ch !== '\\') {
      out += ch;
      i++;
      continue;
    }
    const esc = text[i + 1];
    if (esc === undefined) return at('Unterminated string starting at', 0);
    if (esc === 'u') {
      const hex = text.slice(i + 2, i + 6);
      if (i + 6 >= text.length || !/^[0-9a-fA-F]{4}$/.test(hex)) return at('Invalid \\uXXXX escape', i + 1);
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 6;
    } else if (short[esc] !== undefined) {
      out += short[esc];
      i += 2;
    } else return at('Invalid \\escape', i);
  }
  i++;
  while (' \t\n\r'.includes(text[i] ?? '.')) i++;
  return i < text.length ? at('Extra data', i) : `value ${JSON.stringify(out)}`;
}

const loads = (text: string): string => {
  try {
    return `value ${JSON.stringify(parsePythonJson(text))}`;
  } catch (err) {
    if (!(err instanceof PythonJsonError)) throw err;
    return `error ${err.message}`;
  }
};

/** Pieces of a literal's body: long runs, every escape (and bad ones), raw controls, a closing quote. */
const piece = fc.oneof(
  fc.integer({ min: 1, max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom(...UNITS),
  fc.constantFrom(
    '\\"',
    '\\\\',
    '\\/',
    '\\b',
    '\\f',
    '\\n',
    '\\r',
    '\\t',
    '\\u00e9',
    '\\uD83D\\uDE00',
    '\\ud800',
  ),
  fc.constantFrom('\\x', '\\U0041', '\\u12', '\\u12g4', '\\', '\r', '" ', '"\n x'),
);

describe('long strings in Python JSON', () => {
  it('writes strings of any length as the character-by-character definitions do', () => {
    fc.assert(
      fc.property(
        longish,
        (s) =>
          [true, false].every((ascii) => pythonString(s, ascii) === plainJsonString(s, ascii)) &&
          pythonRepr(s) === plainRepr(s),
      ),
      { numRuns: 300 },
    );
  });

  it('reads string literals of any length with the values and messages of a character-by-character reader', () => {
    const literal = fc
      .tuple(fc.array(piece, { maxLength: 30 }), fc.boolean())
      .map(([pieces, closed]) => `"${pieces.join('')}${closed ? '"' : ''}`);
    fc.assert(
      fc.property(literal, (text) => loads(text) === plainLoads(text)),
      { numRuns: 500 },
    );
    expect(loads(`"${'x'.repeat(MB)}\\u00e9`)).toBe(
      `error Invalid \\uXXXX escape: line 1 column ${MB + 3} (char ${MB + 2})`,
    );
  });

  it('reads and writes an 8 MB payload string, plain or full of escapes, under a 96 MB heap', {
    timeout: 60_000,
  }, async () => {
    // A child with a small heap: a character at a time needed ~32 bytes a character (256 MB for the
    // plain string), past this heap three times over; a pass over slices needs about the text's size.
    const script = `
      const { parsePythonJson } = await import('./src/domain/python-json-parse.ts');
      const { pythonJsonDumps, pythonRepr, renderDrfJson } = await import('./src/domain/python-json.ts');
      const MB = ${MB};
      const escapes = '\\n"\\\\é\\ud800'.repeat(MB);
      const lengths = [
        pythonJsonDumps(parsePythonJson(JSON.stringify('a'.repeat(8 * MB)))).length,
        pythonJsonDumps(parsePythonJson(JSON.stringify(escapes))).length,
        renderDrfJson(escapes).length,
        renderDrfJson('\\n"é'.repeat(2 * MB)).length,
        pythonRepr(escapes).length,
      ];
      process.stdout.write(JSON.stringify(lengths));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--max-old-space-size=96', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: APP },
    );
    // 8 MB and quotes; \n \" \\ \u00e9 \ud800 (18 a repetition); \n \" \\ é and the raw surrogate
    // (8); \n \" é (5); repr quotes with ' and writes \n " \\ é \ud800 (12).
    expect(JSON.parse(stdout)).toEqual([8 * MB + 2, 18 * MB + 2, 8 * MB + 2, 10 * MB + 2, 12 * MB + 2]);
  });
});
