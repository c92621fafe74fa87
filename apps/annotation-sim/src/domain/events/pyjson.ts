import { pythonString } from '../python-json';

/**
 * What CVAT's Python does with JSON, byte for byte: `json.loads` (which keeps ints and floats apart and
 * accepts `NaN`/`Infinity`) and `json.dumps` with its defaults (separators `", "` and `": "`,
 * `ensure_ascii=True`). Client payloads are stored as `json.dumps(json.loads(payload))`, so `{"a":1.0}`
 * becomes `{"a": 1.0}` and `"é"` becomes `"\u00e9"`; a JS round trip would lose both.
 */

/** A parsed Python JSON value: numbers keep their Python type (int: exact digits; float: a double). */
export type PyJson =
  | null
  | boolean
  | string
  | { readonly int: string }
  | { readonly float: number }
  | PyJson[]
  | { readonly entries: [string, PyJson][] };

export class PyJsonError extends Error {
  override readonly name = 'PyJsonError';
}

const WS = new Set([' ', '\t', '\n', '\r']);

/**
 * Parses like Python's `json.loads` (strict mode: no control characters inside strings). Duplicate
 * keys keep the first key's position and the last value, as a Python dict does.
 *
 * @example dumpsPy(parsePyJson('{"a":1.0,"b":"é"}')) // '{"a": 1.0, "b": "\\u00e9"}'
 */
export function parsePyJson(text: string): PyJson {
  let i = 0;
  // Python's messages: `Expecting value: line 1 column 1 (char 0)`.
  const fail = (what: string): never => {
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    const column = i - before.lastIndexOf('\n');
    throw new PyJsonError(`${what}: line ${line} column ${column} (char ${i})`);
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

  function value(): PyJson {
    skip();
    const ch = text[i];
    if (ch === '"') return str();
    if (ch === '{') return obj();
    if (ch === '[') return arr();
    if (text.startsWith('null', i)) return take(4, null);
    if (text.startsWith('true', i)) return take(4, true);
    if (text.startsWith('false', i)) return take(5, false);
    if (text.startsWith('NaN', i)) return take(3, { float: Number.NaN });
    if (text.startsWith('Infinity', i)) return take(8, { float: Number.POSITIVE_INFINITY });
    if (text.startsWith('-Infinity', i)) return take(9, { float: Number.NEGATIVE_INFINITY });
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (!m) return fail('Expecting value');
    i += m[0].length;
    if (m[1] === undefined && m[2] === undefined) return { int: BigInt(m[0]).toString() };
    return { float: Number(m[0]) };
  }

  function str(): string {
    i++; // opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) fail('Unterminated string');
      const code = text.charCodeAt(i);
      const ch = text[i] as string;
      if (ch === '"') {
        i++;
        return out;
      }
      if (code < 0x20) fail('Invalid control character');
      if (ch !== '\\') {
        out += ch;
        i++;
        continue;
      }
      const esc = text[i + 1];
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
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid \\uXXXX escape');
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

  function obj(): PyJson {
    i++;
    const entries: [string, PyJson][] = [];
    const index = new Map<string, number>();
    skip();
    if (text[i] === '}') return take(1, { entries });
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
      } else (entries[at] as [string, PyJson])[1] = v;
      skip();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') return take(1, { entries });
      fail("Expecting ',' delimiter");
    }
  }

  function arr(): PyJson[] {
    i++;
    const items: PyJson[] = [];
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

  const result = value();
  skip();
  if (i !== text.length) fail('Extra data');
  return result;
}

/** Python's `repr(float)`: shortest round-trip digits, scientific below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const frac = digits.slice(1);
    const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    return `${sign}${digits[0]}${frac ? `.${frac}` : ''}e${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const fracPart = digits.slice(exp + 1) || '0';
  return `${sign}${intPart}.${fracPart}`;
}

function floatJson(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  return pyFloatRepr(x);
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** Characters `json.dumps(..., ensure_ascii=False)` writes escaped: controls, `"` and `\\`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const NEEDS_ESCAPE = /[\u0000-\u001f"\\]/;

/** A JSON string literal as Python's `json.dumps` writes it (`ensure_ascii=True` unless `ascii` is false). */
export function pyJsonString(s: string, ascii = true): string {
  // With ensure_ascii it is the webhook payloads' writer, one implementation for both.
  if (ascii) return pythonString(s);
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const code = s.charCodeAt(k);
    if (code >= 0x20 && code !== 0x22 && code !== 0x5c) {
      out += s[k];
      continue;
    }
    const short = SHORT_ESCAPES[s[k] as string];
    out += short ?? `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out + '"';
}

function isPyInt(v: unknown): v is { int: string } {
  return typeof v === 'object' && v !== null && 'int' in v && typeof (v as { int: unknown }).int === 'string';
}
function isPyFloat(v: unknown): v is { float: number } {
  return (
    typeof v === 'object' && v !== null && 'float' in v && typeof (v as { float: unknown }).float === 'number'
  );
}
function isPyObject(v: unknown): v is { entries: [string, PyJson][] } {
  return (
    typeof v === 'object' &&
    v !== null &&
    'entries' in v &&
    Array.isArray((v as { entries: unknown }).entries)
  );
}

/** `json.dumps` options that matter here. */
export interface DumpsOptions {
  /** `separators=(",", ":")` instead of `(", ", ": ")`. */
  compact?: boolean;
  /** `ensure_ascii` (default true). */
  ascii?: boolean;
}

/**
 * Python's `json.dumps(value)` (default arguments unless told), for a parsed {@link PyJson} or a plain
 * JS value (a JS number that is an integer is written as a Python int, any other as a float;
 * `undefined` members are skipped).
 *
 * @example dumpsPy({ a: [1, 'x'] }) // '{"a": [1, "x"]}'
 */
export function dumpsPy(value: unknown, options: DumpsOptions = {}): string {
  const item = options.compact ? ',' : ', ';
  const colon = options.compact ? ':' : ': ';
  const ascii = options.ascii ?? true;
  const dump = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    if (v === true) return 'true';
    if (v === false) return 'false';
    if (typeof v === 'string') return pyJsonString(v, ascii);
    if (typeof v === 'number') {
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) return String(v);
      return Number.isInteger(v) && !Object.is(v, -0) && Math.abs(v) < 2 ** 63
        ? BigInt(v).toString()
        : floatJson(v);
    }
    if (typeof v === 'bigint') return v.toString();
    if (Array.isArray(v)) return `[${v.map(dump).join(item)}]`;
    if (isPyInt(v)) return v.int;
    if (isPyFloat(v)) return floatJson(v.float);
    if (isPyObject(v))
      return `{${v.entries.map(([k, x]) => `${pyJsonString(k, ascii)}${colon}${dump(x)}`).join(item)}}`;
    if (v instanceof Date) return pyJsonString(v.toISOString(), ascii);
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (x === undefined) continue;
      parts.push(`${pyJsonString(k, ascii)}${colon}${dump(x)}`);
    }
    return `{${parts.join(item)}}`;
  };
  return dump(value);
}

/** DRF's `JSONRenderer().render(data)`: compact separators, non-ASCII kept (`UNICODE_JSON`). */
export function renderDrfJson(value: unknown): string {
  return dumpsPy(value, { compact: true, ascii: false });
}

function pyReprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's `repr()` of a JSON-like value (`None`, `True`, `'text'`, `{'a': 1}`). */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return pyReprString(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${pyReprString(k)}: ${pyRepr(v)}`).join(', ')}}`;
}

/** Python's `str()`: a string as is, anything else as its `repr()`. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}
