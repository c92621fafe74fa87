import { PyDict, PyFloat, PyInt, type PythonJson } from './python-json';

/**
 * Python's `json.loads`, for what CVAT's Python does with a JSON text: its error messages (DRF quotes
 * them in `JSON parse error - …`), and values that keep ints and floats apart (`1.0` stays a float),
 * accept `NaN`/`Infinity`, and keep non-ASCII text for `pythonJsonDumps` to escape as Python does.
 * Client event payloads are stored as `json.dumps(json.loads(payload))`: `{"a":1.0}` becomes
 * `{"a": 1.0}`, which a JS round trip would write as `{"a": 1}`.
 */

export class PythonJsonError extends Error {
  override readonly name = 'PythonJsonError';
}

const WS = new Set([' ', '\t', '\n', '\r']);

const HEX4 = /^[0-9a-fA-F]{4}$/;
/** What may follow a backslash, besides `u`. */
const SHORT_ESCAPES = '"\\/bfnrt';

/**
 * Parses like Python's `json.loads` (strict mode: no control characters inside strings). Duplicate
 * keys keep the first key's position and the last value, as a Python dict does.
 *
 * @example pythonJsonDumps(parsePythonJson('{"a":1.0,"b":"é"}')) // '{"a": 1.0, "b": "\\u00e9"}'
 */
export function parsePythonJson(text: string): PythonJson {
  let i = 0;
  // Python's messages: `Expecting value: line 1 column 1 (char 0)`.
  const fail = (what: string): never => {
    // Lines counted in place: splitting the text before `i` copied it and made a string a line.
    let line = 1;
    let lineStart = -1;
    for (let at = text.indexOf('\n'); at !== -1 && at < i; at = text.indexOf('\n', at + 1)) {
      line++;
      lineStart = at;
    }
    throw new PythonJsonError(`${what}: line ${line} column ${i - lineStart} (char ${i})`);
  };
  const skip = () => {
    while (i < text.length && WS.has(text[i] as string)) i++;
  };
  /** Advances past `n` characters and returns `v`. */
  const take = <T>(n: number, v: T): T => {
    i += n;
    return v;
  };
  const NUM = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
  /** Characters a string literal holds as they are: all but `"`, `\\` and controls. */
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what ends a run
  const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;

  function value(): PythonJson {
    skip();
    const ch = text[i];
    if (ch === '"') return str();
    if (ch === '{') return obj();
    if (ch === '[') return arr();
    if (text.startsWith('null', i)) return take(4, null);
    if (text.startsWith('true', i)) return take(4, true);
    if (text.startsWith('false', i)) return take(5, false);
    if (text.startsWith('NaN', i)) return take(3, new PyFloat(Number.NaN));
    if (text.startsWith('Infinity', i)) return take(8, new PyFloat(Number.POSITIVE_INFINITY));
    if (text.startsWith('-Infinity', i)) return take(9, new PyFloat(Number.NEGATIVE_INFINITY));
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (!m) return fail('Expecting value');
    i += m[0].length;
    // An int's digits are Python's as written (the grammar has no leading zeros), but for `-0`: a
    // BigInt round trip said the same in time quadratic in the digits (1 s for a million).
    if (m[1] === undefined && m[2] === undefined) return new PyInt(m[0] === '-0' ? '0' : m[0]);
    return new PyFloat(Number(m[0]));
  }

  /**
   * A string literal, read once and built once: runs without escapes are skipped by a regex, and the
   * literal is a slice of the text or, when it has escapes, JSON.parse's (whose escapes and values are
   * Python's; Python's messages come from the check here). Appending a character at a time made a rope
   * of ~32 bytes a character: an 8 MB payload string took a 256 MB heap.
   */
  function str(): string {
    const begin = i; // the opening quote, where Python says an unterminated string starts
    const unterminated = (): never => {
      i = begin;
      return fail('Unterminated string starting at');
    };
    let escaped = false;
    i++;
    for (;;) {
      PLAIN_RUN.lastIndex = i;
      PLAIN_RUN.test(text);
      i = PLAIN_RUN.lastIndex;
      if (i >= text.length) unterminated();
      const code = text.charCodeAt(i);
      if (code === 0x22) break; // "
      if (code < 0x20) fail('Invalid control character at');
      // A backslash.
      const esc = text[i + 1];
      if (esc === undefined) return unterminated();
      if (esc === 'u') {
        // Python wants the four digits and one more character, and points at the `u`.
        if (i + 6 >= text.length || !HEX4.test(text.slice(i + 2, i + 6))) {
          i += 1;
          fail('Invalid \\uXXXX escape');
        }
        i += 6;
      } else if (SHORT_ESCAPES.includes(esc)) i += 2;
      else fail('Invalid \\escape');
      escaped = true;
    }
    i++;
    return escaped ? (JSON.parse(text.slice(begin, i)) as string) : text.slice(begin + 1, i - 1);
  }

  function obj(): PythonJson {
    i++;
    const entries: [string, PythonJson][] = [];
    const index = new Map<string, number>();
    skip();
    if (text[i] === '}') return take(1, new PyDict(entries));
    for (;;) {
      skip();
      if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
      const key = str();
      skip();
      if (text[i] !== ':') fail("Expecting ':' delimiter");
      i++;
      const v = value();
      const at = index.get(key);
      if (at === undefined) {
        index.set(key, entries.length);
        entries.push([key, v]);
      } else (entries[at] as [string, PythonJson])[1] = v;
      skip();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') return take(1, new PyDict(entries));
      fail("Expecting ',' delimiter");
    }
  }

  function arr(): PythonJson[] {
    i++;
    const items: PythonJson[] = [];
    skip();
    if (text[i] === ']') return take(1, items);
    for (;;) {
      items.push(value());
      skip();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') return take(1, items);
      fail("Expecting ',' delimiter");
    }
  }

  // `json.loads` refuses a text that starts with a byte order mark before reading anything.
  if (text.startsWith('\ufeff')) fail('Unexpected UTF-8 BOM (decode using utf-8-sig)');
  const result = value();
  skip();
  if (i !== text.length) fail('Extra data');
  return result;
}
