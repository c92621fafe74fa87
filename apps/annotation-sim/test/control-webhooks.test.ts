import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryView, RedeliverResult, WebhooksView, WebhookView } from '../src/index';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';

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

/** Org acme with project "acme-p" (id 1) owned by alice, task "t" (id 1). */
function world() {
  h = createHarness();
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

/** Waits (control plane) until nothing is queued or in flight in the namespace. */
async function idle(prefix = '') {
  const res = await h.post(`${prefix}/_sim/deliveries/idle`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function webhooks(query = '', prefix = ''): Promise<WebhookView[]> {
  const res = await h.get(`${prefix}/_sim/webhooks${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as WebhooksView).webhooks;
}

const redeliver = (webhook: number | string, delivery: number | string, prefix = '') =>
  h.post(`${prefix}/_sim/webhooks/${webhook}/deliveries/${delivery}/redeliver`);

describe('GET /_sim/webhooks', () => {
  it('lists no webhooks in an empty world', async () => {
    world();
    expect(await webhooks()).toEqual([]);
  });

  it("shows a delivery with the receiver's status code and response, as the API renders it", async () => {
    world();
    const r = await receiver({ secret: 's', behaviour: () => ({ status: 201, body: 'accepted!' }) });
    const id = await projectHook(r.url, ['update:task'], 's');
    await h.patch('/api/tasks/1', { name: 'renamed' }, { as: 'alice' });
    await idle();
    expect(r.requests).toHaveLength(1);

    const [view, ...rest] = await webhooks();
    expect(rest).toEqual([]);
    expect(view).toMatchObject({
      id,
      target_url: r.url,
      type: 'project',
      project_id: 1,
      organization: 1,
      events: ['update:task'],
      is_active: true,
      content_type: 'application/json',
      delivery_count: 1,
      last_status: 201,
    });
    expect(view).not.toHaveProperty('secret');
    const delivery = view!.deliveries[0] as DeliveryView;
    expect(view!.deliveries).toHaveLength(1);
    expect(delivery).toMatchObject({
      webhook_id: id,
      event: 'update:task',
      status_code: 201,
      response: 'accepted!',
      redelivery: false,
      attempt: 1,
      changed_fields: 'name',
    });
    expect(typeof delivery.created_date).toBe('string');
    expect(typeof delivery.updated_date).toBe('string');
    expect(delivery.request).toEqual(r.requests[0]!.json);

    // The same fields and values as the emulated API: the webhook and its delivery list.
    const { deliveries, delivery_count, ...webhook } = view!;
    expect(webhook).toEqual((await h.get(`/api/webhooks/${id}`, { as: 'alice' })).body);
    expect(deliveries).toEqual((await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results);
  });

  it('records a failing receiver too (status and body) and lists newest first like the API', async () => {
    world();
    const r = await receiver({
      behaviour: (_req, n) => ({ status: n === 1 ? 200 : 418, body: `reply ${n}` }),
    });
    const id = await projectHook(r.url, ['update:task']);
    await h.patch('/api/tasks/1', { name: 'a' }, { as: 'alice' });
    await idle();
    h.advance('1s');
    await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    const [view] = await webhooks();
    expect(view!.deliveries.map((d) => [d.event, d.status_code, d.response])).toEqual([
      ['ping', 418, 'reply 2'],
      ['update:task', 200, 'reply 1'],
    ]);
    expect(view!.deliveries).toEqual(
      (await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' })).body.results,
    );
  });

  it('lists every webhook of the world by id, each with only its own deliveries', async () => {
    world();
    const r1 = await receiver();
    const r2 = await receiver();
    const a = await projectHook(r1.url, ['update:task']);
    const b = await projectHook(r2.url, ['update:project']);
    const org = await h.post(
      '/api/webhooks?org=acme',
      aWebhook().forOrganization().to(r2.url).withEvents('create:project').build(),
      { as: 'alice' },
    );
    expect(org.status).toBe(201);
    await h.patch('/api/tasks/1', { name: 'a' }, { as: 'alice' });
    await idle();
    const views = await webhooks();
    expect(views.map((w) => [w.id, w.type, w.project_id, w.organization])).toEqual([
      [a, 'project', 1, 1],
      [b, 'project', 1, 1],
      [org.body.id, 'organization', null, 1],
    ]);
    expect(views.map((w) => w.delivery_count)).toEqual([1, 0, 0]);
    expect(views[1]!.deliveries).toEqual([]);
    expect(views[1]).not.toHaveProperty('last_status');
  });

  it('caps each list at ?limit= (default 50), newest first, and counts every row', async () => {
    world();
    const r = await receiver();
    const id = await projectHook(r.url, ['update:task']);
    for (let i = 0; i < 53; i++) {
      h.advance('1s');
      expect((await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' })).status).toBe(200);
    }
    const all = (await h.get(`/api/webhooks/${id}/deliveries?page_size=100`, { as: 'alice' })).body.results;
    expect(all).toHaveLength(53);

    const [byDefault] = await webhooks();
    expect(byDefault!.delivery_count).toBe(53);
    expect(byDefault!.deliveries).toEqual(all.slice(0, 50));

    const [two] = await webhooks('?limit=2');
    expect(two!.delivery_count).toBe(53);
    expect(two!.deliveries.map((d) => d.id)).toEqual([all[0].id, all[1].id]);
    expect(two!.deliveries[0]!.id).toBeGreaterThan(two!.deliveries[1]!.id);

    const [many] = await webhooks('?limit=1000');
    expect(many!.deliveries).toHaveLength(53);

    for (const bad of ['0', '-1', '1.5', 'abc', '1e3']) {
      const res = await h.get(`/_sim/webhooks?limit=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ status: 400, reason: 'INVALID_INPUT', path: 'limit' });
    }
  });
});

