import type { Result } from '../domain/errors';
import { type PythonJson as Py, PyDict, PyInt } from '../domain/python-json';
import { PythonJsonError, parsePythonJson } from '../domain/python-json-parse';
import { type Column, columnOf, comparison, type FilterTerms, type Lookup } from './json-logic-columns';
import {
  FilterRefusal,
  hashable,
  item,
  len,
  pyStr,
  refusalOf,
  truthy,
  typeName,
  uncaught,
} from './json-logic-python';
import { checkFilterBounds } from './query-limits';

export type { FilterTerms } from './json-logic-columns';

/**
 * CVAT's JSON Logic `filter` (`cvat/apps/engine/filters.py`): `JsonLogicFilter` on the model views
 * (projects, tasks, jobs, issues, comments, webhooks) and `NonModelJsonLogicFilter` on `/api/requests`,
 * with their texts and their failures. The value is read by Python's `json.loads`, so its types (int,
 * float, dict in key order) and its error messages are Python's. A 400 is DRF's bare list
 * (`["filter: …"]`); an exception CVAT does not catch (a KeyError, a TypeError, Django's FieldError) is
 * Django's 500 page with the exception in `X-Sim-Reason`. The text's nesting and values are bounded
 * before it is parsed (QUERY_LIMITS.filterDepth, filterValues): the recursion below is bounded, and so
 * is the work a row costs, since a rule is compiled once into a predicate that reads each of its nodes
 * at most once a row.
 */

type Predicate<T> = (item: T) => boolean;

const invalid = (message: string) => new FilterRefusal({ code: 'INVALID_LIST', messages: [message] });

/** Python's limit on the digits of an int read from text (`sys.get_int_max_str_digits()`). */
const INT_MAX_STR_DIGITS = 4300;

/**
 * The rules of a `filter` value, or undefined when CVAT ignores it (absent or empty: `if json_rules:`).
 * `parse_query`'s 400s: `filter: can't parse filter expression: <Python's message>`, and `filter shouldn't
 * be empty` for a value Python finds false (`{}`, `[]`, `0`, `""`, `null`, `false`). Raises its refusal
 * (FilterRefusal): called inside a filter's `refusalOf`.
 */
