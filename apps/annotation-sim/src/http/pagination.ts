import { fail, ok, type Result } from '../domain/errors';
import type { ApiRequest } from './api';
import { codePointOrder } from './json-logic-python';
import { checkQueryBounds, searchTerms, sortKeys } from './query-limits';
import { queryValue } from './query-values';
import { cvatJson, renderApiError } from './respond';

/**
 * The list query within the bounds of query-limits.ts, else a 400. A list view calls it before it reads
 * any query value (simple filters, `search`, `sort`, `filter`), so which bound a query breaks decides
 * the answer, not the order of those readers. `paginate` checks again for views that do not.
 */
export function checkListQuery(r: ApiRequest): Result<void> {
  return checkQueryBounds(new URL(r.c.req.url).searchParams);
}

/** A page of a list, as CVAT's `CustomPagination` answers it. */
interface Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: unknown[];
}

/**
 * CVAT's `CustomPagination` (DRF PageNumberPagination): `page` (1-based), `page_size` (default 10,
 * `all` for everything, invalid or non-positive → 10). Out-of-range → 404 "Invalid page.".
 * `next`/`previous` are absolute URLs built like DRF's replace_query_param (query keys sorted);
 * `previous` of page 2 drops `page`. A query past the bounds of query-limits.ts is a 400.
 */
function paginate<T>(r: ApiRequest, items: T[], serialize: (item: T) => unknown): Result<Page> {
  const url = new URL(r.c.req.url);
  const bounded = checkQueryBounds(url.searchParams);
  if (!bounded.ok) return bounded;
  const host = r.c.req.header('host') ?? url.host;
  // `query_params[...]` and `.get(...)`: the last of repeated values (`?page_size=1&page_size=5` is 5).
  const sizeRaw = queryValue(url.searchParams, 'page_size');
  let size = 10;
  if (sizeRaw === 'all') size = Math.max(items.length, 1);
  else if (sizeRaw !== undefined && /^\d+$/.test(sizeRaw) && Number(sizeRaw) > 0) size = Number(sizeRaw);
  const pageRaw = queryValue(url.searchParams, 'page') ?? '1';
  const pages = Math.max(1, Math.ceil(items.length / size));
  const page = pageRaw === 'last' ? pages : /^\d+$/.test(pageRaw) ? Number(pageRaw) : Number.NaN;
  if (!Number.isInteger(page) || page < 1 || page > pages)
    return fail({ code: 'NOT_FOUND', detail: 'Invalid page.' });
  const link = (p: number | null) => {
    const params = new Map<string, string[]>();
    for (const [k, v] of url.searchParams) {
      const values = params.get(k);
      if (values) values.push(v);
      else params.set(k, [v]);
    }
    if (p === null) params.delete('page');
    else params.set('page', [String(p)]);
    const qs = [...params.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([k, vs]) => vs.map((v) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`))
      .join('&');
    return `${url.protocol}//${host}${url.pathname}${qs ? `?${qs}` : ''}`;
  };
  return ok({
    count: items.length,
    next: page < pages ? link(page + 1) : null,
    previous: page > 1 ? link(page === 2 ? null : page - 1) : null,
    results: items.slice((page - 1) * size, page * size).map(serialize),
  });
}

/** The page of `items` the query asks for, answered (or its 400/404). */
export function pageAnswer<T>(r: ApiRequest, items: T[], serialize: (item: T) => unknown): Response {
  const page = paginate(r, items, serialize);
  return page.ok ? cvatJson(r.c, page.value) : renderApiError(r.c, page.error);
}

/**
 * DRF ordering via `sort=a,-b` over the allowed fields (unknown fields ignored); default given. CVAT
 * sorts in PostgreSQL, and Django's `order_by` leaves NULL where PostgreSQL puts it: after every value
 * ascending (`NULLS LAST`), before every value descending (`NULLS FIRST`). Text is in code-point order.
 */
export function sortBy<T>(
  items: T[],
  sort: string | undefined,
  fields: Record<string, (item: T) => unknown>,
  fallback: string,
): Result<T[]> {
  const sorted = sortKeys(sort);
  if (!sorted.ok) return sorted;
  // Own fields only: `?sort=constructor` names no field (Object's members are not sort keys).
  const keys = sorted.value.filter((s) => Object.hasOwn(fields, s.replace(/^-/, '')));
  const order = (keys.length > 0 ? keys : [fallback]).map((key) => ({
    desc: key.startsWith('-'),
    get: fields[key.replace(/^-/, '')] as (item: T) => unknown,
  }));
  return ok(
    [...items].sort((a, b) => {
      for (const { desc, get } of order) {
        const cmp = ascending(get(a), get(b));
        if (cmp !== 0) return desc ? -cmp : cmp;
      }
      return 0;
    }),
  );
}

/** PostgreSQL's ascending order of two values of one column, NULL (or undefined) the largest. */
function ascending(x: unknown, y: unknown): number {
  const xNull = x === null || x === undefined;
  const yNull = y === null || y === undefined;
  if (xNull || yNull) return xNull === yNull ? 0 : xNull ? 1 : -1;
  if (typeof x === 'string' && typeof y === 'string') return Math.sign(codePointOrder(x, y));
  return x === y ? 0 : (x as number) < (y as number) ? -1 : 1;
}

/** DRF SearchFilter: terms split on whitespace/commas; each must match one field, case-insensitive. */
export function searchFilter<T>(
  items: T[],
  search: string | undefined,
  fields: ((item: T) => unknown)[],
): Result<T[]> {
  const parsed = searchTerms(search);
  if (!parsed.ok) return parsed;
  const terms = parsed.value;
  if (terms.length === 0) return ok(items);
  return ok(
    items.filter((item) =>
      terms.every((t) =>
        fields.some((f) =>
          String(f(item) ?? '')
            .toLowerCase()
            .includes(t),
        ),
      ),
    ),
  );
}
