/**
 * Hostile query strings for a list route, derived from the query parameters its OpenAPI operation
 * declares: deep JSON Logic in a `filter`, long and garbage `sort` keys, huge `search` strings, huge
 * numbers in integer parameters (paging), values past any sane length, and parameters repeated a
 * thousand times and more. Two forms: an arbitrary for the random campaign, and a fixed sweep (every
 * kind once per route) for the CI test that every list route answers them as its API would.
 */
import fc from 'fast-check';
import type { FuzzRequest } from './http';
import type { Operation, QueryParam } from './openapi';

type Query = FuzzRequest['query'];

/** What a hostile query is, for the findings file and the sweep's coverage. */
type HostileQueryKind =
  | 'deep filter'
  | 'garbage sort'
  | 'huge search'
  | 'huge number'
  | 'long value'
  | 'repeated parameter'
  | 'every parameter at once';

interface HostileQuery {
  kind: HostileQueryKind;
  query: Query;
}

/** A GET whose operation declares query parameters and whose operationId names a list. */
export function isListRoute(op: Operation): boolean {
  return op.method === 'GET' && op.query.length > 0 && /(^|[._])list($|[._])/.test(op.id);
}

const SORT_NAMES = new Set(['sort', 'ordering', 'orderBy', 'order_by']);
const SEARCH_NAMES = new Set(['search', 'q', 'query']);

const isInteger = (p: QueryParam) => p.schema.type === 'integer' || p.schema.type === 'number';

// --- values ------------------------------------------------------------------------------------------