describe('POST /_sim/webhooks/:id/deliveries/:deliveryId/redeliver', () => {
  it('sends the stored payload again, as the API redelivery does, and a redelivery row appears', async () => {
    world();
    const r = await receiver({ secret: 's', behaviour: (_req, n) => ({ status: 200, body: `got ${n}` }) });
    const id = await projectHook(r.url, ['update:task'], 's');
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'alice' });
    await idle();
    const [before] = await webhooks();
    const first = before!.deliveries[0]!;
    h.advance('1m');

    // No credentials: the control plane.
    const res = await redeliver(id, first.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      redelivered: true,
      webhook: id,
      delivery: first.id,
    } satisfies RedeliverResult);
    await idle();

    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]!.rawBody.equals(r.requests[0]!.rawBody)).toBe(true);
    expect(r.requests[1]!.signatureValid).toBe(true);
    const [after] = await webhooks();
    expect(after!.delivery_count).toBe(2);
    expect(after!.deliveries[0]).toMatchObject({
      redelivery: true,
      attempt: 1,
      event: 'update:task',
      status_code: 200,
      response: 'got 2',
      request: first.request,
    });
    expect(after!.deliveries[0]!.id).not.toBe(first.id);
    expect(after!.deliveries[1]).toEqual(first);
    // The outbound journal marks it as a redelivery too.
    const journal = (await h.get(`/_sim/deliveries?webhook=${id}`)).body.entries;
    expect(journal.map((e: { redelivery: boolean }) => e.redelivery)).toEqual([false, true]);
  });

  it('redelivers a redelivery and a ping, each row independently', async () => {
    world();
    const r = await receiver();
    const id = await projectHook(r.url, ['update:task']);
    const ping = (await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' })).body;
    expect((await redeliver(id, ping.id)).status).toBe(200);
    await idle();
    const [view] = await webhooks();
    const again = view!.deliveries[0]!;
    expect(again).toMatchObject({ event: 'ping', redelivery: true });
    expect((await redeliver(id, again.id)).status).toBe(200);
    await idle();
    expect(r.requests).toHaveLength(3);
    expect((await webhooks())[0]!.delivery_count).toBe(3);
  });

  it('sends nothing for an inactive webhook, as the API redelivery does', async () => {
    world();
    const r = await receiver();
    const id = await projectHook(r.url, ['update:task']);
    const ping = (await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' })).body;
    await h.patch(`/api/webhooks/${id}`, { is_active: false }, { as: 'alice' });
    expect((await redeliver(id, ping.id)).status).toBe(200);
    await idle();
    expect(r.requests).toHaveLength(1);
    expect((await webhooks())[0]).toMatchObject({ is_active: false, delivery_count: 1 });
  });

  it('answers 404 in the control envelope for an unknown webhook or delivery', async () => {
    world();
    const r = await receiver();
    const a = await projectHook(r.url, ['update:task']);
    const b = await projectHook(r.url, ['update:task']);
    const ofA = (await h.post(`/api/webhooks/${a}/ping`, undefined, { as: 'alice' })).body.id as number;
    for (const [webhook, delivery] of [
      [999, ofA],
      ['x', ofA],
      [a, 999],
      [a, 'x'],
      // A delivery of another webhook.
      [b, ofA],
    ] as const) {
      const res = await redeliver(webhook, delivery);
      expect(res.status, `${webhook}/${delivery}`).toBe(404);
      expect(res.body).toEqual({
        error: { status: 404, reason: 'NOT_FOUND', message: expect.any(String) },
      });
    }
    await idle();
    expect(r.requests).toHaveLength(1);
  });
});

