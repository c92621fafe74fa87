import { ApiFailure } from '../domain/errors';
import type { ApiRequest } from './api';
import { checkFilterBounds, checkQueryBounds, searchTerms, sortKeys } from './query-limits';

/**
 * CVAT's `CustomPagination` (DRF PageNumberPagination): `page` (1-based), `page_size` (default 10,
 * `all` for everything, invalid or non-positive → 10). Out-of-range → 404 "Invalid page.".
 * `next`/`previous` are absolute URLs built like DRF's replace_query_param (query keys sorted);
 * `previous` of page 2 drops `page`. A query past the bounds of query-limits.ts is a 400.
 */
export function paginate<T>(r: ApiRequest, items: T[], serialize: (item: T) => unknown) {
  const url = new URL(r.c.req.url);
  checkQueryBounds(url.searchParams);
  const host = r.c.req.header('host') ?? url.host;
  const sizeRaw = url.searchParams.get('page_size');
  let size = 10;
  if (sizeRaw === 'all') size = Math.max(items.length, 1);
  else if (sizeRaw !== null && /^\d+$/.test(sizeRaw) && Number(sizeRaw) > 0) size = Number(sizeRaw);
  const pageRaw = url.searchParams.get('page') ?? '1';
  const pages = Math.max(1, Math.ceil(items.length / size));
  const page = pageRaw === 'last' ? pages : /^\d+$/.test(pageRaw) ? Number(pageRaw) : Number.NaN;
  if (!Number.isInteger(page) || page < 1 || page > pages)
    throw new ApiFailure({ code: 'NOT_FOUND', detail: 'Invalid page.' });
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
  return {
    count: items.length,
    next: page < pages ? link(page + 1) : null,
    previous: page > 1 ? link(page === 2 ? null : page - 1) : null,
    results: items.slice((page - 1) * size, page * size).map(serialize),
  };
}

/** DRF ordering via `sort=a,-b` over the allowed fields (unknown fields ignored); default given. */
export function sortBy<T>(
  items: T[],
  sort: string | undefined,
  fields: Record<string, (item: T) => unknown>,
  fallback: string,
): T[] {
  // Own fields only: `?sort=constructor` names no field (Object's members are not sort keys).
  const keys = sortKeys(sort).filter((s) => Object.hasOwn(fields, s.replace(/^-/, '')));
  const order = keys.length > 0 ? keys : [fallback];
  return [...items].sort((a, b) => {
    for (const key of order) {
      const desc = key.startsWith('-');
      const get = fields[key.replace(/^-/, '')] as (item: T) => unknown;
      const x = get(a);
      const y = get(b);
      if (x === y) continue;
      const cmp =
        x === null || x === undefined
          ? -1
          : y === null || y === undefined
            ? 1
            : (x as number) < (y as number)
              ? -1
              : 1;
      return desc ? -cmp : cmp;
    }
    return 0;
  });
}

/** DRF SearchFilter: terms split on whitespace/commas; each must match one field, case-insensitive. */
export function searchFilter<T>(
  items: T[],
  search: string | undefined,
  fields: ((item: T) => unknown)[],
): T[] {
  const terms = searchTerms(search);
  if (terms.length === 0) return items;
  return items.filter((item) =>
    terms.every((t) =>
      fields.some((f) =>
        String(f(item) ?? '')
          .toLowerCase()
          .includes(t),
      ),
    ),
  );
}

/**
 * CVAT's JsonLogicFilter (`filter=`): `and`, `or`, `!`, `!!`, `var`, `==`, `<`, `<=` (also the
 * 3-argument range), `>`, `>=`, `in`. Errors are 400 bare lists. The text's nesting is measured before
 * it is parsed, so the checks and the evaluation below recurse at most QUERY_LIMITS.filterDepth levels.
 */
export function jsonLogicFilter<T>(
  items: T[],
  filter: string | undefined,
  fields: Record<string, (item: T) => unknown>,
): T[] {
  if (filter === undefined) return items;
  if (filter.trim() === '')
    throw new ApiFailure({ code: 'INVALID_LIST', messages: ["filter shouldn't be empty"] });
  checkFilterBounds(filter);
  let rule: unknown;
  try {
    rule = JSON.parse(filter);
  } catch (err) {
    throw new ApiFailure({
      code: 'INVALID_LIST',
      messages: [`filter: can't parse filter expression: ${(err as Error).message}`],
    });
  }
  const evaluate = (node: unknown, item: T): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((n) => evaluate(n, item));
    const [op, raw] = Object.entries(node as Record<string, unknown>)[0] ?? [];
    const args = Array.isArray(raw) ? raw : [raw];
    const val = (i: number) => evaluate(args[i], item);
    switch (op) {
      case 'var': {
        const getter = Object.hasOwn(fields, String(args[0])) ? fields[String(args[0])] : undefined;
        if (!getter)
          throw new ApiFailure({
            code: 'INVALID_LIST',
            messages: [`filter: term '${String(args[0])}' is not supported`],
          });
        return getter(item);
      }
      case 'and':
        return args.every((_, i) => Boolean(val(i)));
      case 'or':
        return args.some((_, i) => Boolean(val(i)));
      case '!':
        return !val(0);
      case '!!':
        return Boolean(val(0));
      case '==':
        return val(0) === val(1);
      case '<':
        return (val(0) as number) < (val(1) as number);
      case '<=':
        return args.length === 3
          ? (val(0) as number) <= (val(1) as number) && (val(1) as number) <= (val(2) as number)
          : (val(0) as number) <= (val(1) as number);
      case '>':
        return (val(0) as number) > (val(1) as number);
      case '>=':
        return (val(0) as number) >= (val(1) as number);
      case 'in': {
        const hay = val(1);
        return Array.isArray(hay) ? hay.includes(val(0)) : String(hay).includes(String(val(0)));
      }
      default:
        throw new ApiFailure({
          code: 'INVALID_LIST',
          messages: [`filter: term '${String(op)}' is not supported`],
        });
    }
  };
  // The whole expression is translated before any row is read, so a bad term fails even on no rows.
  const OPS = new Set(['var', 'and', 'or', '!', '!!', '==', '<', '<=', '>', '>=', 'in']);
  const check = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) check(n);
      return;
    }
    for (const [op, raw] of Object.entries(node as Record<string, unknown>)) {
      if (!OPS.has(op))
        throw new ApiFailure({ code: 'INVALID_LIST', messages: [`filter: term '${op}' is not supported`] });
      const args = Array.isArray(raw) ? raw : [raw];
      if (op === 'var' && !Object.hasOwn(fields, String(args[0]))) {
        throw new ApiFailure({
          code: 'INVALID_LIST',
          messages: [`filter: term '${String(args[0])}' is not supported`],
        });
      }
      if (op !== 'var') for (const a of args) check(a);
    }
  };
  check(rule);
  return items.filter((item) => Boolean(evaluate(rule, item)));
}
