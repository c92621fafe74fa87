import { formatPyDateTime, parseIsoDateTime } from '../domain/events/time';
import { type PythonJson as Py, PyFloat, PyInt } from '../domain/python-json';
import { codePointOrder, pyStr } from './json-logic-python';

/**
 * The columns that CVAT's JSON Logic terms end at, and how the database compares a filter value with
 * one. Django converts the value once, with the `get_prep_value` of the field the lookup ends at
 * (`lookup_fields`: `owner` → `owner__username`, a text column). So a term's column type decides the
 * comparison, not the value's JSON type. The conversion is made once per rule, not once per row.
 */

/**
 * The Django field that a term's lookup ends at:
 * - `int`: an IntegerField or AutoField (`id`, `frame`, `job__segment__task__id`). Its `gte` and `lt`
 *   round a float up (Django's IntegerFieldFloatRounding), and the other lookups truncate it (`int()`).
 * - `fk`: a ForeignKey's column (`project_id`, `segment__task_id`). It truncates every float.
 * - `str`: a CharField or TextField. Any value is compared as its `str()` (`1` → `'1'`).
 * - `bool`: a BooleanField. It takes `true`/`false`, `1`/`0` and `'t'`, `'True'`, `'1'`, `'f'`,
 *   `'False'`, `'0'`.
 * - `datetime`: a DateTimeField. It takes ISO-8601 text as Django's `parse_datetime` reads it. A time
 *   without an offset is UTC (CVAT's `TIME_ZONE`). A date alone means its midnight.
 */
type ColumnType = 'int' | 'fk' | 'str' | 'bool' | 'datetime';

/** One of a list view's filter terms (CVAT's `filter_fields`, read through its `lookup_fields`). */
export interface FilterTerm<T> {
  type: ColumnType;
  /** The row's value: null (or undefined) for SQL NULL, e.g. a task without a project. */
  get: (item: T) => unknown;
  /**
   * The term is also a field of the model (`owner`, `project_id`; not `project_name`). Only then does
   * `{"var": term}` as a rule resolve: CVAT builds `Q(term__isnull=False)` from the model's own fields.
   */
  modelField?: boolean;
}

/** A list view's filter terms by name. */
export type FilterTerms<T> = Readonly<Record<string, FilterTerm<T>>>;

/** The comparisons of `_build_Q` (`==` exact, `<` lt, `<=` lte, `>` gt, `>=` gte). */
export type Lookup = '==' | '<' | '<=' | '>' | '>=';

/**
 * A value as the database compares it. Numbers are used for `int`, `fk`, `bool` (0 and 1) and
 * `datetime` (epoch µs). Text is used for `str`, in code-point order.
 */
type Cell = number | string;

/** A term's column, read from rows and given filter values. */
export interface Column<T> {
  /** The row's value, or null for NULL. */
  read: (item: T) => Cell | null;
  /** The value as PostgreSQL's `::text` writes it, which is what `__contains` searches in. */
  text: (item: T) => string | null;
  /** The filter value as Django prepares it for `lookup`, or undefined where Django would raise. */
  prepare: (value: Py, lookup: Lookup) => Cell | undefined;
  /** Whether `{"var": name}` resolves to this column. */
  modelField: boolean;
}

/** A term's column. A datetime column parses each distinct stored text once per rule. */
export function columnOf<T>(term: FilterTerm<T>): Column<T> {
  const modelField = term.modelField === true;
  const get = term.get;
  switch (term.type) {
    case 'int':
    case 'fk': {
      const roundsUp = term.type === 'int';
      const read = (it: T) => {
        const v = get(it);
        return typeof v === 'number' ? v : null;
      };
      return {
        read,
        text: (it) => nullable(read(it), String),
        prepare: (value, lookup) => pyInt(value, roundsUp && (lookup === '>=' || lookup === '<')),
        modelField,
      };
    }
    case 'bool': {
      const read = (it: T) => {
        const v = get(it);
        return v === true ? 1 : v === false ? 0 : null;
      };
      return {
        read,
        text: (it) => nullable(read(it), (v) => (v === 1 ? 'true' : 'false')),
        prepare: pyBool,
        modelField,
      };
    }
    case 'str': {
      const read = (it: T) => {
        const v = get(it);
        return v === null || v === undefined ? null : String(v);
      };
      return { read, text: read, prepare: pyStr, modelField };
    }
    case 'datetime': {
      const parsed = new Map<string, number | null>();
      const read = (it: T) => {
        const v = get(it);
        if (typeof v !== 'string') return null;
        let us = parsed.get(v);
        if (us === undefined) {
          us = parseIsoDateTime(v) ?? null;
          parsed.set(v, us);
        }
        return us;
      };
      return {
        read,
        text: (it) => nullable(read(it), postgresTimestamp),
        prepare: (value) => (typeof value === 'string' ? parseIsoDateTime(value) : undefined),
        modelField,
      };
    }
  }
}

