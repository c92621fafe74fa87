import { type StartedAnnotationSim, startAnnotationSim } from '@sims/annotation-sim';
import { type AnnotationSimClient, createAnnotationSimClient, startWebhookReceiver } from '@sims/sim-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scenario, send } from './support';

const admin = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };
const SECRET = 'scenario-secret';

let sim: StartedAnnotationSim;
let client: AnnotationSimClient;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeEach(async () => {
  sim = await startAnnotationSim({
    port: 0,
    seed: 5,
    clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' },
  });
  client = createAnnotationSimClient({ baseUrl: sim.url });
  receiver = await startWebhookReceiver({ secret: SECRET });
  await client.seed({
    users: [{ username: 'alice', password: 'alice-password' }],
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
});
afterEach(async () => {
  await sim.close();
  await receiver.close();
});

async function load(file: string) {
  const result = await client.scenarios.load(scenario(file), { source: file });
  expect(result.name).toBe(file.replace('.yaml', ''));
}

/** Lets in-flight deliveries finish, then moves the clock past scheduled retries until none is left. */
async function drainDeliveries() {
  for (let i = 0; i < 50; i++) {
    const stats = await client.deliveries.idle();
    if (stats.scheduledRetries === 0) return;
    await client.clock.advance('1h');
  }
  throw new Error('retries never drained');
}

describe('annotation scenarios', () => {
  it('flaky-webhook-receiver: about 30 % of attempts are refused, retries deliver every event', async () => {
    await load('flaky-webhook-receiver.yaml');
    const updates = 20;
    for (let i = 0; i < updates; i++) {
      const res = await send(`${sim.url}/api/tasks/1`, 'PATCH', { name: `t1-v${i}` }, admin);
      expect(res.status).toBe(200);
    }
    await drainDeliveries();
    // Every event arrived, each exactly once, each correctly signed.
    const names = receiver.deliveries.map((d) => (d.body as { task: { name: string } }).task.name);
    expect(new Set(names).size).toBe(updates);
    expect(receiver.deliveries.every((d) => d.signatureValid)).toBe(true);
    // Some attempts were refused on the way, and those were retried.
    const { entries } = await client.deliveries.list({ event: 'update:task' });
    const refused = entries.filter((e) => e.faults.includes('flaky-receiver'));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((e) => e.statusCode === 502 || e.statusCode === null)).toBe(true);
    expect(entries.some((e) => e.attempt > 1)).toBe(true);
    expect(entries.length).toBe(updates + refused.length);
  });

  async function exportEvents() {
    const res = await send(`${sim.url}/api/events/export`, 'POST', undefined, admin);
    expect(res.status).toBe(202);
    return res.body.rq_id as string;
  }
  const status = async (rqId: string) =>
    (await send(`${sim.url}/api/requests/${encodeURIComponent(rqId)}`, 'GET', undefined, admin)).body;

  it('delayed-export: an export stays unfinished for 30 s of world-clock time, then finishes', async () => {
    await load('delayed-export.yaml');
    const rqId = await exportEvents();
    await client.clock.advance('29s');
    expect((await status(rqId)).status).toMatch(/^(queued|started)$/);
    await client.clock.advance('1s');
    const done = await status(rqId);
    expect(done.status).toBe('finished');
    const csv = await fetch(done.result_url.replace(/^https?:\/\/[^/]+/, sim.url), { headers: admin });
    expect(csv.status).toBe(200);
    expect((await csv.text()).split('\n')[0]).toMatch(/^scope,obj_name,obj_id/);
  });

  it('failed-export: the next export ends failed with the scenario message and cannot be downloaded', async () => {
    await load('failed-export.yaml');
    const rqId = await exportEvents();
    await client.clock.advance('1m');
    const failed = await status(rqId);
    expect(failed).toMatchObject({ status: 'failed', message: 'Export failed: ClickHouse query timed out' });
    const download = await send(
      `${sim.url}/api/events/download?rq_id=${encodeURIComponent(rqId)}`,
      'GET',
      undefined,
      admin,
    );
    expect(download.status).toBe(400);
    // Only the next export fails.
    const second = await exportEvents();
    await client.clock.advance('1m');
    expect((await status(second)).status).toBe('finished');
  });

  it('analytics-store-down: client events still get 201 but are dropped, and exports fail', async () => {
    await load('analytics-store-down.yaml');
    const now = '2026-01-01T00:00:00.000Z';
    const posted = await send(
      `${sim.url}/api/events`,
      'POST',
      { events: [{ scope: 'click:element', timestamp: now }], timestamp: now },
      { ...admin, accept: 'application/vnd.cvat+json' },
    );
    expect(posted.status).toBe(201);
    const rqId = await exportEvents();
    await client.clock.advance('1m');
    const failed = await status(rqId);
    expect(failed.status).toBe('failed');
    expect(failed.message).toMatch(/ClickHouse|connect/i);
    // Recovery: without the fault the same client event is kept and exported.
    await client.faults.clear();
    await send(
      `${sim.url}/api/events`,
      'POST',
      { events: [{ scope: 'click:element', timestamp: now }], timestamp: now },
      admin,
    );
    const ok = await exportEvents();
    await client.clock.advance('1m');
    const done = await status(ok);
    expect(done.status).toBe('finished');
    const csv = await (
      await fetch(done.result_url.replace(/^https?:\/\/[^/]+/, sim.url), { headers: admin })
    ).text();
    expect(csv.match(/^click:element,/gm)).toHaveLength(1);
  });
});
