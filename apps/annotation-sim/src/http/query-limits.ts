import { measureJson } from '@sims/sim-core';
import { fail, ok, type Result } from '../domain/errors';

/**
 * Bounds on the query of a list view, so that what it costs a row to answer is bounded: a row is read
 * once per `search` term and once per value of the `filter` at most, whatever the query string.
 *
 * CVAT has none of its own: it turns Django's DATA_UPLOAD_MAX_NUMBER_FIELDS off, and a JSON Logic
 * `filter` nested past Python's recursion limit (~1,000 levels) ends in a RecursionError, a 500. Over a
 * socket Node refuses a request head over 16 KiB (431) before the simulator sees it; these bounds hold
 * for everything below that and for in-process requests (`app.request`), which have no such limit. Each
 * refusal is a 400 bare list, as DRF renders a ValidationError raised by a filter backend (the texts
 * are the simulator's own: FIDELITY.md).
 */
export const QUERY_LIMITS = {
  /** Characters of one query value, after percent-decoding. */
  valueChars: 8192,
  /** Query parameters of one request, repeats counted. */
  params: 1000,
  /** Nesting of a JSON Logic `filter`: arrays and objects, `{"!":[…]}` being two levels. */
  filterDepth: 100,
  /**
   * Values of a JSON Logic `filter` (objects, arrays, member names, strings, numbers, literals: 7 in
   * `{"==":[{"var":"id"},1]}`). A row costs at most one step for each (json-logic-filter.ts), so this
   * bounds a row's cost: 1,000 allow 140 comparisons, or `in` with a list of 990 ids.
   */
  filterValues: 1000,
  /** Distinct `search` terms. */
  searchTerms: 100,
} as const;

const refuse = (message: string): Result<never> => fail({ code: 'INVALID_LIST', messages: [message] });

/** The value as given, or a 400 when it is longer than a query value may be. */
function boundedValue(name: string, value: string | undefined): Result<string | undefined> {
  if (value !== undefined && value.length > QUERY_LIMITS.valueChars) {
    return refuse(`${name}: values longer than ${QUERY_LIMITS.valueChars} characters are not supported`);
  }
  return ok(value);
}

/** Every parameter of the query within the bounds (count and each name and value), else a 400. */
export function checkQueryBounds(params: URLSearchParams): Result<void> {
  let count = 0;
  for (const [name, value] of params) {
    count++;
    if (count > QUERY_LIMITS.params) {
      return refuse(`query: more than ${QUERY_LIMITS.params} parameters are not supported`);
    }
    if (name.length > QUERY_LIMITS.valueChars) {
      return refuse(`query: names longer than ${QUERY_LIMITS.valueChars} characters are not supported`);
    }
    const bounded = boundedValue(name, value);
    if (!bounded.ok) return bounded;
  }
  return ok(undefined);
}

/**
 * A JSON Logic `filter` within its bounds (length, then nesting, then values), else a 400. The text is
 * measured in one pass before it is parsed, without recursion; brackets inside strings are not counted.
 * Malformed text is measured as far as it goes (the parser says the rest).
 */
export function checkFilterBounds(filter: string): Result<void> {
  const bounded = boundedValue('filter', filter);
  if (!bounded.ok) return bounded;
  // Within valueChars, so measured whole: the depth is reported before the values, whichever binds.
  const { depth, values } = measureJson(filter, QUERY_LIMITS.valueChars);
  if (depth > QUERY_LIMITS.filterDepth) {
    return refuse(`filter: nesting deeper than ${QUERY_LIMITS.filterDepth} levels is not supported`);
  }
  if (values > QUERY_LIMITS.filterValues) {
    return refuse(`filter: more than ${QUERY_LIMITS.filterValues} values are not supported`);
  }
  return ok(undefined);
}

/** `search` terms, deduplicated (each must match anyway), within their bound, else a 400. */
export function searchTerms(search: string | undefined): Result<string[]> {
  const bounded = boundedValue('search', search);
  if (!bounded.ok) return bounded;
  const terms = [
    ...new Set(
      (search ?? '')
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((t) => t.toLowerCase()),
    ),
  ];
  if (terms.length > QUERY_LIMITS.searchTerms) {
    return refuse(`search: more than ${QUERY_LIMITS.searchTerms} terms are not supported`);
  }
  return ok(terms);
}

/**
 * `sort` keys in order, each field once (a later key on a field already sorted by never decides), within
 * the value's bound, else a 400.
 */
export function sortKeys(sort: string | undefined): Result<string[]> {
  const bounded = boundedValue('sort', sort);
  if (!bounded.ok) return bounded;
  const seen = new Set<string>();
  const keys: string[] = [];
  for (const raw of (sort ?? '').split(',')) {
    const key = raw.trim();
    const field = key.replace(/^-/, '');
    if (key === '' || seen.has(field)) continue;
    seen.add(field);
    keys.push(key);
  }
  return ok(keys);
}
