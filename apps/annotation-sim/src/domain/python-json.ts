/**
 * Python's `json.dumps` (and DRF's `JSONRenderer`, and `repr`/`str`), byte for byte. One writer serves
 * the webhook payloads (`python-requests` sends `json.dumps(payload)` for `json=payload`), the events
 * API's stored client payloads (`json.dumps(json.loads(payload))`) and DRF-rendered event payloads.
 *
 * JavaScript numbers do not remember whether they were Python ints or floats. A plain JS number is an
 * int when it is whole, a float otherwise, unless its key is one of `floatKeys` (lists of Python floats,
 * such as an issue's `position`). Values parsed by `parsePythonJson` carry their Python type
 * ({@link PyInt}, {@link PyFloat}, {@link PyDict}) and are written as that type.
 */

/** A Python int parsed from JSON, with its exact digits (JSON ints are unbounded in Python). */
export class PyInt {
  constructor(readonly digits: string) {}
}

/** A Python float parsed from JSON (`1.0` stays a float; `NaN` and `Infinity` are floats too). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A Python dict parsed from JSON: keys in insertion order (a duplicate key keeps its first place). */
export class PyDict {
  constructor(readonly entries: [string, PythonJson][]) {}
}

/** A JSON value as Python's `json.loads` types it. */
export type PythonJson = null | boolean | string | PyInt | PyFloat | PythonJson[] | PyDict;

/** How `json.dumps` is called, and how plain JS numbers map to Python's types. */
export interface PythonJsonOptions {
  /** `separators=(",", ":")` (DRF's renderer) instead of `(", ", ": ")`. Default false. */
  compact?: boolean;
  /** `ensure_ascii`: every character outside space..`~` written as `\uXXXX`. Default true. */
  ascii?: boolean;
  /** Keys whose values (at any depth) are Python floats. Default: `position`. */
  floatKeys?: ReadonlySet<string>;
  /**
   * A JS `-0` is Python's float `-0.0` (no int is negative zero) rather than the int `0`. Default
   * false: the simulator's own records (webhook payloads) hold whole numbers only in int fields.
   */
  signedZero?: boolean;
}

const DEFAULT_FLOAT_KEYS: ReadonlySet<string> = new Set(['position']);
const NO_FLOAT_KEYS: ReadonlySet<string> = new Set();

interface Style {
  item: string;
  colon: string;
  ascii: boolean;
  floatKeys: ReadonlySet<string>;
  signedZero: boolean;
}

/**
 * Python's `json.dumps(value)` with its defaults unless told: separators `", "` and `": "`,
 * `ensure_ascii=True` (UTF-16 surrogates as pairs of `\uXXXX`), keys in insertion order, `undefined`
 * members skipped. A `Set` as second argument is `floatKeys`.
 *
 * @example pythonJsonDumps({ a: [1, 2.5], b: 'é' }) // '{"a": [1, 2.5], "b": "\\u00e9"}'
 */
export function pythonJsonDumps(
  value: unknown,
  options: PythonJsonOptions | ReadonlySet<string> = {},
): string {
  const o: PythonJsonOptions =
    options instanceof Set ? { floatKeys: options } : (options as PythonJsonOptions);
  return dump(value, false, {
    item: o.compact ? ',' : ', ',
    colon: o.compact ? ':' : ': ',
    ascii: o.ascii ?? true,
    floatKeys: o.floatKeys ?? DEFAULT_FLOAT_KEYS,
    signedZero: o.signedZero ?? false,
  });
}

/** DRF's `JSONRenderer().render(data)`: compact separators, non-ASCII kept (`UNICODE_JSON`). */
export function renderDrfJson(value: unknown): string {
  return pythonJsonDumps(value, { compact: true, ascii: false, floatKeys: NO_FLOAT_KEYS, signedZero: true });
}

