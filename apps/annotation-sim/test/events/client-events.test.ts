import { clientEventsSchema } from '@sims/annotation-schema';
import { afterEach, describe, expect, it } from 'vitest';
import { batch, createHarness, type Harness, START_MS } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

async function post(body: unknown, options: Parameters<Harness['request']>[1] = {}) {
  const res = await h.request('/api/events', { json: body, ...options });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  return { res, status: res.status, text, body: parsed as any };
}

describe('POST /api/events', () => {
  it('answers 401 without credentials, with WWW-Authenticate: Token', async () => {
    h = createHarness();
    const r = await post(batch('2026-08-12T10:00:00Z', []), { as: null });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(r.res.headers.get('www-authenticate')).toBe('Token');
  });

  it('accepts events and enriches them: clock-skew shift, source, payload, user and org fields', async () => {
    h = createHarness();
    // The client's clock is 3 s behind: it sends at 09:59:57 what the server receives at 10:00:00.
    const r = await post(
      batch('2026-08-12T09:59:57Z', [
        {
          scope: 'click:element',
          obj_name: 'button',
          timestamp: '2026-08-12T09:59:56.412Z',
          payload: '{"x":1}',
        },
        { scope: 'zoom:image', timestamp: '2026-08-12T09:59:56.5000001Z', user_id: 99, org_slug: 'forged' },
      ]),
      { as: 'alice', org: 'acme' },
    );
    expect(r.status, r.text).toBe(201);
    expect(r.res.headers.get('content-type')).toBe('application/vnd.cvat+json');
    expect(r.res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body).toEqual({
      events: [
        {
          scope: 'click:element',
          obj_name: 'button',
          timestamp: '2026-08-12T09:59:59.412000Z',
          duration: 0,
          payload: '{"x": 1}',
          source: 'client',
          org_id: 10,
          org_slug: 'acme',
          user_id: 2,
          user_name: 'alice',
          user_email: 'alice@example.com',
        },
        {
          scope: 'zoom:image',
          timestamp: '2026-08-12T09:59:59.500000Z',
          duration: 0,
          user_id: 2,
          org_slug: 'acme',
          source: 'client',
          payload: '{}',
          org_id: 10,
          user_name: 'alice',
          user_email: 'alice@example.com',
        },
      ],
      previous_event: null,
      timestamp: '2026-08-12T09:59:57Z',
    });
    expect(clientEventsSchema.safeParse(r.body).success).toBe(true);
  });

  it('keeps DRF key order: declared fields first, enriched keys appended', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:00Z', [{ timestamp: '2026-08-12T10:00:00Z', scope: 'load:job', job_id: 5 }]),
    );
    expect(Object.keys(r.body.events[0])).toEqual([
      'scope',
      'timestamp',
      'duration',
      'job_id',
      'source',
      'payload',
      'org_id',
      'org_slug',
      'user_id',
      'user_name',
      'user_email',
    ]);
  });

  it('writes the org fields as null in the sandbox and keeps an empty e-mail', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:00Z', [{ scope: 'load:cvat', timestamp: '2026-08-12T10:00:00Z' }]),
      {
        as: 'bob',
      },
    );
    expect(r.body.events[0]).toMatchObject({
      org_id: null,
      org_slug: null,
      user_id: 3,
      user_name: 'bob',
      user_email: '',
    });
  });

  it('echoes previous_event with its timestamp corrected and nothing else changed', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:01Z', [], {
        previous_event: { scope: 'change:frame', timestamp: '2026-08-12T10:00:00Z', duration: 40 },
      }),
    );
    expect(r.body.previous_event).toEqual({
      scope: 'change:frame',
      timestamp: '2026-08-12T09:59:59Z',
      duration: 40,
    });
  });

  it('re-serializes payloads as Python json.dumps does (spaces, floats, ASCII escapes)', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:00Z', [
        {
          scope: 'debug:info',
          timestamp: '2026-08-12T10:00:00Z',
          payload: '{"a":1.0,"b":"é😀","c":[true,null,1e20]}',
        },
      ]),
    );
    expect(r.body.events[0].payload).toBe(
      '{"a": 1.0, "b": "\\u00e9\\ud83d\\ude00", "c": [true, null, 1e+20]}',
    );
  });

  it('requires the top-level timestamp', async () => {
    h = createHarness();
    const r = await post({ events: [] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ timestamp: ['This field is required.'] });
  });

  it('reports per-event field errors in a list aligned with the events', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:00Z', [
        { scope: 'click:element', timestamp: '2026-08-12T10:00:00Z' },
        { obj_id: 'x', timestamp: 'yesterday', duration: null, obj_name: '  ' },
      ]),
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      events: [
        {},
        {
          scope: ['This field is required.'],
          obj_name: ['This field may not be blank.'],
          obj_id: ['A valid integer is required.'],
          timestamp: [
            'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
          ],
          duration: ['This field may not be null.'],
        },
      ],
    });
  });

  it('rejects a body that is not an object, and events that are not a list', async () => {
    h = createHarness();
    expect((await post([1])).body).toEqual({
      non_field_errors: ['Invalid data. Expected a dictionary, but got list.'],
    });
    expect((await post(null)).body).toEqual({ non_field_errors: ['No data provided'] });
    expect((await post({ timestamp: '2026-08-12T10:00:00Z', events: {} })).body).toEqual({
      events: { non_field_errors: ['Expected a list of items but got type "dict".'] },
    });
    expect((await post({ timestamp: '2026-08-12T10:00:00Z', events: ['x'] })).body).toEqual({
      events: [{ non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] }],
    });
  });

  it('answers malformed JSON with DRF parse error detail in Python wording', async () => {
    h = createHarness();
    const res = await h.request('/api/events', {
      method: 'POST',
      body: '{"timestamp": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      detail: 'JSON parse error - Expecting value: line 1 column 15 (char 14)',
    });
  });

  it('answers 415 for a body that is not JSON', async () => {
    h = createHarness();
    const res = await h.request('/api/events', {
      method: 'POST',
      body: 'a=b',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  it('rejects scopes outside the client allow-list with a plain-string scope error', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:00Z', [{ scope: 'create:task', timestamp: '2026-08-12T10:00:00Z' }]),
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ scope: 'Event scope **create:task** is not allowed from client' });
  });

  it('rejects any source other than client, an explicit null included', async () => {
    h = createHarness();
    const server = await post(
      batch('2026-08-12T10:00:00Z', [
        { scope: 'click:element', source: 'server', timestamp: '2026-08-12T10:00:00Z' },
      ]),
    );
    expect(server.body).toEqual({ scope: 'Event scope **click:element** is not allowed from server' });
    const none = await post(
      batch('2026-08-12T10:00:00Z', [
        { scope: 'click:element', source: null, timestamp: '2026-08-12T10:00:00Z' },
      ]),
    );
    expect(none.body).toEqual({ scope: 'Event scope **click:element** is not allowed from None' });
  });

  it('rejects a payload that is not JSON', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:00Z', [
        { scope: 'click:element', payload: '{nope', timestamp: '2026-08-12T10:00:00Z' },
      ]),
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ payload: 'JSON payload is not valid in passed event' });
    expect(h.events().store.length).toBe(0);
  });

  it('fails with a 500 on an explicit null payload, as json.loads(None) does in CVAT', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:00Z', [
        { scope: 'click:element', payload: null, timestamp: '2026-08-12T10:00:00Z' },
      ]),
    );
    expect(r.status).toBe(500);
    // Django's 500 page, as for every unhandled exception.
    expect(r.text).toContain('<title>Server Error (500)</title>');
    expect(r.text).toContain('<h1>Server Error (500)</h1>');
  });

  it('answers 404 for an unknown organization context', async () => {
    h = createHarness();
    const r = await post(batch('2026-08-12T10:00:00Z', []), { org: 'nope' });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: 'nope organization does not exist.' });
  });

  it('stores the events, but not user:activity, and adds working time per job', async () => {
    h = createHarness();
    const r = await post(
      batch('2026-08-12T10:00:10Z', [
        { scope: 'load:job', job_id: 7, task_id: 3, timestamp: '2026-08-12T10:00:00Z' },
        { scope: 'user:activity', job_id: 7, task_id: 3, timestamp: '2026-08-12T10:00:04Z' },
        { scope: 'change:frame', job_id: 7, task_id: 3, duration: 1500, timestamp: '2026-08-12T10:00:05Z' },
      ]),
    );
    expect(r.status, r.text).toBe(201);
    const store = h.events().store;
    const rows = [...store.rows()];
    expect(rows.map((x) => x.scope)).toEqual(['load:job', 'change:frame', 'send:working_time']);
    const wt = rows[2];
    // 4 s + 1 s of gaps, plus 1.5 s of change:frame.
    expect(wt).toMatchObject({
      source: 'server',
      duration: 6500,
      count: 1,
      job_id: 7,
      task_id: 3,
      project_id: null,
      user_id: 1,
      // The first event's corrected time: sent 10 s ahead of the server's clock.
      timestamp: START_MS - 10_000,
    });
    expect(JSON.parse(wt?.payload ?? '')).toEqual({
      working_time: 6500,
      request: { id: r.res.headers.get('x-request-id') },
    });
  });

  it('answers 201 and drops the events while the analytics store is disconnected', async () => {
    h = createHarness();
    h.events().settings.storeConnected = false;
    const r = await post(
      batch('2026-08-12T10:00:00Z', [{ scope: 'load:cvat', timestamp: '2026-08-12T10:00:00Z' }]),
    );
    expect(r.status).toBe(201);
    expect(h.events().store.length).toBe(0);
    expect(h.events().dropped).toBe(1);
  });

  it('drops the events of a request an analyticsStoreDown rule matches, and only those', async () => {
    h = createHarness();
    await h.addFault({
      match: { operation: 'events.create' },
      trigger: { times: 1 },
      effect: { analyticsStoreDown: true },
    });
    const one = batch('2026-08-12T10:00:00Z', [{ scope: 'load:cvat', timestamp: '2026-08-12T10:00:00Z' }]);
    expect((await post(one)).status).toBe(201);
    expect(h.events().store.length).toBe(0);
    expect((await post(one)).status).toBe(201);
    expect(h.events().store.length).toBe(1);
  });
});
