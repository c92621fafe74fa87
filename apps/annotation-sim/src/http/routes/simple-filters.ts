import { fail, ok, type Result } from '../../domain/errors';
import { PyInt, type PythonJson } from '../../domain/python-json';
import type { AnnotationState } from '../../domain/state';
import { columnOf, type FilterTerms } from '../json-logic-columns';

/**
 * CVAT's plain query filters (`SimpleFilter`, a django-filter `DjangoFilterBackend` over each view's
 * `simple_filters`, read through its `lookup_fields`). django-filter makes one form field per filter
 * from the model field the lookup ends at, validates the whole query as a Django form, and filters with
 * `<lookup>__exact=<cleaned value>`. A value a field refuses is DRF's 400 `{"<name>": ["<Django's
 * message>"]}`, every refused filter of the query in one body; an empty value filters nothing. Names
 * the view does not declare are not read at all (django-filter ignores them), so neither are they here.
 */

/** The django-filter class of a filter, as `FILTER_FOR_DBFIELD_DEFAULTS` picks it from the model field. */
export type FilterClass =
  /** CharFilter (CharField, TextField): `forms.CharField`, stripped; NUL refused. */
  | { kind: 'char' }
  /** ChoiceFilter (a field with `choices`): `forms.ChoiceField`, the value as given. */
  | { kind: 'choice'; choices: readonly string[] }
  /** NumberFilter (AutoField, IntegerField): `forms.DecimalField` up to 1e50, truncated by `int()`. */
  | { kind: 'number' }
  /** ModelChoiceFilter (ForeignKey): `forms.ModelChoiceField`, the pk of an existing row of `table`. */
  | { kind: 'model'; table: (s: AnnotationState) => ReadonlyMap<number, unknown> }
  /** BooleanFilter (BooleanField): `forms.NullBooleanField` behind a `NullBooleanSelect`. */
  | { kind: 'bool' };

/**
 * A view's simple filters in the order CVAT declares them (the order of the fields of its 400), each
 * the name of one of the view's filter terms, whose column the cleaned value is compared with.
 */
export type SimpleFilters = readonly (readonly [name: string, filter: FilterClass])[];

export const CHAR: FilterClass = { kind: 'char' };
export const NUMBER: FilterClass = { kind: 'number' };
export const BOOL: FilterClass = { kind: 'bool' };
export const choice = (...choices: string[]): FilterClass => ({ kind: 'choice', choices });
export const model = (table: (s: AnnotationState) => ReadonlyMap<number, unknown>): FilterClass => ({
  kind: 'model',
  table,
});

/** The `type` (and `enum`) CVAT's schema gives a simple filter's query parameter. */
export function filterSchema(filter: FilterClass): { type: string; enum?: string[] } {
  switch (filter.kind) {
    case 'char':
      return { type: 'string' };
    case 'choice':
      return { type: 'string', enum: [...filter.choices] };
    case 'bool':
      return { type: 'boolean' };
    default:
      return { type: 'integer' };
  }
}

/** A cleaned value (as a JSON Logic value, so the term's column converts it), none, or Django's error. */
type Cleaned = { value: PythonJson } | { none: true } | { error: string };

const NONE: Cleaned = { none: true };