// One pass with string concatenation: every webhook delivery renders its payload with this.
function dump(v: unknown, asFloat: boolean, s: Style): string {
  switch (typeof v) {
    case 'string':
      return pythonString(v, s.ascii);
    case 'number':
      return asFloat ? pythonFloatRepr(v) : pythonNumber(v, s.signedZero);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += s.item;
          // A hole is written as nothing (as `map` then `join` would).
          if (i in v) out += dump(v[i], asFloat, s);
        }
        return `${out}]`;
      }
      if (v instanceof PyInt) return v.digits;
      if (v instanceof PyFloat) return pythonFloatRepr(v.value);
      if (v instanceof PyDict) {
        let out = '{';
        for (let i = 0; i < v.entries.length; i++) {
          const [k, x] = v.entries[i] as [string, PythonJson];
          out += `${i > 0 ? s.item : ''}${pythonString(k, s.ascii)}${s.colon}${dump(x, false, s)}`;
        }
        return `${out}}`;
      }
      const o = v as Record<string, unknown>;
      let out = '{';
      let sep = '';
      // Own enumerable keys in `Object.entries` order (for-in lists own keys first, in that order).
      for (const k in o) {
        if (!Object.hasOwn(o, k)) continue;
        const x = o[k];
        if (x === undefined) continue;
        out += `${sep}${pythonString(k, s.ascii)}${s.colon}${dump(x, asFloat || s.floatKeys.has(k), s)}`;
        sep = s.item;
      }
      return `${out}}`;
    }
    default:
      // undefined, functions, symbols and bigints.
      return 'null';
  }
}

function pythonNumber(n: number, signedZero: boolean): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21 && !(signedZero && Object.is(n, -0))) {
    // A safe integer's `String` is its exact digits (faster than `toFixed`); past 2^53 only `toFixed` is exact.
    return Number.isSafeInteger(n) ? String(n) : n.toFixed(0);
  }
  return pythonFloatRepr(n);
}

/**
 * A float as `json.dumps` writes it: Python's `float.__repr__` (shortest round-trip digits, exponent
 * form below 1e-4 or from 1e16, `.0` on whole numbers), and `NaN`, `Infinity`, `-Infinity`.
 */
export function pythonFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e16 || abs < 1e-4) {
    const [mant, exp] = n.toExponential().split('e') as [string, string];
    const e = Number(exp);
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const text = String(n);
  return text.includes('.') ? text : `${text}.0`;
}

/** Printable ASCII without `"` and `\\`: Python writes such a string as is, in quotes. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Characters `json.dumps(..., ensure_ascii=False)` writes escaped: controls, `"` and `\\`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const NEEDS_ESCAPE = /[\u0000-\u001f"\\]/;

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** The letter after the backslash of a short escape, by ASCII unit (0: none). */
const SHORT_ESCAPE_LETTER = new Uint8Array(0x80);
for (const [unit, written] of Object.entries(SHORT_ESCAPES))
  SHORT_ESCAPE_LETTER[unit.charCodeAt(0)] = written.charCodeAt(1);

/** Every character `json.dumps(..., ensure_ascii=False)` escapes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const ESCAPED_UNICODE = /[\u0000-\u001f"\\]/g;

/** A surrogate without its other half: JSON.stringify writes it as `\udXXX`, Python as it is. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Longest string escaped by appending to a string (fastest when short; a rope node, ~32 bytes, a unit). */
const SHORT_STRING = 64;

/**
 * A JSON string literal as `json.dumps` writes it: with `ensure_ascii` (the default) everything outside
 * space..`~` as `\uXXXX` (`"caf\\u00e9"`); without it only controls, `"` and `\\` are escaped.
 * Linear, and no more memory than the literal: one character at a time made a rope node (~32 bytes) a
 * character, and an 8 MB payload string took a 256 MB heap.
 */
export function pythonString(s: string, ascii = true): string {
  if (PLAIN_STRING.test(s) || (!ascii && !NEEDS_ESCAPE.test(s))) return `"${s}"`;
  if (s.length <= SHORT_STRING) return appendEscaped(s, ascii);
  if (ascii) return asciiLiteral(s);
  // JSON.stringify escapes what Python escapes here, and surrogates without a pair, which Python keeps.
  if (!LONE_SURROGATE.test(s)) return JSON.stringify(s);
  return `"${replaceInSlices(s, ESCAPED_UNICODE, (unit) => escapeUnit(unit.charCodeAt(0)))}"`;
}

function appendEscaped(s: string, ascii: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c <= 0x7e || !ascii)) out += s[i];
    else out += escapeUnit(c);
  }
  return `${out}"`;
}

/** One UTF-16 unit as `json.dumps` escapes it (a surrogate pair is written as its two halves). */
function escapeUnit(c: number): string {
  return SHORT_ESCAPES[String.fromCharCode(c)] ?? `\\u${c.toString(16).padStart(4, '0')}`;
}

