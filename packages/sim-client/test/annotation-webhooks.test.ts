import { type StartedAnnotationSim, startAnnotationSim } from '@sims/annotation-sim';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AnnotationSimClient,
  createAnnotationSimClient,
  SimControlError,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../src/index';

/**
 * `webhooks.list` and `webhooks.redeliver` against a real annotation simulator on 127.0.0.1 that
 * delivers to this package's webhook receiver.
 */
const SECRET = 'client-secret';
const admin = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };

let sim: StartedAnnotationSim;
let control: AnnotationSimClient;
let receiver: WebhookReceiver;
let hookId: number;

/** The emulated CVAT API, as the code under test calls it. */
async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: { ...admin, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as unknown };
}

beforeEach(async () => {
  sim = await startAnnotationSim({ seed: 1, clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' } });
  control = createAnnotationSimClient({ baseUrl: sim.url });
  receiver = await startWebhookReceiver({ secret: SECRET });
  const seeded = await control.seed<{ webhooks: number[] }>({
    users: [{ username: 'alice' }],
    projects: [{ name: 'p1', owner: 'alice' }],
    tasks: [{ name: 't1', owner: 'alice', project: 'p1', size: 10, segment_size: 5 }],
    webhooks: [
      {
        target_url: receiver.url,
        type: 'project',
        project: 'p1',
        owner: 'alice',
        secret: SECRET,
        events: ['update:task'],
      },
    ],
  });
  hookId = seeded.seeded.webhooks[0] as number;
});
afterEach(async () => {
  await sim.close();
  await receiver.close();
});

describe('webhooks.list', () => {
  it('lists the webhooks with their delivery rows, as the API renders them', async () => {
    const [before] = await control.webhooks.list();
    expect(before).toMatchObject({
      id: hookId,
      target_url: receiver.url,
      type: 'project',
      events: ['update:task'],
      is_active: true,
      deliveries: [],
      delivery_count: 0,
    });
    expect(before).not.toHaveProperty('last_status');

    expect((await api('PATCH', '/api/tasks/1', { name: 'renamed' })).status).toBe(200);
    await control.deliveries.idle();
    const [hook, ...rest] = await control.webhooks.list();
    expect(rest).toEqual([]);
    expect(hook).toMatchObject({ id: hookId, delivery_count: 1, last_status: 200 });
    expect(hook?.deliveries).toEqual([
      expect.objectContaining({
        webhook_id: hookId,
        event: 'update:task',
        status_code: 200,
        redelivery: false,
        attempt: 1,
        changed_fields: 'name',
      }),
    ]);
    // The row's payload is what the receiver got.
    expect(receiver.deliveries).toHaveLength(1);
    expect(hook?.deliveries[0]?.request).toEqual(receiver.deliveries[0]?.body);
    // The same fields and values as the emulated API's own routes.
    const { deliveries, delivery_count, ...webhook } = hook ?? ({} as never);
    expect(webhook).toEqual((await api('GET', `/api/webhooks/${hookId}`)).body);
    expect(deliveries).toEqual(
      ((await api('GET', `/api/webhooks/${hookId}/deliveries`)).body as { results: unknown }).results,
    );
  });

  it('keeps the newest `limit` rows of each webhook, and refuses a limit below 1', async () => {
    for (const name of ['a', 'b', 'c']) {
      await api('PATCH', '/api/tasks/1', { name });
      await control.clock.advance('1s');
      await control.deliveries.idle();
    }
    const [all] = await control.webhooks.list();
    expect(all?.deliveries.map((d) => d.id)).toEqual([3, 2, 1]);
    const [limited] = await control.webhooks.list({ limit: 2 });
    expect(limited?.deliveries.map((d) => d.id)).toEqual([3, 2]);
    expect(limited?.delivery_count).toBe(3);

    const error = await control.webhooks.list({ limit: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimControlError);
    expect(error).toMatchObject({ status: 400, path: 'limit' });
  });

  it('lists only its own namespace', async () => {
    expect(await control.webhooks.list()).toHaveLength(1);
    expect(await control.withNamespace('other').webhooks.list()).toEqual([]);
  });
});

describe('webhooks.redeliver', () => {
  it('sends a delivery row again, signed, and records it as a redelivery', async () => {
    await api('PATCH', '/api/tasks/1', { name: 'renamed' });
    await control.deliveries.idle();
    const [hook] = await control.webhooks.list();
    const original = hook?.deliveries[0];
    expect(original).toBeDefined();

    expect(await control.webhooks.redeliver(hookId, original?.id as number)).toEqual({
      redelivered: true,
      webhook: hookId,
      delivery: original?.id,
    });
    await control.deliveries.idle();
    await receiver.waitFor(2);
    const [first, again] = receiver.deliveries;
    expect(again?.signatureValid).toBe(true);
    expect(again?.body).toEqual(first?.body);

    const [after] = await control.webhooks.list();
    expect(after?.delivery_count).toBe(2);
    expect(after?.deliveries.map((d) => [d.event, d.redelivery, d.status_code])).toEqual([
      ['update:task', true, 200],
      ['update:task', false, 200],
    ]);
    expect((await control.deliveries.list()).entries.map((d) => d.redelivery)).toEqual([false, true]);
  });

  it('is a 404 for a webhook or delivery that does not exist', async () => {
    await api('PATCH', '/api/tasks/1', { name: 'renamed' });
    await control.deliveries.idle();
    await expect(control.webhooks.redeliver(999, 1)).rejects.toMatchObject({
      status: 404,
      reason: 'NOT_FOUND',
      message: 'no webhook 999',
    });
    await expect(control.webhooks.redeliver(hookId, 999)).rejects.toMatchObject({
      status: 404,
      message: `webhook ${hookId} has no delivery 999`,
    });
    // Another namespace has neither.
    await expect(control.withNamespace('other').webhooks.redeliver(hookId, 1)).rejects.toBeInstanceOf(
      SimControlError,
    );
    await control.deliveries.idle();
    expect(receiver.deliveries).toHaveLength(1);
  });
});
