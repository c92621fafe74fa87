/**
 * Python's `json.dumps(value)` with its defaults, byte for byte: separators `", "` and `": "`,
 * `ensure_ascii=True` (every character outside space..`~` escaped as `\uXXXX`, UTF-16 surrogates as
 * pairs), keys in insertion order. `python-requests` sends exactly these bytes for `json=payload`.
 *
 * JavaScript numbers do not remember whether they were floats; keys named in `floatKeys` hold lists
 * of Python floats (e.g. an issue's `position`), rendered with Python's `repr` (`1.0`, `1e-05`).
 */
export function pythonJsonDumps(value: unknown, floatKeys: ReadonlySet<string> = DEFAULT_FLOAT_KEYS): string {
  return dump(value, false, floatKeys);
}

const DEFAULT_FLOAT_KEYS: ReadonlySet<string> = new Set(['position']);

/** Printable ASCII without `"` and `\\`: Python writes such a string as is, in quotes. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Rendered keys (`"name": `): payloads repeat the same few dozen field names (a webhook per delivery). */
const KEYS = new Map<string, string>();
const KEYS_MAX = 4096;

function keyText(k: string): string {
  let text = KEYS.get(k);
  if (text === undefined) {
    text = `${pythonString(k)}: `;
    if (KEYS.size < KEYS_MAX) KEYS.set(k, text);
  }
  return text;
}

// One pass with string concatenation: every webhook delivery renders its payload with this.
function dump(v: unknown, asFloat: boolean, floatKeys: ReadonlySet<string>): string {
  switch (typeof v) {
    case 'string':
      return pythonString(v);
    case 'number':
      return asFloat ? pythonFloatRepr(v) : pythonNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ', ';
          // A hole is written as nothing (as `map` then `join` would).
          if (i in v) out += dump(v[i], asFloat, floatKeys);
        }
        return `${out}]`;
      }
      const o = v as Record<string, unknown>;
      let out = '{';
      let sep = '';
      // Own enumerable keys in `Object.entries` order (for-in lists own keys first, in that order).
      for (const k in o) {
        if (!Object.hasOwn(o, k)) continue;
        const x = o[k];
        if (x === undefined) continue;
        out += sep + keyText(k) + dump(x, asFloat || floatKeys.has(k), floatKeys);
        sep = ', ';
      }
      return `${out}}`;
    }
    default:
      // undefined, functions, symbols and bigints.
      return 'null';
  }
}

function pythonNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  return pythonFloatRepr(n);
}

/** Python `float.__repr__`: shortest round-trip digits; exponent form below 1e-4 or from 1e16. */
export function pythonFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e16 || abs < 1e-4) {
    const [mant, exp] = n.toExponential().split('e') as [string, string];
    const e = Number(exp);
    const sign = e < 0 ? '-' : '+';
    const digits = String(Math.abs(e)).padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  const s = String(n);
  return s.includes('.') ? s : `${s}.0`;
}

/** A string as `json.dumps` writes it with `ensure_ascii` (the default): `"caf\\u00e9"`. */
export function pythonString(s: string): string {
  if (PLAIN_STRING.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
