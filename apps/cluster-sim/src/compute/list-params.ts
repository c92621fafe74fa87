import { fail, ok, type Result } from '../domain/errors';
import type { ComputeError } from './errors';

/**
 * Compute's list parameters: `maxResults` (0 to 500, default 500), `pageToken` (opaque: here the
 * offset of the next page, bound to the filter it was made for), `filter` on `name` and `orderBy`
 * `name` (the order Compute lists in anyway).
 */
export interface ListQuery {
  maxResults?: string;
  pageToken?: string;
  filter?: string;
  orderBy?: string;
}

export interface Page<T> {
  items: T[];
  nextPageToken?: string;
}

const MAX_RESULTS = 500;

type NameTest = (name: string) => boolean;

/** `*` in an `=` value matches any run of characters (Compute's wildcard), the rest literally. */
function wildcard(value: string): RegExp {
  return new RegExp(`^${value.split('*').map(escapeRegExp).join('.*')}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const TERM = /^\(?\s*name\s*(=|!=|\beq\b|\bne\b)\s*(?:"([^"]*)"|'([^']*)'|([^\s()]+))\s*\)?/i;

/**
 * A filter on `name` as Compute takes it: `name = "x"`, `name != x` (with `*` wildcards), `name eq
 * 'regex'` / `name ne 'regex'` (a full match), several terms joined by spaces or `AND`.
 */
function parseFilter(filter: string, method: string): Result<NameTest[], ComputeError> {
  const tests: NameTest[] = [];
  let rest = filter.trim();
  while (rest.length > 0) {
    const m = TERM.exec(rest);
    if (!m) {
      return fail({
        code: 'COMPUTE_NOT_SIMULATED',
        method,
        what: `The filter '${filter}' (only name is filtered on)`,
      });
    }
    const op = (m[1] as string).toLowerCase();
    const value = m[2] ?? m[3] ?? m[4] ?? '';
    // Compute matches with RE2 (linear time); JavaScript's engine backtracks, and a repeated group
    // (`(a+)+`) over a long name would hold the process for minutes. Refused rather than run.
    if ((op === 'eq' || op === 'ne') && /\)\s*[+*{]/.test(value)) {
      return fail({
        code: 'COMPUTE_NOT_SIMULATED',
        method,
        what: `The filter '${filter}' (a repeated group in a regular expression)`,
      });
    }
    let re: RegExp;
    try {
      re = op === 'eq' || op === 'ne' ? new RegExp(`^(?:${value})$`) : wildcard(value);
    } catch {
      return fail({
        code: 'COMPUTE_INVALID',
        message: `Invalid value for field 'filter': '${filter}'. Invalid list filter expression.`,
      });
    }
    const negate = op === '!=' || op === 'ne';
    tests.push((name) => re.test(name) !== negate);
    rest = rest
      .slice(m[0].length)
      .trim()
      .replace(/^AND\s+/i, '');
  }
  return ok(tests);
}

function tokenOf(offset: number, filter: string): string {
  return Buffer.from(JSON.stringify([offset, filter])).toString('base64url');
}

function offsetOf(token: string, filter: string): number | undefined {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && Number.isInteger(v[0]) && v[0] >= 0 && v[1] === filter) return v[0] as number;
  } catch {
    // not one of ours
  }
  return undefined;
}

/** One page of `all` (already in Compute's order) under the request's list parameters. */
export function pageOf<T>(
  all: readonly T[],
  nameOf: (item: T) => string,
  q: ListQuery,
  method: string,
): Result<Page<T>, ComputeError> {
  let max = MAX_RESULTS;
  if (q.maxResults !== undefined && q.maxResults !== '') {
    const n = Number(q.maxResults);
    if (!/^\d+$/.test(q.maxResults) || !Number.isSafeInteger(n)) {
      return fail({
        code: 'COMPUTE_INVALID',
        message: `Invalid value for field 'maxResults': '${q.maxResults}'. Must be a valid unsigned integer.`,
      });
    }
    if (n > MAX_RESULTS) {
      return fail({
        code: 'COMPUTE_INVALID',
        message: `Invalid value for field 'maxResults': '${n}'. Must be less than or equal to ${MAX_RESULTS}`,
      });
    }
    max = n === 0 ? MAX_RESULTS : n;
  }
  if (q.orderBy !== undefined && q.orderBy !== '' && q.orderBy.trim() !== 'name') {
    return fail({ code: 'COMPUTE_NOT_SIMULATED', method, what: `orderBy '${q.orderBy}'` });
  }
  const filter = q.filter ?? '';
  const tests = parseFilter(filter, method);
  if (!tests.ok) return tests;
  let start = 0;
  if (q.pageToken) {
    const offset = offsetOf(q.pageToken, filter);
    if (offset === undefined) {
      return fail({
        code: 'COMPUTE_INVALID',
        message: `Invalid value for field 'pageToken': '${q.pageToken}'. Invalid page token.`,
      });
    }
    start = offset;
  }
  const matching = all.filter((item) => tests.value.every((t) => t(nameOf(item))));
  const items = matching.slice(start, start + max);
  const next = start + max;
  return ok(next < matching.length ? { items, nextPageToken: tokenOf(next, filter) } : { items });
}