/**
 * The sort keys of a view's terms (CVAT's `ordering_fields` are its `filter_fields`): each term's value
 * as it is stored, except a datetime, which is compared as the instant it names (the text of a time
 * with a fraction would sort before the same second without one).
 */
export function orderingOf<T>(terms: FilterTerms<T>): Record<string, (item: T) => unknown> {
  const keys: Record<string, (item: T) => unknown> = {};
  for (const [name, term] of Object.entries(terms))
    keys[name] = term.type === 'datetime' ? columnOf(term).read : term.get;
  return keys;
}

const nullable = <A, B>(v: A | null, f: (v: A) => B): B | null => (v === null ? null : f(v));

/**
 * Python's `int(value)`, as IntegerField's `get_prep_value` calls it. A float is truncated, or rounded
 * up when `ceil` is set. Text of digits is read, with spaces around it and `_` between digits allowed.
 * `inf`, `nan`, other text, lists and dicts are refused: Django raises there.
 */
function pyInt(value: Py, ceil: boolean): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof PyInt) return Number(value.digits);
  if (value instanceof PyFloat) {
    if (!Number.isFinite(value.value)) return undefined;
    return ceil ? Math.ceil(value.value) : Math.trunc(value.value);
  }
  if (typeof value === 'string' && /^\s*[-+]?\d+(?:_\d+)*\s*$/.test(value))
    return Number(value.replace(/_/g, ''));
  return undefined;
}

/**
 * BooleanField's `to_python`. Values equal to True or False (`1`, `0`, `1.0`) count, and so do the
 * texts `t`, `True`, `1`, `f`, `False` and `0`. Anything else is refused.
 */
function pyBool(value: Py): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  const n =
    value instanceof PyInt ? Number(value.digits) : value instanceof PyFloat ? value.value : undefined;
  if (n === 0 || n === 1) return n;
  if (value === 't' || value === 'True' || value === '1') return 1;
  if (value === 'f' || value === 'False' || value === '0') return 0;
  return undefined;
}

/** PostgreSQL's text of a UTC `timestamptz`, such as `2026-08-12 10:00:00.41+00`. */
function postgresTimestamp(us: number): string {
  // Python's `2026-08-12 10:00:00.410000+00:00`. PostgreSQL drops the fraction's trailing zeros, and
  // writes the offset as `+00`.
  const py = formatPyDateTime(us);
  const [time, fraction = ''] = py.slice(0, -'+00:00'.length).split('.');
  const digits = fraction.replace(/0+$/, '');
  return `${time}${digits ? `.${digits}` : ''}+00`;
}

/** The test `row <op> value`, made once per comparison of a rule. */
export function comparison(op: Lookup, value: Cell): (cell: Cell) => boolean {
  if (typeof value === 'string') {
    if (op === '==') return (cell) => cell === value;
    const order = (cell: Cell) => codePointOrder(cell as string, value);
    if (op === '<') return (cell) => order(cell) < 0;
    if (op === '<=') return (cell) => order(cell) <= 0;
    if (op === '>') return (cell) => order(cell) > 0;
    return (cell) => order(cell) >= 0;
  }
  // A column's cells are all numbers when the prepared value is one (columnOf reads them so).
  if (op === '==') return (cell) => cell === value;
  if (op === '<') return (cell) => (cell as number) < value;
  if (op === '<=') return (cell) => (cell as number) <= value;
  if (op === '>') return (cell) => (cell as number) > value;
  return (cell) => (cell as number) >= value;
}
