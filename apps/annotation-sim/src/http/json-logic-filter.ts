import { ApiFailure } from '../domain/errors';
import { type PythonJson as Py, PyDict, PyFloat, PyInt, pythonRepr } from '../domain/python-json';
import { PythonJsonError, parsePythonJson } from '../domain/python-json-parse';
import {
  compare,
  hashable,
  item,
  iterate,
  len,
  num,
  pyCompare,
  pyContains,
  pyStr,
  truthy,
  typeName,
  uncaught,
} from './json-logic-python';
import { checkFilterBounds } from './query-limits';

/**
 * CVAT's JSON Logic `filter` (`cvat/apps/engine/filters.py`): `JsonLogicFilter` on the model views
 * (projects, tasks, jobs, issues, comments, webhooks) and `NonModelJsonLogicFilter` on `/api/requests`,
 * with their texts and their failures. The value is read by Python's `json.loads`, so its types (int,
 * float, dict in key order) and its error messages are Python's. A 400 is DRF's bare list
 * (`["filter: …"]`); an exception CVAT does not catch (a KeyError, a TypeError, Django's FieldError) is
 * Django's 500 page with the exception in `X-Sim-Reason`. The text's nesting is bounded before it is
 * parsed (QUERY_LIMITS.filterDepth), so the recursion below is bounded too.
 */

type Fields<T> = Record<string, (item: T) => unknown>;
type Predicate<T> = (item: T) => boolean;

const invalid = (message: string) => new ApiFailure({ code: 'INVALID_LIST', messages: [message] });

/** Python's limit on the digits of an int read from text (`sys.get_int_max_str_digits()`). */
const INT_MAX_STR_DIGITS = 4300;

/**
 * The rules of a `filter` value, or undefined when CVAT ignores it (absent or empty: `if json_rules:`).
 * `parse_query`'s 400s: `filter: can't parse filter expression: <Python's message>`, and `filter shouldn't
 * be empty` for a value Python finds false (`{}`, `[]`, `0`, `""`, `null`, `false`).
 */
function parseRules(filter: string | undefined): Py | undefined {
  if (!filter) return undefined;
  checkFilterBounds(filter);
  let rules: Py;
  try {
    rules = parsePythonJson(filter);
  } catch (err) {
    if (!(err instanceof PythonJsonError)) throw err;
    throw invalid(`filter: can't parse filter expression: ${err.message}`);
  }
  checkIntDigits(rules);
  if (!truthy(rules)) throw invalid("filter shouldn't be empty");
  return rules;
}

/** `json.loads` raises a ValueError (not a JSONDecodeError, so a 500) for an int of over 4,300 digits. */
function checkIntDigits(v: Py): void {
  if (v instanceof PyInt) {
    const digits = v.digits.replace('-', '').length;
    if (digits > INT_MAX_STR_DIGITS)
      uncaught(
        `ValueError: Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`,
      );
  } else if (Array.isArray(v)) for (const x of v) checkIntDigits(x);
  else if (v instanceof PyDict) for (const [, x] of v.entries) checkIntDigits(x);
}

/**
 * `JsonLogicFilter` (the model views): the rules are translated to one query before any row is read
 * (`_build_Q`), so a bad rule is refused even on an empty list. Its 400s (`FilterParsingError`):
 * `filter: expected a non-empty dict value, got '<x>' of type '<t>'`, `filter: operation '<op>' requires a
 * non-empty list argument, got …`, `filter: term '<x>' is not supported`, `filter: operation '<op>' with
 * arguments '<args>' is not supported`. Operations: `and`, `or`, `!`, `!!`, `var` (not null), `==`, `<`,
 * `<=` (also the 3-argument range), `>`, `>=`, `in` (in a list, or a substring).
 */
export function jsonLogicFilter<T>(items: T[], filter: string | undefined, fields: Fields<T>): T[] {
  const rules = parseRules(filter);
  if (rules === undefined) return items;
  // Errors Django raises when it resolves the built query (after every FilterParsingError): the first.
  const deferred: string[] = [];
  const predicate = buildQuery(rules, fields, undefined, deferred);
  if (deferred.length > 0) uncaught(deferred[0] as string);
  return items.filter(predicate);
}