export function parseRules(filter: string | undefined): Py | undefined {
  if (!filter) return undefined;
  const bounded = checkFilterBounds(filter);
  if (!bounded.ok) throw new FilterRefusal(bounded.error);
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
 * `<=` (also the 3-argument range), `>`, `>=`, `in` (in a list, or a substring). The terms are the view's
 * `filter_fields`, each compared as the database compares its column (json-logic-columns.ts).
 */
export function jsonLogicFilter<T>(
  items: T[],
  filter: string | undefined,
  terms: FilterTerms<T>,
): Result<T[]> {
  return refusalOf(() => {
    const rules = parseRules(filter);
    if (rules === undefined) return items;
    const query = new QueryBuilder(terms);
    const predicate = query.build(rules, undefined);
    // Errors Django raises when it resolves the built query (after every FilterParsingError): the first.
    if (query.deferred.length > 0) uncaught(query.deferred[0] as string);
    return items.filter(predicate);
  });
}

// --- JsonLogicFilter._build_Q ------------------------------------------------------------------------

const MODEL_COMPARISONS = new Set(['==', '<', '>', '<=', '>=']);
const NONE_VALUE = 'ValueError: Cannot use None as a query value';
const NOTHING = () => false;

/** `_build_Q` over one view's terms: each term's column made once, Django's later errors collected. */
class QueryBuilder<T> {
  readonly deferred: string[] = [];
  private readonly columns = new Map<string, Column<T>>();

  constructor(private readonly terms: FilterTerms<T>) {}

  build(rules: Py, parentOp: string | undefined): Predicate<T> {
    // `_validate_arg` reads the enclosing `op`, bound only after the rule itself was checked: a nested
    // rule that is not a non-empty dict is a NameError there.
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
    if (op === 'or' || op === 'and') {
      validate(args, 'list');
      const parts = (args as Py[]).map((a) => this.build(a, op));
      return op === 'and' ? every(parts) : some(parts);
    }
    if (op === '!') {
      const inner = this.build(args, op);
      return (it) => !inner(it);
    }
    if (op === '!!') return this.build(args, op);
    if (op === 'var') return this.notNull(args);
    if (MODEL_COMPARISONS.has(op) && len(args) === 2) {
      const column = this.term(item(item(args, 0), 'var'));
      return this.compare(column, op as Lookup, item(args, 1));
    }
    if (op === 'in') return this.in(args);
    if (op === '<=' && len(args) === 3) {
      validate(args, 'list');
      const column = this.term(item(item(args, 1), 'var'));
      const [low, , high] = args as Py[];
      const from = this.compare(column, '>=', low as Py);
      const to = this.compare(column, '<=', high as Py);
      return (it) => from(it) && to(it);
    }
    throw invalid(`filter: operation '${op}' with arguments '${pyStr(args)}' is not supported`);
  }

  /** `Q(**{args + "__isnull": False})`: the name is a model field path, not one of the filter's terms. */
  private notNull(args: Py): Predicate<T> {
    if (typeof args !== 'string')
      return uncaught(
        Array.isArray(args)
          ? 'TypeError: can only concatenate list (not "str") to list'
          : `TypeError: unsupported operand type(s) for +: '${typeName(args)}' and 'str'`,
      );
    const column = Object.hasOwn(this.terms, args) ? this.column(args) : undefined;
    if (!column?.modelField) {
      this.deferred.push(`FieldError: Cannot resolve keyword '${args}' into field.`);
      return NOTHING;
    }
    return (it) => column.read(it) !== null;
  }

  /** `field__<lookup>=value`. NULL matches only `== None`; an ordering against None is Django's error. */
  private compare(column: Column<T>, op: Lookup, value: Py): Predicate<T> {
    if (value === null) {
      if (op === '==') return (it) => column.read(it) === null;
      this.deferred.push(NONE_VALUE);
      return NOTHING;
    }
    const prepared = column.prepare(value, op);
    // Chosen: a value Django would refuse to convert (a word for a number column) matches nothing.
    if (prepared === undefined) return NOTHING;
    const test = comparison(op, prepared);
    return (it) => {
      const cell = column.read(it);
      return cell !== null && test(cell);
    };
  }

  /** `in`: `field__in=<list>` when the first argument is a term, else `field__contains=<str(first)>`. */
  private in(args: Py): Predicate<T> {
    const first = item(args, 0);
    if (first instanceof PyDict) {
      const column = this.term(item(first, 'var'));
      const options = this.inOptions(item(args, 1));
      const set = new Set<number | string>();
      for (const option of options) {
        const prepared = column.prepare(option, '==');
        if (prepared === undefined) return NOTHING;
        set.add(prepared);
      }
      return (it) => {
        const cell = column.read(it);
        return cell !== null && set.has(cell);
      };
    }
    const column = this.term(item(item(args, 1), 'var'));
    if (first === null) this.deferred.push(NONE_VALUE);
    const needle = pyStr(first);
    return (it) => column.text(it)?.includes(needle) === true;
  }

  /** The values of `field__in=<v>` (None among them matches nothing); Django iterates what it is given. */
  private inOptions(v: Py): Py[] {
    if (Array.isArray(v)) return v.filter((x) => x !== null);
    if (typeof v === 'string') return [...v];
    if (v instanceof PyDict) return v.entries.map(([k]) => k);
    this.deferred.push(v === null ? NONE_VALUE : `TypeError: '${typeName(v)}' object is not iterable`);
    return [];
  }

  /** A filter term (`lookup_fields[name]`); an unknown one is the FilterParsingError CVAT answers 400. */
  private term(name: Py): Column<T> {
    hashable(name);
    if (typeof name === 'string' && Object.hasOwn(this.terms, name)) return this.column(name);
    throw invalid(`filter: term '${pyStr(name)}' is not supported`);
  }

  private column(name: string): Column<T> {
    let column = this.columns.get(name);
    if (!column) {
      column = columnOf(this.terms[name] as FilterTerms<T>[string]);
      this.columns.set(name, column);
    }
    return column;
  }
}

function every<T>(parts: Predicate<T>[]): Predicate<T> {
  return (it) => {
    for (const p of parts) if (!p(it)) return false;
    return true;
  };
}

function some<T>(parts: Predicate<T>[]): Predicate<T> {
  return (it) => {
    for (const p of parts) if (p(it)) return true;
    return false;
  };
}
