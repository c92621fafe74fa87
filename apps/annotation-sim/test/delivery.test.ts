import type { AddressInfo } from 'node:net';
import net from 'node:net';
import {
  CreateEventPayload,
  PingPayload,
  UpdateEventPayload,
  WebhookDeliveryRead,
} from '@sims/annotation-schema';
import { afterEach, describe, expect, it } from 'vitest';
import { pythonJsonDumps } from '../src/domain/python-json';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';
import { closedPort, type Receiver, startReceiver, WIRE_HEADER_ORDER } from './support/receiver';

let h: Harness;
let receivers: Receiver[] = [];
afterEach(async () => {
  h?.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

async function receiver(options: Parameters<typeof startReceiver>[0] = {}) {
  const r = await startReceiver(options);
  receivers.push(r);
  return r;
}

/** A sandbox-free world: org acme with project "acme-p" (id 1) owned by alice, task "t" (id 1, 4 frames). */
function world(options: Parameters<typeof createHarness>[0] = {}) {
  h = createHarness(options);
  return h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p', size: 4, segment_size: 2 }],
  });
}

async function projectHook(target: string, events: string[], secret?: string) {
  const b = aWebhook()
    .forProject(1)
    .to(target)
    .withEvents(...events);
  if (secret !== undefined) b.withSecret(secret);
  const res = await h.post('/api/webhooks?org=acme', b.build(), { as: 'alice' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

async function orgHook(target: string, events: string[]) {
  const res = await h.post(
    '/api/webhooks?org=acme',
    aWebhook()
      .forOrganization()
      .to(target)
      .withEvents(...events)
      .build(),
    { as: 'alice' },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

describe('emission and payloads', () => {
  it('sends update:task with before_update and changes, signed over the exact Python json.dumps bytes', async () => {
    world();
    const r = await receiver({ secret: 'mykey' });
    const id = await projectHook(r.url, ['update:task'], 'mykey');
    h.advance('2s');
    const patched = await h.patch('/api/tasks/1', { name: 'renamed ☃' }, { as: 'alice' });
    expect(patched.status).toBe(200);
    await h.idle();
    expect(r.requests).toHaveLength(1);
    const got = r.requests[0]!;
    expect(got.signatureValid).toBe(true);
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('CVAT/2.73.0 python-requests/2.33.1');
    expect(got.headers['x-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    const text = got.rawBody.toString('latin1');
    expect(text).toContain('"name": "renamed \\u2603"');
    expect(text).not.toMatch(/[^\x20-\x7e]/);
    expect(Object.keys(got.json)).toEqual([
      'event',
      'webhook_id',
      'task',
      'sender',
      'before_update',
      'changes',
    ]);
    expect(UpdateEventPayload.parse(got.json)).toBeTruthy();
    expect(got.json.event).toBe('update:task');
    expect(got.json.webhook_id).toBe(id);
    expect(got.json.task).toEqual(patched.body);
    expect(got.json.before_update).toEqual({ name: 't', updated_date: '2026-01-01T00:00:00Z' });
    expect(got.json.changes).toEqual({
      name: { from: 't', to: 'renamed ☃' },
      updated_date: { from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:02Z' },
    });
    expect(got.json.sender).toEqual({
      url: 'http://localhost/api/users/2',
      id: 2,
      username: 'alice',
      first_name: '',
      last_name: '',
    });
    expect(got.rawBody.toString('utf8')).toBe(pythonJsonDumps(got.json));
  });

  it.each([
    ['on the delivery thread (default)', {}],
    ["on the API's thread (delivery.thread 'main')", { delivery: { thread: 'main' as const } }],
  ])('sends the same signed bytes and records the same row %s', async (_where, options) => {
    world(options);
    const r = await receiver({ secret: 'k', behaviour: () => ({ status: 201, body: 'created' }) });
    const id = await projectHook(r.url, ['update:task'], 'k');
    await h.patch('/api/tasks/1', { name: 'renamed' }, { as: 'alice' });
    await h.idle();
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]?.signatureValid).toBe(true);
    expect(r.requests[0]?.rawBody.toString('utf8')).toBe(pythonJsonDumps(r.requests[0]?.json));
    const rows = await h.get(`/api/webhooks/${id}/deliveries?org=acme`, { as: 'alice' });
    expect(rows.body.results).toHaveLength(1);
    expect(rows.body.results[0]).toMatchObject({
      status_code: 201,
      response: 'created',
      event: 'update:task',
    });
  });

  it('sends no X-Signature-256 header without a secret', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    expect(r.requests[0]?.headers['x-signature-256']).toBeUndefined();
  });

  it('orders create keys event, webhook_id, <resource>, sender and delete keys event, <resource>, sender, webhook_id', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['create:issue', 'delete:issue', 'create:comment']);
    const issue = await h.post(
      '/api/issues',
      { frame: 0, position: [1.5, 2, 3, 4], job: 1, message: 'm' },
      { as: 'alice' },
    );
    await h.del(`/api/issues/${issue.body.id}`, { as: 'alice' });
    await h.idle();
    const events = r.requests.map((q) => q.json.event);
    expect(events).toEqual(['create:issue', 'create:comment', 'delete:issue']);
    const [create, , del] = r.requests;
    expect(Object.keys(create!.json)).toEqual(['event', 'webhook_id', 'issue', 'sender']);
    expect(CreateEventPayload.parse(create!.json)).toBeTruthy();
    expect(create!.rawBody.toString()).toContain('"position": [1.5, 2.0, 3.0, 4.0]');
    expect(Object.keys(del!.json)).toEqual(['event', 'issue', 'sender', 'webhook_id']);
    expect(del!.json.issue.id).toBe(issue.body.id);
  });

  it('gives an org webhook and a project webhook each their own delivery with their own webhook_id', async () => {
    world();
    const r = await receiver();
    const p = await projectHook(r.url, ['create:task']);
    const o = await orgHook(r.url, ['create:task']);
    await h.post('/api/tasks?org=acme', { name: 'n', project_id: 1 }, { as: 'alice' });
    await h.idle();
    expect(r.requests.map((q) => q.json.webhook_id).sort()).toEqual([p, o].sort());
  });

  it('sends nothing for sandbox resources, inactive webhooks or unsubscribed events', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['create:issue']);
    const inactive = await projectHook(r.url, ['update:task']);
    await h.patch(`/api/webhooks/${inactive}`, { is_active: false }, { as: 'alice' });
    await h.post('/api/tasks', { name: 'sandbox' }, { as: 'erin' });
    await h.patch('/api/tasks/1', { name: 'changed' }, { as: 'alice' });
    await h.idle();
    expect(r.requests).toHaveLength(0);
  });

  it('sends jobs created by task data with the worker sender {id, username, email}', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['create:job']);
    const t = await h.post('/api/tasks', { name: 'n', project_id: 1 }, { as: 'alice' });
    await h.post(
      `/api/tasks/${t.body.id}/data/`,
      { image_quality: 70, server_files: ['a.jpg', 'b.jpg'] },
      { as: 'alice' },
    );
    await h.idle();
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]?.json.sender).toEqual({ id: 2, username: 'alice', email: 'alice@example.com' });
    expect(r.requests[0]?.json.job).toMatchObject({ task_id: t.body.id, start_frame: 0, stop_frame: 1 });
  });

  it('never delivers delete:project to the project own webhooks, but org webhooks get it and the cascaded deletes', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['delete:project', 'delete:task', 'delete:job']);
    const o = await orgHook(r.url, ['delete:project', 'delete:task', 'delete:job']);
    expect((await h.del('/api/projects/1', { as: 'alice' })).status).toBe(204);
    await h.idle();
    expect(r.requests.every((q) => q.json.webhook_id === o)).toBe(true);
    expect(r.requests.map((q) => q.json.event)).toEqual([
      'delete:job',
      'delete:job',
      'delete:task',
      'delete:project',
    ]);
  });

  it('moving a project to another org sends delete to the old org, create to the new org, update to project webhooks', async () => {
    world();
    h.seed({ organizations: [{ slug: 'beta', owner: 'alice' }] });
    const r = await receiver();
    const p = await projectHook(r.url, ['update:project']);
    const oldOrg = await orgHook(r.url, ['create:project', 'update:project', 'delete:project']);
    const created = await h.post(
      '/api/webhooks?org=beta',
      aWebhook()
        .forOrganization()
        .to(r.url)
        .withEvents('create:project', 'update:project', 'delete:project')
        .build(),
      { as: 'alice' },
    );
    await h.patch('/api/projects/1', { organization_id: 2 }, { as: 'alice' });
    await h.idle();
    const got = r.requests.map((q) => [q.json.webhook_id, q.json.event]).sort();
    expect(got).toEqual(
      [
        [p, 'update:project'],
        [oldOrg, 'delete:project'],
        [created.body.id, 'create:project'],
      ].sort(),
    );
  });

  it('matches events by exact name and keeps per-webhook order', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['update:job']);
    for (const stage of ['validation', 'acceptance', 'annotation'] as const) {
      h.advance('1s');
      await h.patch('/api/jobs/1', { stage }, { as: 'alice' });
    }
    await h.idle();
    expect(r.requests.map((q) => q.json.job.stage)).toEqual(['validation', 'acceptance', 'annotation']);
    expect(r.requests[0]?.json.before_update).toEqual({
      stage: 'annotation',
      status: 'annotation',
      updated_date: '2026-01-01T00:00:00Z',
    });
  });
});