/** What Python's `str.strip()` removes (`str.isspace`). */
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
/** What `int()` skips around digits: the same, less the separators U+001C to U+001F. */
const INT_STRIP =
  /^[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

const INVALID_MODEL_CHOICE = 'Select a valid choice. That choice is not one of the available choices.';

/** One filter's query value cleaned as its form field cleans it (`raw` undefined: not in the query). */
function clean(filter: FilterClass, raw: string | undefined, state: AnnotationState): Cleaned {
  switch (filter.kind) {
    case 'char': {
      const value = (raw ?? '').replace(PY_STRIP, '');
      if (value === '') return NONE;
      return value.includes('\0') ? { error: 'Null characters are not allowed.' } : { value };
    }
    case 'choice': {
      if (raw === undefined || raw === '') return NONE;
      return filter.choices.includes(raw)
        ? { value: raw }
        : { error: `Select a valid choice. ${raw} is not one of the available choices.` };
    }
    case 'bool': {
      // NullBooleanSelect.value_from_datadict: any other text (`1`, `0`, `yes`) is None, no filter.
      if (raw === 'true' || raw === 'True' || raw === '2') return { value: true };
      if (raw === 'false' || raw === 'False' || raw === '3') return { value: false };
      return NONE;
    }
    case 'number':
      return raw === undefined || raw === '' ? NONE : decimalFilterValue(raw);
    case 'model': {
      if (raw === undefined || raw === '') return NONE;
      // `queryset.get(pk=value)`: the AutoField's `int(value)`, then the row must exist (in any
      // organization: the queryset is the related model's whole table).
      const text = raw.replace(INT_STRIP, '');
      const id = /^[+-]?\d(?:_?\d)*$/.test(text) ? Number(text.replace(/_/g, '')) : Number.NaN;
      return Number.isSafeInteger(id) && filter.table(state).has(id)
        ? { value: new PyInt(String(id)) }
        : { error: INVALID_MODEL_CHOICE };
    }
  }
}

/**
 * `forms.DecimalField` with django-filter's `MaxValueValidator(1e50)`, then the integer column's `int()`
 * (truncated toward zero). Python's `Decimal` skips whitespace and every `_`; only ASCII digits are read
 * here (Python also reads other scripts' digits). A value no row can hold (past 2^53) matches nothing.
 */
function decimalFilterValue(raw: string): Cleaned {
  const text = raw.replace(PY_STRIP, '').replace(/_/g, '');
  const m = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return { error: 'Enter a number.' };
  const [, sign, whole = '', fraction = '', bare = '', exponent = '0'] = m;
  const fractionDigits = bare || fraction;
  const mantissa = `${whole}${fractionDigits}`.replace(/^0+/, '');
  const shift = Number(exponent) - fractionDigits.length;
  // The integer part's digits: none below 1, too many above any id (and 1e50).
  const width = mantissa.length + shift;
  if (mantissa === '' || width <= 0) return { value: new PyInt('0') };
  if (width > 60)
    return sign === '-'
      ? { value: new PyInt(`-${'9'.repeat(60)}`) }
      : { error: 'Ensure this value is less than or equal to 1e+50.' };
  const digits = shift >= 0 ? mantissa + '0'.repeat(shift) : mantissa.slice(0, width);
  if (sign !== '-' && Number(digits) > 1e50)
    return { error: 'Ensure this value is less than or equal to 1e+50.' };
  return { value: new PyInt(`${sign === '-' ? '-' : ''}${digits}`) };
}

/**
 * The items the view's simple filters keep: each filter's query value (its last, `QueryDict.get`) is
 * cleaned, then compared with its term's column as the database compares `<column> = <value>` (a NULL
 * column matches nothing). Any refused value is a 400 naming every refused filter, before any row is
 * read.
 */
export function applySimpleFilters<T>(
  items: T[],
  query: (name: string) => string | undefined,
  filters: SimpleFilters,
  terms: FilterTerms<T>,
  state: AnnotationState,
): Result<T[]> {
  const errors: Record<string, string[]> = {};
  const tests: ((item: T) => boolean)[] = [];
  for (const [name, filter] of filters) {
    const cleaned = clean(filter, query(name), state);
    if ('error' in cleaned) errors[name] = [cleaned.error];
    if (!('value' in cleaned)) continue;
    const term = terms[name];
    if (!term) throw new Error(`simple filter ${name} has no filter term`);
    const column = columnOf(term);
    const wanted = column.prepare(cleaned.value, '==');
    tests.push((item) => wanted !== undefined && column.read(item) === wanted);
  }
  if (Object.keys(errors).length > 0) return fail({ code: 'INVALID', errors });
  return ok(tests.length === 0 ? items : items.filter((item) => tests.every((test) => test(item))));
}