/**
 * `NonModelJsonLogicFilter` (`/api/requests`): the rules are evaluated on each row (`_apply_filter`), so
 * nothing is checked on an empty list. An unknown operation is its 400 `filter: <op> operation with <args>
 * arguments is not implemented`; an unknown term is a KeyError (500), `and`/`or` of two or more rules
 * a TypeError (500: `reduce(all, …)` calls `all(a, b)`), comparisons Python refuses (`None < 1`) too.
 * Operations: `and`, `or` (one rule each), `!`, `var`, `==`, `!=`, `<`, `<=` (also the 3-argument range),
 * `>`, `>=`, `in`.
 */
export function nonModelJsonLogicFilter<T>(items: T[], filter: string | undefined, fields: Fields<T>): T[] {
  const rules = parseRules(filter);
  if (rules === undefined) return items;
  return items.filter((row) => applyRule(rules, fields, row));
}

// --- JsonLogicFilter._build_Q ------------------------------------------------------------------------

const MODEL_COMPARISONS = new Set(['==', '<', '>', '<=', '>=']);
const NONE_VALUE = 'ValueError: Cannot use None as a query value';

function buildQuery<T>(
  rules: Py,
  fields: Fields<T>,
  parentOp: string | undefined,
  deferred: string[],
): Predicate<T> {
  // `_validate_arg` reads the enclosing `op`, bound only after the rule itself was checked: a nested rule
  // that is not a non-empty dict is a NameError there.
  let op: string | undefined;
  const validate = (arg: Py, type: 'dict' | 'list') => {
    const ok =
      type === 'dict'
        ? arg instanceof PyDict && arg.entries.length > 0
        : Array.isArray(arg) && arg.length > 0;
    if (ok) return;
    const got = `got '${pyStr(arg)}' of type '${typeName(arg)}'`;
    if (parentOp === undefined) throw invalid(`filter: expected a non-empty ${type} value, ${got}`);
    if (op === undefined)
      uncaught(
        "NameError: cannot access free variable 'op' where it is not associated with a value in enclosing scope",
      );
    throw invalid(`filter: operation '${op}' requires a non-empty ${type} argument, ${got}`);
  };
  validate(rules, 'dict');
  const [name, args] = (rules as PyDict).entries[0] as [string, Py];
  op = name;
  const term = (key: Py) => modelField(fields, key);
  if (op === 'or' || op === 'and') {
    validate(args, 'list');
    const parts = (args as Py[]).map((a) => buildQuery(a, fields, op, deferred));
    return op === 'and' ? (it) => parts.every((p) => p(it)) : (it) => parts.some((p) => p(it));
  }
  if (op === '!') {
    const inner = buildQuery(args, fields, op, deferred);
    return (it) => !inner(it);
  }
  if (op === '!!') return buildQuery(args, fields, op, deferred);
  if (op === 'var') {
    // `Q(**{args + "__isnull": False})`: the name is a model field path, not one of the filter's terms.
    if (typeof args !== 'string')
      return uncaught(
        Array.isArray(args)
          ? 'TypeError: can only concatenate list (not "str") to list'
          : `TypeError: unsupported operand type(s) for +: '${typeName(args)}' and 'str'`,
      );
    const get = Object.hasOwn(fields, args) ? fields[args] : undefined;
    if (!get) {
      deferred.push(`FieldError: Cannot resolve keyword '${args}' into field.`);
      return () => false;
    }
    return (it) => get(it) !== null && get(it) !== undefined;
  }
  if (MODEL_COMPARISONS.has(op) && len(args) === 2) {
    const get = term(item(item(args, 0), 'var'));
    const value = item(args, 1);
    if (value === null && op !== '==') deferred.push(NONE_VALUE);
    const cmp = op;
    return (it) => sqlCompare(get(it), cmp, value);
  }
  if (op === 'in') {
    const first = item(args, 0);
    if (first instanceof PyDict) {
      const get = term(item(first, 'var'));
      const options = inOptions(item(args, 1), deferred);
      return (it) => options.some((o) => sqlCompare(get(it), '==', o));
    }
    const get = term(item(item(args, 1), 'var'));
    if (first === null) deferred.push(NONE_VALUE);
    const needle = pyStr(first);
    return (it) => {
      const v = get(it);
      return v !== null && v !== undefined && String(v).includes(needle);
    };
  }
  if (op === '<=' && len(args) === 3) {
    validate(args, 'list');
    const get = term(item(item(args, 1), 'var'));
    const [low, , high] = args as Py[];
    if (low === null || high === null) deferred.push(NONE_VALUE);
    return (it) => sqlCompare(get(it), '>=', low as Py) && sqlCompare(get(it), '<=', high as Py);
  }
  throw invalid(`filter: operation '${op}' with arguments '${pyStr(args)}' is not supported`);
}

