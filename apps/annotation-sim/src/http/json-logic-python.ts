import { type ApiError, fail, ok, type Result } from '../domain/errors';
import { type PythonJson as Py, PyDict, PyFloat, PyInt, pythonRepr } from '../domain/python-json';

/**
 * Python's operations on the values `json.loads` gives (`parsePythonJson`), as CVAT's JSON Logic filter
 * (json-logic-filter.ts) performs them: truth, `len`, indexing, iteration, `in`, comparisons, `str()`,
 * each with the exception Python raises. CVAT catches none of these exceptions: each is Django's 500
 * page, the exception named in `X-Sim-Reason` (in Python 3.12's words).
 */

/**
 * A Python exception raised inside the JSON Logic interpreter (json-logic-*.ts): a 400 CVAT raises
 * while it builds the query, or one it does not catch (500). The interpreter recurses through a rule
 * and evaluates it per row, so a refusal unwinds as Python's exception does; it never leaves these
 * files: each filter's entry point returns it as a `Result` ({@link refusalOf}).
 */
export class FilterRefusal extends Error {
  constructor(readonly error: ApiError) {
    super(error.code);
  }
}

/** An exception CVAT does not catch: Django's 500 page. */
export const uncaught = (reason: string): never => {
  throw new FilterRefusal({ code: 'SERVER_ERROR', reason });
};

/** What `run` gives, or the refusal the interpreter raised while it ran. */
export function refusalOf<T>(run: () => T): Result<T> {
  try {
    return ok(run());
  } catch (err) {
    if (err instanceof FilterRefusal) return fail(err.error);
    throw err;
  }
}

/** `for x in v`: a list's items, a string's characters, a dict's keys. */
export function iterate(v: Py): Py[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return [...v];
  if (v instanceof PyDict) return v.entries.map(([k]) => k);
  return uncaught(`TypeError: '${typeName(v)}' object is not iterable`);
}

/** `operator.contains(container, v)`. */
export function pyContains(container: Py, v: Py): boolean {
  if (Array.isArray(container)) return container.some((x) => pyEquals(x, v));
  if (typeof container === 'string') {
    if (typeof v !== 'string')
      return uncaught(`TypeError: 'in <string>' requires string as left operand, not ${typeName(v)}`);
    return container.includes(v);
  }
  if (container instanceof PyDict) return container.entries.some(([k]) => k === v);
  return uncaught(`TypeError: argument of type '${typeName(container)}' is not iterable`);
}

export function pyCompare(a: Py, op: string, b: Py): boolean {
  if (op === '==') return pyEquals(a, b);
  if (op === '!=') return !pyEquals(a, b);
  return pyOrder(a, b, op);
}

function pyEquals(a: Py, b: Py): boolean {
  const x = num(a);
  const y = num(b);
  if (x !== undefined && y !== undefined) return x === y;
  if (typeof a === 'string' || typeof b === 'string' || a === null || b === null) return a === b;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => pyEquals(v, b[i] as Py));
  if (a instanceof PyDict && b instanceof PyDict)
    return (
      a.entries.length === b.entries.length &&
      a.entries.every(([k, v]) => b.entries.some(([k2, v2]) => k === k2 && pyEquals(v, v2)))
    );
  return false;
}

/** `a < b` and the like, with Python's TypeError for types it does not order against each other. */
function pyOrder(a: Py, b: Py, op: string): boolean {
  const x = num(a);
  const y = num(b);
  if (x !== undefined && y !== undefined) return compare(x, y, op);
  if (typeof a === 'string' && typeof b === 'string') return compare(a, b, op);
  if (Array.isArray(a) && Array.isArray(b)) {
    // The first items that differ decide; else the shorter list is the smaller.
    const i = a.findIndex((v, k) => k >= b.length || !pyEquals(v, b[k] as Py));
    if (i !== -1 && i < b.length) return pyOrder(a[i] as Py, b[i] as Py, op);
    return compare(a.length, b.length, op);
  }
  return uncaught(
    `TypeError: '${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`,
  );
}

export function typeName(v: Py): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (v instanceof PyInt) return 'int';
  if (v instanceof PyFloat) return 'float';
  return Array.isArray(v) ? 'list' : 'dict';
}

/** Python's `str()`, as an f-string writes a value. */
export const pyStr = (v: Py): string => (typeof v === 'string' ? v : pythonRepr(v));

/** Python's truth: `None`, `False`, zero, and empty strings, lists and dicts are false. */
export function truthy(v: Py): boolean {
  if (v === null || typeof v === 'boolean') return v === true;
  if (typeof v === 'string') return v !== '';
  if (v instanceof PyInt) return v.digits !== '0';
  if (v instanceof PyFloat) return v.value !== 0;
  return Array.isArray(v) ? v.length > 0 : v.entries.length > 0;
}

/** A number as Python compares it: ints, floats and bools (`True == 1`); undefined for anything else. */
function num(v: Py): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof PyInt) return Number(v.digits);
  if (v instanceof PyFloat) return v.value;
  return undefined;
}

export function len(v: Py): number {
  if (typeof v === 'string') return [...v].length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof PyDict) return v.entries.length;
  return uncaught(`TypeError: object of type '${typeName(v)}' has no len()`);
}

/** `container[key]` (an index or `'var'`), with Python's errors: none of them is caught by CVAT. */
export function item(container: Py, key: number | string): Py {
  if (container instanceof PyDict) {
    const found = container.entries.find(([k]) => k === key);
    return found ? found[1] : uncaught(`KeyError: ${typeof key === 'string' ? pythonRepr(key) : key}`);
  }
  if (Array.isArray(container) || typeof container === 'string') {
    const list = Array.isArray(container);
    if (typeof key === 'string')
      return uncaught(
        list
          ? 'TypeError: list indices must be integers or slices, not str'
          : "TypeError: string indices must be integers, not 'str'",
      );
    const seq = list ? container : [...container];
    return key < seq.length
      ? (seq[key] as Py)
      : uncaught(`IndexError: ${list ? 'list' : 'string'} index out of range`);
  }
  return uncaught(`TypeError: '${typeName(container)}' object is not subscriptable`);
}

/** A dict key must be hashable: a list or a dict as a term is a TypeError. */
export function hashable(v: Py): void {
  if (Array.isArray(v) || v instanceof PyDict) uncaught(`TypeError: unhashable type: '${typeName(v)}'`);
}

/** Strings by code point (Python's order), numbers as numbers; NaN never orders. */
function compare(a: number | string, b: number | string, op: string): boolean {
  const c =
    typeof a === 'string' && typeof b === 'string'
      ? codePointOrder(a, b)
      : (a as number) < (b as number)
        ? -1
        : (a as number) > (b as number)
          ? 1
          : a === b
            ? 0
            : Number.NaN;
  switch (op) {
    case '==':
      return c === 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    default:
      return false;
  }
}

/**
 * Python's order of strings, by code point. JavaScript's `<` compares UTF-16 code units instead, which
 * puts a character past U+FFFF (a surrogate pair, 0xD800-0xDFFF) before U+E000-U+FFFF. The first code
 * units that differ decide, so the two ranges are swapped there; nothing is allocated.
 */
export function codePointOrder(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return byCodePoint(x) - byCodePoint(y);
  }
  return a.length - b.length;
}

const byCodePoint = (unit: number): number =>
  unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
