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
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    const column = i - before.lastIndexOf('\n');
    throw new PythonJsonError(`${what}: line ${line} column ${column} (char ${i})`);
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
    if (m[1] === undefined && m[2] === undefined) return new PyInt(BigInt(m[0]).toString());
    return new PyFloat(Number(m[0]));
  }

  function str(): string {
    const begin = i; // the opening quote, where Python says an unterminated string starts
    const unterminated = (): never => {
      i = begin;
      return fail('Unterminated string starting at');
    };
    i++;
    let out = '';
    for (;;) {
      if (i >= text.length) unterminated();
      const code = text.charCodeAt(i);
      const ch = text[i] as string;
      if (ch === '"') {
        i++;
        return out;
      }
      if (code < 0x20) fail('Invalid control character at');
      if (ch !== '\\') {
        out += ch;
        i++;
        continue;
      }
      const esc = text[i + 1];
      if (esc === undefined) unterminated();
      i += 2;
      switch (esc) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const hex = text.slice(i, i + 4);
          // Python wants the four digits and one more character, and points at the `u`.
          if (i + 4 >= text.length || !/^[0-9a-fA-F]{4}$/.test(hex)) {
            i -= 1;
            fail('Invalid \\uXXXX escape');
          }
          out += String.fromCharCode(Number.parseInt(hex, 16));
          i += 4;
          break;
        }
        default:
          i -= 2;
          fail('Invalid \\escape');
      }
    }
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
