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
});
