import { afterEach, describe, expect, it } from 'vitest';
import {
  checkFilterBounds,
  checkQueryBounds,
  QUERY_LIMITS,
  searchTerms,
  sortKeys,
} from '../src/http/query-limits';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

function setup() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [
      { name: 'cats', owner: 'alice' },
      { name: 'dogs', owner: 'alice' },
      { name: 'catfish', owner: 'bob' },
    ],
  });
}

const q = (s: string) => encodeURIComponent(s);
/** A JSON Logic rule `{"!!":…}` wrapped `n` times around one comparison (n + 3 levels of nesting). */
const wrapped = (n: number, inner = '{"==":[{"var":"type"},"project"]}') =>
  `${'{"!!":'.repeat(n)}${inner}${'}'.repeat(n)}`;

describe('query parameters bounded like bodies (issue 33)', () => {
  it('answers 400, not 500, to a filter nested 4,000 levels deep on GET /api/requests', async () => {
    setup();
    // The fuzz finding: an 8 KB filter of nested arrays overflowed the stack of the filter's checks.
    const deep = `${'['.repeat(4000)}${']'.repeat(4000)}`;
    const res = await h.get(`/api/requests?filter=${q(deep)}`, { as: 'alice' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual([
      `filter: nesting deeper than ${QUERY_LIMITS.filterDepth} levels is not supported`,
    ]);
  });

  it('answers 400 to deep JSON Logic on GET /api/webhooks, of objects as well as arrays', async () => {
    setup();
    // Both under the value bound (8,192 characters): the nesting is what is refused.
    for (const deep of [wrapped(1000), `${'{"and":['.repeat(800)}1${']}'.repeat(800)}`]) {
      const res = await h.get(`/api/webhooks?filter=${q(deep)}`, { as: 'admin' });
      expect(res.status).toBe(400);
      expect(res.body[0]).toMatch(/^filter: nesting deeper than/);
    }
  });

  it('still evaluates a filter nested exactly to the limit and refuses one level more', async () => {
    setup();
    h.seed({
      webhooks: [{ target_url: 'http://127.0.0.1:9/h', type: 'organization', org: 'acme', owner: 'alice' }],
    });
    const depth = QUERY_LIMITS.filterDepth;
    const atLimit = await h.get(`/api/webhooks?filter=${q(wrapped(depth - 3))}`, { as: 'admin' });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.count).toBe(0);
    const organization = wrapped(depth - 3, '{"==":[{"var":"type"},"organization"]}');
    expect((await h.get(`/api/webhooks?filter=${q(organization)}`, { as: 'admin' })).body.count).toBe(1);
    const over = await h.get(`/api/webhooks?filter=${q(wrapped(depth - 2))}`, { as: 'admin' });
    expect(over.status).toBe(400);
  });

  it('does not count brackets inside strings as nesting', async () => {
    setup();
    const rule = `{"in":[${JSON.stringify('['.repeat(500))},{"var":"target_url"}]}`;
    const res = await h.get(`/api/webhooks?filter=${q(rule)}`, { as: 'admin' });
    expect(res.status).toBe(200);
  });

  it('answers 400 to a value longer than the bound, whichever list parameter carries it', async () => {
    setup();
    const long = 'a'.repeat(QUERY_LIMITS.valueChars + 1);
    for (const [path, name] of [
      ['/api/projects', 'search'],
      ['/api/projects', 'sort'],
      ['/api/webhooks', 'filter'],
      ['/api/projects', 'name'],
      ['/api/users', 'unknown_parameter'],
    ] as const) {
      const res = await h.get(`${path}?${name}=${long}`, { as: 'admin' });
      expect(res.status, `${path} ${name}`).toBe(400);
      expect(res.body, `${path} ${name}`).toEqual([
        `${name}: values longer than ${QUERY_LIMITS.valueChars} characters are not supported`,
      ]);
    }
    const atLimit = await h.get(`/api/projects?search=${'a'.repeat(QUERY_LIMITS.valueChars)}`, {
      as: 'admin',
    });
    expect(atLimit.status).toBe(200);
  });

  it('answers 400 past the parameter count and pages a query at the count with every parameter kept', async () => {
    setup();
    const n = QUERY_LIMITS.params;
    const over = await h.get(`/api/projects?${'x=1&'.repeat(n)}page_size=1`, { as: 'admin' });
    expect(over.status).toBe(400);
    expect(over.body).toEqual([`query: more than ${n} parameters are not supported`]);
    const at = await h.get(`/api/projects?${'x=1&'.repeat(n - 1)}page_size=1`, { as: 'admin' });
    expect(at.status).toBe(200);
    expect(at.body.count).toBe(3);
    expect(new URL(at.body.next).searchParams.getAll('x')).toHaveLength(n - 1);
  });

  it('searches with repeated terms as with one and refuses more distinct terms than the bound', async () => {
    setup();
    const names = async (search: string) =>
      (await h.get(`/api/projects?search=${q(search)}`, { as: 'admin' })).body.results.map(
        (p: { name: string }) => p.name,
      );
    expect(await names('cat')).toEqual(['catfish', 'cats']);
    expect(await names(Array(1500).fill('cat').join(' '))).toEqual(['catfish', 'cats']);
    const terms = Array.from({ length: QUERY_LIMITS.searchTerms + 1 }, (_, i) => `t${i}`);
    const res = await h.get(`/api/projects?search=${terms.join(',')}`, { as: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual([`search: more than ${QUERY_LIMITS.searchTerms} terms are not supported`]);
  });

  it('sorts by repeated and garbage keys as CVAT does: the first key of a field decides, others ignored', async () => {
    setup();
    const sort = ['-name', ...Array(1000).fill('name'), 'no_such_field', '__proto__', '-', ','].join(',');
    const res = await h.get(`/api/projects?sort=${q(sort)}`, { as: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body.results.map((p: { name: string }) => p.name)).toEqual(['dogs', 'cats', 'catfish']);
  });

  it('answers huge page numbers with "Invalid page." and huge page sizes with one page', async () => {
    setup();
    const page = await h.get(`/api/projects?page=${'9'.repeat(5000)}`, { as: 'admin' });
    expect(page.status).toBe(404);
    expect(page.body).toEqual({ detail: 'Invalid page.' });
    const size = await h.get(`/api/projects?page_size=${'9'.repeat(5000)}`, { as: 'admin' });
    expect(size.status).toBe(200);
    expect(size.body.results).toHaveLength(3);
    expect(size.body.next).toBeNull();
  });
});

describe('list query parameters', () => {
  it('filters projects, tasks, jobs, issues and comments with JSON Logic over their filter fields', async () => {
    setup();
    const rule = '{"and":[{"==":[{"var":"owner"},"alice"]},{"in":["cat",{"var":"name"}]}]}';
    const res = await h.get(`/api/projects?filter=${q(rule)}`, { as: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body.results.map((p: { name: string }) => p.name)).toEqual(['cats']);
    const byId = await h.get(`/api/projects?filter=${q('{">":[{"var":"id"},1]}')}&sort=id`, { as: 'admin' });
    expect(byId.body.results.map((p: { id: number }) => p.id)).toEqual([2, 3]);
    const unknown = await h.get(`/api/tasks?filter=${q('{"==":[{"var":"secret"},1]}')}`, { as: 'admin' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(["filter: term 'secret' is not supported"]);
  });

  it('declares the query parameters of every list view in /openapi.json, paging typed as integers', async () => {
    setup();
    const doc = (await h.get('/openapi.json')).body;
    const query = (path: string) =>
      Object.fromEntries(
        (doc.paths[path].get.parameters as { name: string; in: string; schema: { type: string } }[])
          .filter((p) => p.in === 'query')
          .map((p) => [p.name, p.schema.type]),
      );
    expect(query('/api/webhooks')).toMatchObject({
      page: 'integer',
      page_size: 'integer',
      filter: 'string',
      sort: 'string',
      search: 'string',
      project_id: 'integer',
    });
    expect(Object.keys(query('/api/requests'))).toEqual(expect.arrayContaining(['filter', 'sort', 'status']));
    expect(query('/api/projects/{id}')).toEqual({});
  });
});

/** The 400 list checkFilterBounds answers `filter` with, or undefined when it is within the bounds. */
function filterRefusal(filter: string): unknown {
  const checked = checkFilterBounds(filter);
  if (checked.ok) return undefined;
  return checked.error.code === 'INVALID_LIST' ? checked.error.messages : checked.error;
}

describe('query limits', () => {
  it('measures JSON nesting without recursion, strings and escapes skipped', () => {
    const depth = QUERY_LIMITS.filterDepth;
    const deeper = [`filter: nesting deeper than ${depth} levels is not supported`];
    expect(filterRefusal(`${'['.repeat(depth)}${']'.repeat(depth)}`)).toBeUndefined();
    expect(filterRefusal(`${'['.repeat(depth + 1)}${']'.repeat(depth + 1)}`)).toEqual(deeper);
    expect(filterRefusal(`["${'[{'.repeat(depth)}", "\\"${'['.repeat(depth)}"]`)).toBeUndefined();
    expect(filterRefusal('['.repeat(QUERY_LIMITS.valueChars))).toEqual(deeper);
  });

  it('deduplicates search terms case-insensitively and sort keys by field', () => {
    expect(searchTerms('Cat cat,CAT  dog')).toEqual({ ok: true, value: ['cat', 'dog'] });
    expect(searchTerms(undefined)).toEqual({ ok: true, value: [] });
    expect(sortKeys('-id,id,name, -name ,,-')).toEqual({ ok: true, value: ['-id', 'name', '-'] });
    expect(sortKeys(undefined)).toEqual({ ok: true, value: [] });
  });

  it('counts repeated parameters and checks names and values', () => {
    const params = (n: number) => new URLSearchParams('a=1&'.repeat(n));
    expect(checkQueryBounds(params(QUERY_LIMITS.params)).ok).toBe(true);
    expect(checkQueryBounds(params(QUERY_LIMITS.params + 1))).toEqual({
      ok: false,
      error: {
        code: 'INVALID_LIST',
        messages: [`query: more than ${QUERY_LIMITS.params} parameters are not supported`],
      },
    });
    expect(checkQueryBounds(new URLSearchParams(`${'n'.repeat(QUERY_LIMITS.valueChars + 1)}=1`))).toEqual({
      ok: false,
      error: {
        code: 'INVALID_LIST',
        messages: [`query: names longer than ${QUERY_LIMITS.valueChars} characters are not supported`],
      },
    });
  });
});
