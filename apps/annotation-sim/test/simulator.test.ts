import { afterEach, describe, expect, it } from 'vitest';
import { startAnnotationSim } from '../src/app';
import { signUrlToken } from '../src/domain/url-signing';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

describe('simulator plumbing', () => {
  it('seeds through POST /_sim/seed and reports the ids', async () => {
    h = createHarness();
    const res = await h.post('/_sim/seed', {
      users: [{ username: 'u', token: 'tok' }],
      projects: [{ name: 'p', owner: 'u' }],
    });
    expect(res.status).toBe(201);
    expect(res.body.seeded).toMatchObject({ users: { u: 2 }, projects: { p: 1 } });
    expect((await h.get('/api/projects/1', { token: 'tok' })).body.name).toBe('p');
    const bad = await h.post('/_sim/seed', { projects: [{ name: 'q', owner: 'ghost' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('unknown user "ghost"');
  });

  it('exports and imports the state snapshot', async () => {
    h = createHarness();
    h.seed({ ...TEAM, projects: [{ name: 'p', owner: 'alice' }] });
    await h.post('/api/webhooks', aWebhook().forProject(1).build(), { as: 'alice' });
    const snap = await h.get('/_sim/state');
    expect(snap.status).toBe(200);
    const other = createHarness();
    try {
      const put = await other.request('PUT', '/_sim/state', { body: snap.body });
      expect(put.status).toBe(200);
      const w = await other.get('/api/webhooks/1', { as: 'admin' });
      expect(w.body).toMatchObject({ id: 1, project_id: 1 });
      const next = await other.post('/api/projects', { name: 'q' }, { as: 'admin' });
      expect(next.body.id).toBe(2);
    } finally {
      other.close();
    }
  });

  it('isolates namespaces', async () => {
    h = createHarness();
    await h.post('/api/projects', { name: 'a' }, { as: 'admin' });
    const other = await h.get('/_ns/other/api/projects', { as: 'admin' });
    expect(other.body.count).toBe(0);
    const created = await h.post('/_ns/other/api/projects', { name: 'b' }, { as: 'admin' });
    expect(created.body.url).toBe('http://localhost/_ns/other/api/projects/1');
  });

  it('renders injected faults on API operations in the DRF shape', async () => {
    h = createHarness();
    await h.post('/_sim/faults', {
      match: { operation: 'webhooks.create' },
      trigger: { times: 1 },
      effect: { error: { status: 409 } },
    });
    const res = await h.post('/api/webhooks', aWebhook().forProject(1).build(), { as: 'admin' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: 'This resource is currently busy with another operation. Please try again in a moment.',
    });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    await h.post('/_sim/faults', {
      match: { operation: 'tasks.partial_update' },
      effect: { error: { status: 'PERMISSION_DENIED' } },
    });
    const denied = await h.patch('/api/tasks/1', { name: 'x' }, { as: 'admin' });
    expect(denied.body).toEqual({ detail: 'You do not have permission to perform this action.' });
  });

  it("renders each injected fault status with DRF's default detail, its message, or Django's 500 page", async () => {
    h = createHarness();
    const cases: [unknown, string | undefined, number, unknown, Record<string, string>][] = [
      [
        401,
        undefined,
        401,
        { detail: 'Authentication credentials were not provided.' },
        { 'www-authenticate': 'Token' },
      ],
      [401, 'Invalid token.', 401, { detail: 'Invalid token.' }, { 'www-authenticate': 'Token' }],
      ['NOT_FOUND', undefined, 404, { detail: 'Not found.' }, {}],
      [403, 'nope', 403, { detail: 'nope' }, {}],
      ['THROTTLED', undefined, 429, { detail: 'Request was throttled.' }, {}],
      [418, undefined, 418, { detail: 'A server error occurred.' }, {}],
      [500, 'boom', 500, { detail: 'boom' }, { 'content-type': 'application/vnd.cvat+json' }],
    ];
    for (const [status, message, code, body, headers] of cases) {
      await h.request('DELETE', '/_sim/faults');
      await h.post('/_sim/faults', {
        match: { operation: 'projects.list' },
        effect: { error: { status, ...(message === undefined ? {} : { message }) } },
      });
      const res = await h.get('/api/projects', { as: 'admin' });
      expect([res.status, res.body], String(status)).toEqual([code, body]);
      for (const [name, value] of Object.entries(headers)) expect(res.headers.get(name)).toBe(value);
      if (code !== 401) expect(res.headers.get('www-authenticate')).toBeNull();
    }
    await h.request('DELETE', '/_sim/faults');
    await h.post('/_sim/faults', {
      match: { operation: 'projects.list' },
      effect: { error: { status: 500 } },
    });
    const page = await h.get('/api/projects', { as: 'admin' });
    expect(page.status).toBe(500);
    expect(page.headers.get('content-type')).toBe('text/html');
    expect(page.text).toContain('<title>Server Error (500)</title>');
  });

  it('accepts the delivery and events fault vocabularies and lists the control routes in openapi.json', async () => {
    h = createHarness();
    for (const effect of [{ corruptSignature: true }, { deliveryDelay: '2s' }]) {
      const res = await h.post('/_sim/faults', { match: { operation: 'webhooks.deliver' }, effect });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const unknown = await h.post('/_sim/faults', { effect: { deliveryExplode: true } });
    expect(unknown.status).toBe(400);
    const doc = await h.get('/_sim/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/_sim/deliveries', '/_sim/deliveries/wait', '/_sim/events']),
    );
  });

  it('serves its OpenAPI document at /openapi.json with CVAT operationIds', async () => {
    h = createHarness();
    const doc = await h.get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.paths['/api/webhooks/{id}'].patch.operationId).toBe('webhooks_partial_update');
    expect(doc.body.paths['/api/webhooks/{id}/ping'].post.operationId).toBe('webhooks_create_ping');
    expect(doc.body.paths['/api/tasks'].get.operationId).toBe('tasks_list');
    expect(doc.body.components.schemas.WebhookRead.properties.events).toBeTruthy();
  });

  it('answers 405 for a known path with another method and Django 404 for unknown paths, with X-Request-Id', async () => {
    h = createHarness();
    const m = await h.request('DELETE', '/api/webhooks', { as: 'admin' });
    expect(m.status).toBe(405);
    expect(m.body).toEqual({ detail: 'Method "DELETE" not allowed.' });
    const nf = await h.get('/api/nothing-here', { as: 'admin' });
    expect(nf.status).toBe(404);
    expect(nf.headers.get('content-type')).toBe('text/html');
    expect(nf.headers.get('x-request-id')).toBeTruthy();
  });

  it('returns 400 "Invalid data. Expected a dictionary" for a JSON list body', async () => {
    h = createHarness();
    const res = await h.post('/api/webhooks', [1, 2], { as: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
  });

  it('serves health and the API over a real socket', async () => {
    const sim = await startAnnotationSim({ port: 0, clock: { mode: 'manual' } });
    try {
      const health = await fetch(`${sim.url}/_sim/health`);
      expect(await health.json()).toMatchObject({ status: 'ok', simulator: 'annotation-sim' });
      const events = await fetch(`${sim.url}/api/webhooks/events?type=organization`);
      expect(events.headers.get('content-type')).toBe('application/vnd.cvat+json');
    } finally {
      await sim.close();
    }
  });
});

describe('signed URLs (compatibility switch, CVAT ≤ 2.45)', () => {
  it('is off by default: ?sign= authenticates nobody and /api/auth/signing does not exist', async () => {
    h = createHarness();
    const token = signUrlToken(
      { id: 1, username: 'admin' },
      'http://localhost/api/users/self',
      'annotation-sim-secret-key',
      Date.parse('2026-01-01T00:00:00Z'),
    );
    expect((await h.get(`/api/users/self?sign=${encodeURIComponent(token)}`)).status).toBe(401);
    expect((await h.post('/api/auth/signing', { url: '/api/users/self' }, { as: 'admin' })).status).toBe(404);
  });

  it('signs a URL for 30 seconds of clock time', async () => {
    h = createHarness({ signedUrls: true });
    const signed = await h.post('/api/auth/signing', { url: '/api/users/self' }, { as: 'admin' });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatch(/^http:\/\/localhost\/api\/users\/self\?sign=/);
    const path = signed.body.slice('http://localhost'.length);
    expect((await h.get(path)).body.username).toBe('admin');
    const tampered = await h.get(path.replace('/self', '/1'));
    expect(tampered.body).toEqual({ detail: 'Invalid signature.' });
    h.advance('31s');
    const expired = await h.get(path);
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ detail: 'This URL has expired.' });
  });
});
