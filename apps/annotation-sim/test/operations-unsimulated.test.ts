import { CVAT_OPERATIONS } from '@sims/annotation-schema';
import { afterAll, describe, expect, it } from 'vitest';
import { journalOperation, rowOperations } from '../src/http/cvat-operations';
import { listedRowEntries } from '../src/http/operations-table';
import { createHarness, TEAM } from './support/harness';

/**
 * Every operation of CVAT's schema answers, called once on a seeded world: by its row, or with the 501
 * naming it (docs/decisions/0018), never with Django's 404 page or a 405, which a client reads as "this
 * object does not exist" or "this server has no such call".
 */
const h = createHarness();
h.seed({
  ...TEAM,
  projects: [{ name: 'p', owner: 'alice' }],
  tasks: [{ name: 't', owner: 'alice', project: 'p', size: 4, segment_size: 2 }],
});
afterAll(() => h.close());

const routed = rowOperations(listedRowEntries());
const refused = CVAT_OPERATIONS.filter((o) => !routed.has(o.operationId));
const journal = () => h.sim.world().journal.list();
/** A path of the operation with its parameters filled: ids that exist in the seeded world. */
const concrete = (path: string) =>
  path
    .replace('{file_id}', '2_00000000-0000-4000-8000-000000000000')
    .replace('{uuid}', '00000000-0000-4000-8000-000000000000')
    .replace(/\{[^}]+\}/g, '1');

describe("CVAT's operations called once each", () => {
  it('are answered by their row or refused with the 501 naming them, never with the 404 page or a 405', async () => {
    expect(refused.length).toBeGreaterThan(0);
    for (const op of CVAT_OPERATIONS) {
      const before = journal().length;
      const res = await h.request(op.method.toUpperCase(), concrete(op.path), {
        as: 'admin',
        ...(op.method === 'get' || op.method === 'delete' ? {} : { body: {} }),
      });
      const what = `${op.operationId}: ${res.status} ${res.text.slice(0, 200)}`;
      const entry = journal().at(-1);
      expect(journal().length, what).toBe(before + 1);
      // Not Django's page for a URL no view has (a view's own plain 404 text is an answer).
      expect(res.text, what).not.toContain('<title>Not Found</title>');
      expect(res.status, what).not.toBe(405);
      const row = routed.get(op.operationId);
      if (row) {
        // Its row's answer (which may itself refuse a part it does not simulate).
        expect(entry?.operation, what).toBe(row.operation);
        continue;
      }
      expect(res.status, what).toBe(501);
      expect(res.headers.get('x-sim-reason'), what).toBe(`not-simulated: ${op.operationId}`);
      expect(res.body.detail, what).toMatch(
        new RegExp(
          `^${op.operationId} \\(${op.method.toUpperCase()} \\S+\\) is not simulated by annotation-sim`,
        ),
      );
      expect(entry?.operation, what).toBe(journalOperation(op.operationId));
    }
  });
});

describe('the 501 of an operation the simulator does not simulate', () => {
  it("is DRF's body naming the operation, with X-Sim-Reason and the request id", async () => {
    const res = await h.post('/api/invitations/k1/resend', {}, { as: 'alice' });
    expect(res.status).toBe(501);
    expect(res.headers.get('content-type')).toBe('application/vnd.cvat+json');
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated: invitations_resend');
    expect(res.headers.get('x-request-id')).toBe(journal().at(-1)?.requestId);
    expect(res.body).toEqual({
      detail:
        "invitations_resend (POST /api/invitations/{key}/resend) is not simulated by annotation-sim, so the request is refused rather than answered wrongly. See annotation-sim's FIDELITY.md.",
    });
  });

  it('answers the schema path with and without its trailing slash, as CVAT routes it', async () => {
    for (const path of ['/api/schema', '/api/schema/']) {
      const res = await h.request('GET', path, { as: 'alice' });
      expect(res.headers.get('x-sim-reason'), path).toBe('not-simulated: schema_retrieve');
    }
  });

  it('checks credentials first, except where CVAT lets anyone call', async () => {
    const anonymous = await h.get('/api/tasks/1/annotations');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    const register = await h.post('/api/auth/register', { username: 'new' });
    expect(register.status).toBe(501);
    expect(register.headers.get('x-sim-reason')).toBe('not-simulated: auth_create_register');
    // The schema document: its `security` lists credentials, but CVAT serves it to anyone
    // (tests/python/rest_api/test_server.py, test_can_get_schema_unauthenticated).
    expect((await h.get('/api/schema/')).headers.get('x-sim-reason')).toBe('not-simulated: schema_retrieve');
  });

  it("refuses CVAT's health check page too, a plain Django view outside the schema that probes poll", async () => {
    const res = await h.get('/api/server/health/', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated: server_health_check');
    expect(journal().at(-1)?.operation).toBe('server.health_check');
  });

  it('negotiates the Accept header first, as every DRF view does', async () => {
    const res = await h.get('/api/tasks/1/annotations', {
      as: 'alice',
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(406);
  });

  it('is matched by fault rules under its journal name', async () => {
    const added = await h.post('/_sim/faults', {
      match: { operation: 'quality.create_report' },
      trigger: { times: 1 },
      effect: { error: { status: 503 } },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect((await h.post('/api/quality/reports', {}, { as: 'alice' })).status).toBe(503);
    expect((await h.post('/api/quality/reports', {}, { as: 'alice' })).status).toBe(501);
  });

  it('works under a namespace prefix, journaled in that namespace', async () => {
    // A refused list of its own (cloud storages, lambda functions, …: whichever no row answers yet).
    const op = refused.find((o) => o.method === 'get' && !o.path.includes('{'));
    if (!op) throw new Error('no refused list operation left to call');
    const res = await h.get(`/_ns/elsewhere${op.path}`, { as: 'admin' });
    expect(res.headers.get('x-sim-reason')).toBe(`not-simulated: ${op.operationId}`);
    expect(h.sim.world('elsewhere').journal.list().at(-1)?.operation).toBe(journalOperation(op.operationId));
  });

  it('leaves paths that are no operation of CVAT to the 404 page, and other methods of a known path to the 405', async () => {
    const unknown = await h.get('/api/tasks/1/nothing-here', { as: 'alice' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);
    expect(unknown.headers.get('x-sim-reason')).toBeNull();
    const other = await h.request('PUT', '/api/tasks/1', { as: 'alice', body: {} });
    expect(other.status).toBe(405);
    // Also on the path of an operation no row answers (cloud storages: none is simulated).
    const refusedPath = await h.request('PUT', '/api/cloudstorages/1', { as: 'alice', body: {} });
    expect(refusedPath.status).toBe(405);
    expect(refusedPath.body).toEqual({ detail: 'Method "PUT" not allowed.' });
    // A path of the schema without a trailing slash does not take one (CVAT's router: trailing_slash=False).
    expect((await h.get('/api/server/about/', { as: 'alice' })).status).toBe(404);
  });
});