describe('namespaces', () => {
  it('shows and redelivers only the webhooks of the world the request selects', async () => {
    world();
    const r = await receiver();
    const id = await projectHook(r.url, ['update:task']);
    const ping = (await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' })).body;

    expect(await webhooks('', '/_ns/other')).toEqual([]);
    const viaHeader = await h.get('/_sim/webhooks', { headers: { 'x-sim-namespace': 'other' } });
    expect(viaHeader.body).toEqual({ webhooks: [] });
    expect((await redeliver(id, ping.id, '/_ns/other')).status).toBe(404);

    // A webhook of the other world, with the same ids, stays there.
    const r2 = await receiver();
    const project = await h.post('/_ns/other/api/projects', { name: 'p' }, { as: 'admin' });
    expect(project.status).toBe(201);
    const hook = await h.post(
      '/_ns/other/api/webhooks',
      aWebhook().forProject(project.body.id).to(r2.url).withEvents('update:task').build(),
      { as: 'admin' },
    );
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const otherPing = (
      await h.post(`/_ns/other/api/webhooks/${hook.body.id}/ping`, undefined, { as: 'admin' })
    ).body;
    expect((await redeliver(hook.body.id, otherPing.id, '/_ns/other')).status).toBe(200);
    await idle('/_ns/other');
    await idle();

    const other = await webhooks('', '/_ns/other');
    expect(other.map((w) => [w.target_url, w.delivery_count])).toEqual([[r2.url, 2]]);
    expect(other[0]!.deliveries.map((d) => d.redelivery)).toEqual([true, false]);
    const mine = await webhooks();
    expect(mine.map((w) => [w.target_url, w.delivery_count])).toEqual([[r.url, 1]]);
    expect(r.requests).toHaveLength(1);
    expect(r2.requests).toHaveLength(2);
  });
});

describe('control OpenAPI', () => {
  it('describes both routes', async () => {
    world();
    const doc = (await h.get('/_sim/openapi.json')).body;
    expect(doc.paths['/_sim/webhooks']?.get).toBeDefined();
    expect(doc.paths['/_sim/webhooks/{id}/deliveries/{deliveryId}/redeliver']?.post).toBeDefined();
  });
});
