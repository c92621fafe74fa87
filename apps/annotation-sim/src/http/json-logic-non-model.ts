import type { Result } from '../domain/errors';
import { type PythonJson as Py, PyDict, PyFloat, PyInt, pythonRepr } from '../domain/python-json';
import { parseRules } from './json-logic-filter';
import {
  FilterRefusal,
  hashable,
  item,
  iterate,
  len,
  pyCompare,
  pyContains,
  pyStr,
  refusalOf,
  typeName,
  uncaught,
} from './json-logic-python';

/** A non-model view's lookup fields: each term's value read from a row (`get_nested_attr`). */
type Fields<T> = Readonly<Record<string, (item: T) => unknown>>;
type Evaluate<T> = (row: T) => boolean;

const NON_MODEL_COMPARISONS = new Set(['!=', '==', '<', '>', '<=', '>=']);

/**
 * `NonModelJsonLogicFilter` (`/api/requests`). CVAT evaluates the rules on each row (`_apply_filter`), so
 * nothing is checked on an empty list. An unknown operation is its 400 `filter: <op> operation with
 * <args> arguments is not implemented`. An unknown term is a KeyError (500). `and`/`or` of two or more
 * rules is a TypeError (500: `reduce(all, …)` calls `all(a, b)`), and so are the comparisons Python
 * refuses (`None < 1`). Operations: `and`, `or` (one rule each), `!`, `var`, `==`, `!=`, `<`, `<=` (also
 * the 3-argument range), `>`, `>=`, `in`. The rule is compiled once. What does not depend on the row
 * is worked out then, and a failure found then is raised when a row reaches it, in CVAT's order.
 */
export function nonModelJsonLogicFilter<T>(
  items: T[],
  filter: string | undefined,
  fields: Fields<T>,
): Result<T[]> {
  return refusalOf(() => {
    const rules = parseRules(filter);
    if (rules === undefined) return items;
    const evaluate = compile(rules, fields);
    return items.filter(evaluate);
  });
}

/** A rule's evaluation. A failure while compiling it is raised when a row reaches it. */
function compile<T>(rules: Py, fields: Fields<T>): Evaluate<T> {
  try {
    return compileRule(rules, fields);
  } catch (err) {
    if (!(err instanceof FilterRefusal)) throw err;
    return () => {
      throw err;
    };
  }
}

/** `_apply_filter` of one rule. What reads the row is left to the returned function. */
function compileRule<T>(rules: Py, fields: Fields<T>): Evaluate<T> {
  if (!(rules instanceof PyDict))
    return uncaught(`AttributeError: '${typeName(rules)}' object has no attribute 'items'`);
  const first = rules.entries[0];
  if (!first) return uncaught('StopIteration');
  const [op, args] = first;
  if (op === 'or' || op === 'and') {
    // The list is built in full (every rule evaluated, no short cut) before `reduce` looks at it.
    const parts = iterate(args).map((a) => compile(a, fields));
    const failure =
      parts.length === 0
        ? 'TypeError: reduce() of empty iterable with no initial value'
        : parts.length > 1
          ? `TypeError: ${op === 'or' ? 'any' : 'all'}() takes exactly one argument (2 given)`
          : undefined;
    return (row) => {
      let result = false;
      for (const part of parts) result = part(row);
      return failure === undefined ? result : uncaught(failure);
    };
  }
  if (op === '!') {
    const inner = compile(args, fields);
    return (row) => !inner(row);
  }
  if (op === 'var') {
    const value = field(fields, args);
    return (row) => value(row) !== null;
  }
  if (NON_MODEL_COMPARISONS.has(op) && len(args) === 2) {
    const value = field(fields, item(item(args, 0), 'var'));
    const operand = item(args, 1);
    return (row) => pyCompare(value(row), op, operand);
  }
  if (op === 'in') {
    const head = item(args, 0);
    if (head instanceof PyDict) {
      const value = field(fields, item(head, 'var'));
      const container = item(args, 1);
      return (row) => pyContains(container, value(row));
    }
    const value = field(fields, item(item(args, 1), 'var'));
    return (row) => pyContains(head, value(row));
  }
  if (op === '<=' && len(args) === 3) {
    const value = field(fields, item(item(args, 1), 'var'));
    const [low, , high] = args as Py[];
    return (row) => {
      const v = value(row);
      return pyCompare(v, '>=', low as Py) && pyCompare(v, '<=', high as Py);
    };
  }
  throw new FilterRefusal({
    code: 'INVALID_LIST',
    messages: [`filter: ${op} operation with ${pyStr(args)} arguments is not implemented`],
  });
}

/** `lookup_fields[name]`, read from the row as Python sees it: an unknown term is a KeyError. */
function field<T>(fields: Fields<T>, name: Py): (row: T) => Py {
  hashable(name);
  if (typeof name !== 'string' || !Object.hasOwn(fields, name))
    return uncaught(`KeyError: ${pythonRepr(name)}`);
  const get = fields[name] as (row: T) => unknown;
  return (row) => {
    const v = get(row);
    if (v === null || v === undefined) return null;
    if (typeof v === 'number') return Number.isInteger(v) ? new PyInt(String(v)) : new PyFloat(v);
    if (typeof v === 'boolean') return v;
    return String(v);
  };
}