const HEX_DIGITS = '0123456789abcdef';

/**
 * `pythonString(s, true)`, written byte by byte into a buffer of the literal's size: its text is
 * ASCII, and a Latin-1 string made from the buffer is the only copy.
 */
function asciiLiteral(s: string): string {
  let size = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    size +=
      c >= 0x20 && c <= 0x7e
        ? c === 0x22 || c === 0x5c
          ? 2
          : 1
        : c < 0x80 && SHORT_ESCAPE_LETTER[c]
          ? 2
          : 6;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  out[at++] = 0x22; // "
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) {
      out[at++] = c;
      continue;
    }
    out[at++] = 0x5c; // \
    const letter = c < 0x80 ? SHORT_ESCAPE_LETTER[c] : 0;
    if (letter) {
      out[at++] = letter;
      continue;
    }
    out[at++] = 0x75; // u
    out[at++] = HEX_DIGITS.charCodeAt(c >> 12);
    out[at++] = HEX_DIGITS.charCodeAt((c >> 8) & 0xf);
    out[at++] = HEX_DIGITS.charCodeAt((c >> 4) & 0xf);
    out[at++] = HEX_DIGITS.charCodeAt(c & 0xf);
  }
  out[at] = 0x22;
  return out.toString('latin1');
}

/** Units per slice of {@link replaceInSlices}. */
const SLICE = 8192;

/**
 * `s.replace(pattern, replacer)` (a global pattern), a slice at a time, each slice's result flat before
 * the next: one replace keeps a part a match until it joins them. A slice never ends between the halves
 * of a surrogate pair, which a `u` pattern reads as one character.
 */
function replaceInSlices(s: string, pattern: RegExp, replacer: (match: string) => string): string {
  if (s.length <= SLICE) return s.replace(pattern, replacer);
  const parts: string[] = [];
  for (let at = 0; at < s.length; ) {
    let end = Math.min(at + SLICE, s.length);
    const last = s.charCodeAt(end - 1);
    const next = s.charCodeAt(end);
    if (last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) end++;
    parts.push(s.slice(at, end).replace(pattern, replacer));
    at = end;
  }
  return parts.join('');
}

/** Python's `repr(float)`: as `json.dumps` writes a finite float; `inf`, `-inf` and `nan` otherwise. */
function floatRepr(n: number): string {
  if (Number.isFinite(n)) return pythonFloatRepr(n);
  return Number.isNaN(n) ? 'nan' : n > 0 ? 'inf' : '-inf';
}

/**
 * What `repr` escapes in a string quoted with `'` or `"`: the backslash, the quote, and what Python's
 * `str.isprintable` refuses (controls, format, surrogates, private use, unassigned, separators) but the
 * space. By code point (`u`): a surrogate pair is one character, a lone surrogate is escaped.
 */
const REPR_ESCAPED = {
  "'": /[\\']|(?! )[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/gu,
  '"': /[\\"]|(?! )[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/gu,
};

/** One character as `repr` escapes it: `\\`, `\'`, `\n`, `\r`, `\t`, else `\xhh`, `\uhhhh` or `\Uhhhhhhhh` by size. */
function reprEscape(ch: string): string {
  if (ch === '\\' || ch === "'" || ch === '"') return `\\${ch}`;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  const code = ch.codePointAt(0) as number;
  const hex = code.toString(16);
  return code < 0x100
    ? `\\x${hex.padStart(2, '0')}`
    : code < 0x10000
      ? `\\u${hex.padStart(4, '0')}`
      : `\\U${hex.padStart(8, '0')}`;
}

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  return quote + replaceInSlices(s, REPR_ESCAPED[quote], reprEscape) + quote;
}

/**
 * Python's `repr()` of a JSON-like value (`None`, `True`, `'text'`, `{'a': 1}`), including the values
 * `parsePythonJson` gives (an int's digits, a float's repr, a dict's keys in order).
 */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return reprString(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : floatRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (value instanceof PyInt) return value.digits;
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (value instanceof PyDict)
    return `{${value.entries.map(([k, v]) => `${reprString(k)}: ${pythonRepr(v)}`).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${reprString(k)}: ${pythonRepr(v)}`).join(', ')}}`;
}

/** Python's `str()`: a string as is, anything else as its `repr()`. */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}
