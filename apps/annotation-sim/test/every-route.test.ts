import { afterAll, describe, expect, it } from 'vitest';
import { createHarness } from './support/harness';

/** What every emulated route must do, checked over the route table of /openapi.json. */
const h = createHarness();
afterAll(() => h.close());

const doc = (await h.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
const PUBLIC = new Set([
  'get /api/webhooks/events',
  'post /api/auth/login',
  'post /api/auth/logout',
  // CVAT's SDK asks it before logging in (test/server-info.test.ts).
  'get /api/server/about',
]);
// Routes of the events API (issue 5) are covered by its own suites.
const OWN = (path: string) => !path.startsWith('/api/events') && !path.startsWith('/api/requests');
const routes = Object.entries(doc.paths)
  .filter(([path]) => OWN(path))
  .flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method, path })))
  .filter((r) => !PUBLIC.has(`${r.method} ${r.path}`));
// A TUS upload's id has CVAT's form (`<user id>_<uuid>`): any other is no route at all.
const concrete = (path: string) =>
  path.replace('{file_id}', '999_00000000-0000-4000-8000-000000000000').replace(/\{[^}]+\}/g, '999');

describe('every route', () => {
  it('covers the resource and webhook surface', () => {
    expect(routes.length).toBeGreaterThan(40);
  });

  it.each(routes)('$method $path returns 401 without credentials', async ({ method, path }) => {
    const res = await h.request(
      method.toUpperCase(),
      concrete(path),
      method === 'get' || method === 'delete' ? {} : { body: {} },
    );
    expect(res.status, res.text).toBe(401);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it.each(routes.filter((r) => r.path.endsWith('{id}') && r.method !== 'post'))(
    '$method $path returns the DRF 404 body for an unknown id',
    async ({ method, path }) => {
      const res = await h.request(method.toUpperCase(), concrete(path), {
        as: 'admin',
        ...(method === 'patch' || method === 'put' ? { body: {} } : {}),
      });
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual({ detail: expect.stringMatching(/^No \w+ matches the given query\.$/) });
    },
  );
});
