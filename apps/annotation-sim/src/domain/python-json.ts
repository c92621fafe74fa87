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

function dump(v: unknown, asFloat: boolean, floatKeys: ReadonlySet<string>): string {
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') return asFloat ? pythonFloatRepr(v) : pythonNumber(v);
  if (typeof v === 'string') return pythonString(v);
  if (Array.isArray(v)) return `[${v.map((x) => dump(x, asFloat, floatKeys)).join(', ')}]`;
  if (typeof v === 'object') {
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (x === undefined) continue;
      parts.push(`${pythonString(k)}: ${dump(x, asFloat || floatKeys.has(k), floatKeys)}`);
    }
    return `{${parts.join(', ')}}`;
  }
  return 'null';
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

function pythonString(s: string): string {
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