/** JSON Logic nested `depth` levels in one of four shapes, built without recursion. */
function deepJsonLogic(depth: number, style: 'array' | 'not' | 'and' | 'or'): string {
  const [open, inner, close] = {
    array: ['[', '', ']'],
    not: ['{"!":', '{"var":"id"}', '}'],
    and: ['{"and":[', 'true', ']}'],
    or: ['{"or":[{"==":[{"var":"id"},1]},', '{"var":"id"}', ']}'],
  }[style] as [string, string, string];
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

/** `sort` values: garbage and prototype keys, a key repeated thousands of times, one very long key. */
function garbageSorts(fieldHint: string): string[] {
  return [
    '__proto__,constructor,-,--id,,,,-,toString,hasOwnProperty',
    Array(3000).fill(`-${fieldHint}`).join(','),
    `${fieldHint},${'x'.repeat(9000)}`,
    ','.repeat(5000),
  ];
}

/** `search` values: one huge term, thousands of distinct terms, a flood of separators. */
function hugeSearches(): string[] {
  return [
    'a'.repeat(8193),
    Array.from({ length: 3000 }, (_, i) => `t${i}`).join(' '),
    ' ,'.repeat(6000),
    '🙂'.repeat(5000),
  ];
}

/** Numbers for integer parameters (paging): 9,000 digits, past a double, past uint64 (the sweep's three), … */
const HUGE_NUMBERS = [
  '9'.repeat(9000),
  '1e400',
  '18446744073709551616',
  '9'.repeat(400),
  '-9223372036854775809',
  '-0',
  '0x7fffffff',
];

/** Long values for any parameter: just past 8 KiB, 20,000 characters, percent-heavy. */
const LONG_VALUES = ['x'.repeat(8193), 'é'.repeat(20_000), '%'.repeat(9000)];

// --- the fixed sweep ---------------------------------------------------------------------------------

/**
 * Every kind of hostile query that applies to a route's declared parameters, each value once: what a
 * CI test sends to every list route (a few dozen requests per route).
 */
function hostileQueries(params: readonly QueryParam[]): HostileQuery[] {
  const out: HostileQuery[] = [];
  const one = (kind: HostileQueryKind, name: string, value: string) =>
    out.push({ kind, query: [{ name, value }] });
  for (const p of params) {
    if (p.name === 'filter') {
      for (const [depth, style] of [
        [4000, 'array'],
        [150, 'not'],
        [1300, 'and'],
        [300, 'or'],
      ] as const) {
        one('deep filter', p.name, deepJsonLogic(depth, style));
      }
    } else if (SORT_NAMES.has(p.name)) {
      for (const v of garbageSorts('id')) one('garbage sort', p.name, v);
    } else if (SEARCH_NAMES.has(p.name)) {
      for (const v of hugeSearches()) one('huge search', p.name, v);
    } else if (isInteger(p)) {
      for (const v of HUGE_NUMBERS.slice(0, 3)) one('huge number', p.name, v);
    } else {
      one('long value', p.name, LONG_VALUES[out.length % LONG_VALUES.length] as string);
    }
  }
  const first = params[0];
  if (first) {
    for (const n of [1001, 5000]) {
      out.push({ kind: 'repeated parameter', query: Array(n).fill({ name: first.name, value: '1' }) });
    }
  }
  if (params.length > 1) {
    out.push({
      kind: 'every parameter at once',
      query: params.map((p) => ({
        name: p.name,
        value: p.name === 'filter' ? deepJsonLogic(200, 'array') : 'y'.repeat(4000),
      })),
    });
  }
  return out;
}

// --- the random campaign -----------------------------------------------------------------------------

function valueArb(p: QueryParam): fc.Arbitrary<{ value: string; kind: HostileQueryKind }> {
  const tag = (kind: HostileQueryKind) => (value: string) => ({ value, kind });
  if (p.name === 'filter') {
    return fc
      .record({
        depth: fc.oneof(fc.integer({ min: 50, max: 150 }), fc.integer({ min: 1000, max: 5000 })),
        style: fc.constantFrom<'array' | 'not' | 'and' | 'or'>('array', 'not', 'and', 'or'),
      })
      .map(({ depth, style }) => deepJsonLogic(depth, style))
      .map(tag('deep filter'));
  }
  if (SORT_NAMES.has(p.name)) {
    return fc
      .oneof(
        fc.constantFrom(...garbageSorts('id'), ...garbageSorts('name')),
        fc
          .tuple(
            fc.constantFrom('id', '-id', 'name', '-created_date', 'x'),
            fc.integer({ min: 2, max: 4000 }),
          )
          .map(([key, n]) => Array(n).fill(key).join(',')),
      )
      .map(tag('garbage sort'));
  }
  if (SEARCH_NAMES.has(p.name)) {
    return fc
      .oneof(
        fc.constantFrom(...hugeSearches()),
        fc.integer({ min: 90, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => `w${i}`).join(',')),
      )
      .map(tag('huge search'));
  }
  if (isInteger(p)) {
    return fc
      .oneof(
        fc.constantFrom(...HUGE_NUMBERS),
        fc.integer({ min: 17, max: 9000 }).map((n) => '9'.repeat(n)),
      )
      .map(tag('huge number'));
  }
  return fc
    .oneof(
      fc.constantFrom(...LONG_VALUES),
      fc
        .tuple(fc.integer({ min: 8000, max: 8400 }), fc.constantFrom('x', '🙂', '%', '&', '='))
        .map(([n, u]) => u.repeat(n)),
    )
    .map(tag('long value'));
}

/**
 * One to three of the route's declared parameters with hostile values of their kind, now and then one of
 * them repeated up to 2,000 times.
 */
export function hostileQueryArb(
  params: readonly QueryParam[],
): fc.Arbitrary<{ query: Query; tags: string[] }> {
  const entry = fc
    .constantFrom(...params)
    .chain((p) => valueArb(p).map(({ value, kind }) => ({ item: { name: p.name, value }, kind })));
  const repeated = fc
    .tuple(
      fc.constantFrom(...params),
      fc.oneof(fc.integer({ min: 2, max: 50 }), fc.integer({ min: 990, max: 2000 })),
    )
    .map(([p, n]) => ({
      items: Array(n).fill({ name: p.name, value: '1' }) as Query,
      kind: 'repeated parameter' as HostileQueryKind,
    }));
  return fc
    .tuple(fc.array(entry, { minLength: 1, maxLength: 3 }), fc.option(repeated, { freq: 4 }))
    .map(([entries, rep]) => ({
      query: [...entries.map((e) => e.item), ...(rep?.items ?? [])],
      tags: [...new Set([...entries.map((e) => e.kind), ...(rep ? [rep.kind] : [])])].map(
        (k) => `hostile list query: ${k}`,
      ),
    }));
}

/**
 * The fixed sweep of a document: every hostile query of {@link hostileQueries} on every list route, on
 * an existing resource (`pathValue` gives a good value of each path parameter) with ordinary headers.
 */
export function listQuerySweep(
  ops: readonly Operation[],
  pathValue: (op: Operation, param: string) => string | undefined,
  headers: [string, string][],
): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  for (const op of ops.filter(isListRoute)) {
    let path = op.template;
    for (const p of op.pathParams) path = path.replace(`{${p}}`, () => pathValue(op, p) ?? 'x');
    for (const h of hostileQueries(op.query)) {
      out.push({
        op: op.id,
        template: op.template,
        method: op.method,
        path,
        query: h.query,
        headers,
        tags: [`hostile list query: ${h.kind}`],
      });
    }
  }
  return out;
}