/** A filter term (`lookup_fields[name]`); an unknown one is the FilterParsingError CVAT answers 400. */
function modelField<T>(fields: Fields<T>, name: Py): (item: T) => unknown {
  hashable(name);
  if (typeof name === 'string' && Object.hasOwn(fields, name)) return fields[name] as (item: T) => unknown;
  throw invalid(`filter: term '${pyStr(name)}' is not supported`);
}

/** The values of `field__in=<v>` (None among them matches nothing); Django iterates what it is given. */
function inOptions(v: Py, deferred: string[]): Py[] {
  if (Array.isArray(v)) return v.filter((x) => x !== null);
  if (typeof v === 'string') return [...v];
  if (v instanceof PyDict) return v.entries.map(([k]) => k);
  deferred.push(v === null ? NONE_VALUE : `TypeError: '${typeName(v)}' object is not iterable`);
  return [];
}

/**
 * A lookup as the database answers it: a NULL column matches only `== None`; the value is compared as
 * the column's type (a number column takes digits given as text). Chosen: a value Django would refuse to
 * convert (a word for a number column) matches nothing rather than raising.
 */
function sqlCompare(field: unknown, op: string, value: Py): boolean {
  if (field === null || field === undefined) return op === '==' && value === null;
  if (value === null) return false;
  let a: number | string;
  let b: number | string;
  if (typeof field === 'number' || typeof field === 'boolean') {
    const n =
      num(value) ?? (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : undefined);
    if (n === undefined) return false;
    a = Number(field);
    b = n;
  } else {
    if (Array.isArray(value) || value instanceof PyDict) return false;
    a = String(field);
    b = pyStr(value);
  }
  return compare(a, b, op);
}

// --- NonModelJsonLogicFilter._apply_filter ---------------------------------------------------------

const NON_MODEL_COMPARISONS = new Set(['!=', '==', '<', '>', '<=', '>=']);

function applyRule<T>(rules: Py, fields: Fields<T>, it: T): boolean {
  if (!(rules instanceof PyDict))
    return uncaught(`AttributeError: '${typeName(rules)}' object has no attribute 'items'`);
  const first = rules.entries[0];
  if (!first) return uncaught('StopIteration');
  const [op, args] = first;
  const value = (key: Py): Py => pyField(fields, key, it);
  if (op === 'or' || op === 'and') {
    const results = iterate(args).map((a) => applyRule(a, fields, it));
    if (results.length === 0) uncaught('TypeError: reduce() of empty iterable with no initial value');
    if (results.length > 1)
      uncaught(`TypeError: ${op === 'or' ? 'any' : 'all'}() takes exactly one argument (2 given)`);
    return results[0] as boolean;
  }
  if (op === '!') return !applyRule(args, fields, it);
  if (op === 'var') return value(args) !== null;
  if (NON_MODEL_COMPARISONS.has(op) && len(args) === 2) {
    const v = value(item(item(args, 0), 'var'));
    return pyCompare(v, op, item(args, 1));
  }
  if (op === 'in') {
    const head = item(args, 0);
    if (head instanceof PyDict) {
      const v = value(item(head, 'var'));
      return pyContains(item(args, 1), v);
    }
    return pyContains(head, value(item(item(args, 1), 'var')));
  }
  if (op === '<=' && len(args) === 3) {
    const v = value(item(item(args, 1), 'var'));
    return pyCompare(v, '>=', item(args, 0)) && pyCompare(v, '<=', item(args, 2));
  }
  throw invalid(`filter: ${op} operation with ${pyStr(args)} arguments is not implemented`);
}

/** `lookup_fields[name]` read from the row: an unknown term is a KeyError CVAT does not catch. */
function pyField<T>(fields: Fields<T>, name: Py, it: T): Py {
  hashable(name);
  if (typeof name !== 'string' || !Object.hasOwn(fields, name))
    return uncaught(`KeyError: ${pythonRepr(name)}`);
  const v = (fields[name] as (item: T) => unknown)(it);
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? new PyInt(String(v)) : new PyFloat(v);
  if (typeof v === 'boolean') return v;
  return String(v);
}