describe('delivery rows, ping and redelivery', () => {
  it('pings synchronously and returns 200 with the delivery row, whatever the target answered', async () => {
    world();
    const r = await receiver({ behaviour: () => ({ status: 500, body: 'boom' }) });
    const id = await projectHook(r.url, ['update:task']);
    const res = await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    expect(res.status).toBe(200);
    expect(WebhookDeliveryRead.parse(res.body)).toBeTruthy();
    expect(res.body).toMatchObject({
      webhook_id: id,
      event: 'ping',
      status_code: 500,
      redelivery: false,
      attempt: 1,
      changed_fields: '',
      response: 'boom',
    });
    expect(Object.keys(r.requests[0]!.json)).toEqual(['event', 'webhook', 'sender']);
    expect(PingPayload.parse(r.requests[0]!.json)).toBeTruthy();
    // Ping is never retried.
    h.advance('1d');
    await h.idle();
    expect(r.requests).toHaveLength(1);
  });

  it('pings at /webhooks/{id}/ping too, ignores is_active, needs update permission', async () => {
    world();
    const r = await receiver();
    const id = await projectHook(r.url, ['update:task']);
    await h.patch(`/api/webhooks/${id}`, { is_active: false }, { as: 'alice' });
    const res = await h.post(`/webhooks/${id}/ping`, undefined, { as: 'alice' });
    expect(res.status).toBe(200);
    expect(res.body.status_code).toBe(200);
    expect((await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'dave' })).status).toBe(403);
  });

  it('records 502 with the connection error text when the target refuses', async () => {
    world();
    const port = await closedPort();
    const id = await projectHook(`http://127.0.0.1:${port}/hook`, ['update:task']);
    const res = await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    expect(res.body.status_code).toBe(502);
    expect(res.body.response).toContain('Connection refused');
  });

  it('records 502 with urllib3\'s "Connection aborted." text when the receiver closes without answering, and retries it', async () => {
    world();
    const server = net.createServer((s) => s.once('data', () => s.end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receivers.push({
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    } as Receiver);
    const port = (server.address() as AddressInfo).port;
    const id = await projectHook(`http://127.0.0.1:${port}/hook`, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    const rows = (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status_code: 502,
      response:
        "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))",
    });
    expect((await h.get('/_sim/deliveries/stats')).body.scheduledRetries).toBe(1);
  });

  it('shows last_status and last_delivery_date only after a delivery', async () => {
    world();
    const r = await receiver({ behaviour: () => ({ status: 201 }) });
    const id = await projectHook(r.url, ['update:task']);
    expect((await h.get(`/api/webhooks/${id}`, { as: 'alice' })).body).not.toHaveProperty('last_status');
    h.advance('3s');
    await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    const after = await h.get(`/api/webhooks/${id}`, { as: 'alice' });
    expect(after.body).toMatchObject({ last_status: 201, last_delivery_date: '2026-01-01T00:00:03Z' });
  });

  it('keeps at most maxDeliveriesPerWebhook rows per webhook, the oldest going first', async () => {
    world({ delivery: { maxDeliveriesPerWebhook: 3 } });
    const r = await receiver();
    const id = await projectHook(r.url, ['update:task']);
    const other = await projectHook(r.url, ['update:task']);
    for (let i = 0; i < 5; i++) await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    await h.post(`/api/webhooks/${other}/ping`, undefined, { as: 'alice' });
    const list = await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' });
    expect(list.body.count).toBe(3);
    expect(list.body.results.map((d: { id: number }) => d.id)).toEqual([5, 4, 3]);
    // The other webhook's rows are its own.
    expect((await h.get(`/api/webhooks/${other}/deliveries`, { as: 'alice' })).body.count).toBe(1);
  });

  it('lists deliveries newest first, gets one, and answers 500 for an unknown delivery id', async () => {
    world();
    const r = await receiver();
    const id = await projectHook(r.url, ['update:task']);
    await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    h.advance('1s');
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    const list = await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' });
    expect(list.body.count).toBe(2);
    expect(list.body.results.map((d: { event: string }) => d.event)).toEqual(['update:task', 'ping']);
    expect(list.body.results[0]).toMatchObject({
      changed_fields: 'name,updated_date',
      attempt: 1,
      redelivery: false,
    });
    const one = await h.get(`/api/webhooks/${id}/deliveries/${list.body.results[1].id}`, { as: 'alice' });
    expect(one.body.event).toBe('ping');
    expect((await h.get(`/api/webhooks/${id}/deliveries/999`, { as: 'alice' })).status).toBe(500);
    expect((await h.get(`/api/webhooks/${id}/deliveries`, { as: 'dave' })).status).toBe(403);
  });

  it('redelivers the identical stored payload with redelivery: true', async () => {
    world();
    const r = await receiver({ secret: 's' });
    const id = await projectHook(r.url, ['update:task'], 's');
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    const first = (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results[0];
    h.advance('1m');
    const res = await h.post(`/api/webhooks/${id}/deliveries/${first.id}/redelivery`, undefined, {
      as: 'alice',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    await h.idle();
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]!.rawBody.equals(r.requests[0]!.rawBody)).toBe(true);
    expect(r.requests[1]!.signatureValid).toBe(true);
    const rows = (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results;
    expect(rows[0]).toMatchObject({ redelivery: true, attempt: 1, request: first.request });
  });
});

describe('failing receivers lose no event', () => {
  it('retries 5xx on CVAT schedule, one row per attempt, 9 attempts in all', async () => {
    world();
    const r = await receiver({ behaviour: () => ({ status: 503, body: 'down' }) });
    const id = await projectHook(r.url, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    expect(r.requests).toHaveLength(1);
    h.advance('4999ms');
    await h.idle();
    expect(r.requests).toHaveLength(1);
    for (const [delay, n] of [
      ['1ms', 2],
      ['300s', 3],
      ['1800s', 4],
      ['10800s', 5],
      ['1d', 6],
      ['1d', 7],
      ['1d', 8],
      ['1d', 9],
    ] as const) {
      h.advance(delay);
      await h.idle();
      expect(r.requests, `after ${delay}`).toHaveLength(n);
    }
    h.advance('30d');
    await h.idle();
    expect(r.requests).toHaveLength(9);
    const rows = (await h.get(`/api/webhooks/${id}/deliveries?page_size=all`, { as: 'alice' })).body.results;
    expect(rows.map((d: { attempt: number }) => d.attempt)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(new Set(rows.map((d: { status_code: number }) => d.status_code))).toEqual(new Set([503]));
    expect(new Set(r.requests.map((q) => q.rawBody.toString()))).toHaveProperty('size', 1);
  });

  it('retries 408 and 429 but not 404', async () => {
    world();
    const statuses = [429, 408, 404];
    const r = await receiver({ behaviour: (_q, n) => ({ status: statuses[n - 1] ?? 200 }) });
    await projectHook(r.url, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    h.advance('5s');
    await h.idle();
    h.advance('300s');
    await h.idle();
    h.advance('30d');
    await h.idle();
    expect(r.requests).toHaveLength(3);
  });

  it('recovers after a refusing receiver comes back, and a 200 ends the retries', async () => {
    world({ delivery: { retryDelays: [1, 1, 1] } });
    const r = await receiver({ behaviour: (_q, n) => ({ status: n === 1 ? 500 : 200 }) });
    const id = await projectHook(r.url, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    h.advance('1s');
    await h.idle();
    h.advance('1m');
    await h.idle();
    const rows = (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results;
    expect(rows.map((d: { status_code: number; attempt: number }) => [d.status_code, d.attempt])).toEqual([
      [200, 2],
      [500, 1],
    ]);
  });

  it('records a hanging receiver as 504 after the read time-out and retries', async () => {
    world({ delivery: { readTimeoutMs: 150 } });
    const r = await receiver({ behaviour: (_q, n) => (n === 1 ? 'hang' : { status: 200 }) });
    const id = await projectHook(r.url, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    h.advance('5s');
    await h.idle();
    const rows = (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results;
    expect(rows.map((d: { status_code: number }) => d.status_code)).toEqual([200, 504]);
    expect(rows[1].response).toMatch(/Read timed out\. \(read timeout=0\.15\)/);
  });

  it('keeps answering API requests while a receiver hangs', async () => {
    world({ delivery: { readTimeoutMs: 400 } });
    const r = await receiver({ behaviour: () => 'hang' });
    await projectHook(r.url, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await expect.poll(() => r.requests.length).toBe(1);
    const during = await h.get('/api/tasks/1', { as: 'alice' });
    expect(during.body.name).toBe('x');
    expect(h.sim.deliveries().stats().inFlight).toBe(1);
    await h.idle();
    expect(h.sim.deliveries().stats()).toEqual({ queued: 0, inFlight: 0, scheduledRetries: 1 });
  });

  it('records a response over 1 MiB as an empty string', async () => {
    world();
    const big = Buffer.alloc(1024 * 1024 + 10, 'a');
    const r = await receiver({ behaviour: () => ({ status: 200, body: big }) });
    const id = await projectHook(r.url, ['update:task']);
    const res = await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    expect(res.body).toMatchObject({ status_code: 200, response: '' });
    const exact = await receiver({
      behaviour: () => ({ status: 200, body: Buffer.alloc(1024 * 1024, 'b') }),
    });
    await h.patch(`/api/webhooks/${id}`, { target_url: exact.url }, { as: 'alice' });
    const ok = await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    expect(ok.body.response).toHaveLength(1024 * 1024);
  });

  it('re-reads the webhook before each attempt: a deleted or deactivated webhook gets nothing more', async () => {
    world();
    const r = await receiver({ behaviour: () => ({ status: 500 }) });
    const id = await projectHook(r.url, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    await h.patch(`/api/webhooks/${id}`, { is_active: false }, { as: 'alice' });
    h.advance('1d');
    await h.idle();
    expect(r.requests).toHaveLength(1);
  });

  it('uses the current target_url and secret for a retry', async () => {
    world();
    const a = await receiver({ behaviour: () => ({ status: 500 }) });
    const b = await receiver({ secret: 'new' });
    const id = await projectHook(a.url, ['update:task'], 'old');
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    await h.patch(`/api/webhooks/${id}`, { target_url: b.url, secret: 'new' }, { as: 'alice' });
    h.advance('5s');
    await h.idle();
    expect(b.requests).toHaveLength(1);
    expect(b.requests[0]?.signatureValid).toBe(true);
  });

  it('counts the deliveries queued behind one in flight, per webhook, until they drain', async () => {
    world({ delivery: { readTimeoutMs: 300 } });
    const r = await receiver({ behaviour: (_q, n) => (n === 1 ? 'hang' : { status: 200 }) });
    await projectHook(r.url, ['update:task']);
    for (const name of ['a', 'b', 'c']) await h.patch('/api/tasks/1', { name }, { as: 'alice' });
    await expect.poll(() => r.requests.length).toBe(1);
    expect(h.sim.deliveries().stats()).toMatchObject({ queued: 2, inFlight: 1 });
    await h.idle();
    expect(h.sim.deliveries().stats()).toEqual({ queued: 0, inFlight: 0, scheduledRetries: 1 });
    expect(r.requests.map((q) => q.json.task.name)).toEqual(['a', 'b', 'c']);
  });
});

describe('receiver-side faults', () => {
  async function rule(effect: Record<string, unknown>, match: Record<string, unknown> = {}) {
    const res = await h.post('/_sim/faults', {
      match: { operation: 'webhooks.deliver', ...match },
      trigger: { times: 1 },
      effect,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }

  it('corrupts the signature: the independent receiver rejects it with 403', async () => {
    world();
    const r = await receiver({ secret: 's' });
    const id = await projectHook(r.url, ['update:task'], 's');
    await rule({ corruptSignature: true });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    expect(r.requests[0]?.signatureValid).toBe(false);
    const rows = (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results;
    expect(rows[0]).toMatchObject({ status_code: 403, response: 'Invalid Signature' });
  });

  it('refuses and times out without contacting the receiver, and retries on schedule', async () => {
    world();
    const r = await receiver();
    const id = await projectHook(r.url, ['update:task']);
    await rule({ deliveryRefused: true });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    await rule({ deliveryTimeout: true });
    h.advance('5s');
    await h.idle();
    h.advance('300s');
    await h.idle();
    const rows = (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results;
    expect(rows.map((d: { status_code: number }) => d.status_code)).toEqual([200, 504, 502]);
    expect(r.requests).toHaveLength(1);
  });

  it('drops a delivery (no request, no row) and records it in the outbound journal', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['update:task']);
    await rule({ deliveryDrop: true });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    expect(r.requests).toHaveLength(0);
    const journal = await h.get('/_sim/deliveries');
    expect(journal.body.entries).toHaveLength(1);
    expect(journal.body.entries[0]).toMatchObject({
      outcome: 'dropped',
      deliveryId: null,
      faults: ['rule-1'],
    });
  });

  it('duplicates a delivery: the receiver gets the same bytes twice', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['update:task']);
    await rule({ deliveryDuplicate: true });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    expect(r.requests).toHaveLength(2);
    expect(r.requests[0]!.rawBody.equals(r.requests[1]!.rawBody)).toBe(true);
  });

  it('delays a delivery until the clock passes the delay', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['update:task']);
    await rule({ deliveryDelay: '30s' });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.requests).toHaveLength(0);
    h.advance('30s');
    await h.idle();
    expect(r.requests).toHaveLength(1);
  });

  it('journals the raw body bytes and headers as sent', async () => {
    world();
    const r = await receiver({ secret: 'k' });
    await projectHook(r.url, ['update:task'], 'k');
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    const entry = (await h.get('/_sim/deliveries')).body.entries[0];
    expect(entry.body).toBe(r.requests[0]!.rawBody.toString('utf8'));
    expect(Object.fromEntries(entry.headers)['X-Signature-256']).toBe(
      r.requests[0]!.headers['x-signature-256'],
    );
    // The journal lists them in wire order, and the receiver got them in that order.
    expect(entry.headers.map((x: [string, string]) => x[0])).toEqual(WIRE_HEADER_ORDER);
    expect(r.requests[0]!.rawHeaders.filter((_: string, i: number) => i % 2 === 0)).toEqual(
      WIRE_HEADER_ORDER,
    );
    expect(Object.fromEntries(entry.headers).Host).toBe(new URL(r.url).host);
  });

  it('journals every outcome with the same keys in the same order', async () => {
    world();
    const r = await receiver();
    await projectHook(r.url, ['update:task']);
    await rule({ deliveryDuplicate: true });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    await rule({ deliveryDrop: true });
    await h.patch('/api/tasks/1', { name: 'y' }, { as: 'alice' });
    await h.idle();
    const entries = (await h.get('/_sim/deliveries')).body.entries;
    expect(
      entries.map((e: { outcome: string; deliveryId: number | null }) => [e.outcome, e.deliveryId]),
    ).toEqual([
      ['response', null],
      ['response', 1],
      ['dropped', null],
    ]);
    for (const e of entries)
      expect(Object.keys(e)).toEqual([
        'seq',
        'time',
        'webhookId',
        'event',
        'attempt',
        'redelivery',
        'url',
        'method',
        'headers',
        'body',
        'faults',
        'deliveryId',
        'outcome',
        'statusCode',
      ]);
    expect(entries[2]).toMatchObject({ statusCode: null, faults: ['rule-2'], method: 'POST' });
  });

  it('matches fault rules on the current target path after target_url changes', async () => {
    world();
    const a = await receiver();
    const b = await receiver();
    const id = await projectHook(a.url, ['update:task']);
    await rule({ deliveryDrop: true }, { path: '/other' });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await h.idle();
    expect(a.requests).toHaveLength(1);
    await h.patch(`/api/webhooks/${id}`, { target_url: b.url.replace('/hook', '/other') }, { as: 'alice' });
    await h.patch('/api/tasks/1', { name: 'y' }, { as: 'alice' });
    await h.idle();
    expect(b.requests).toHaveLength(0);
    expect((await h.get('/_sim/deliveries')).body.entries.at(-1)).toMatchObject({ outcome: 'dropped' });
  });
});
