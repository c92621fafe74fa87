import { afterEach, describe, expect, it } from 'vitest';
import { aWebhook } from './support/builders';
import { createHarness, type Harness } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';

const open: Harness[] = [];
let r: Receiver | undefined;
afterEach(async () => {
  for (const h of open.splice(0)) h.close();
  await r?.close();
  r = undefined;
});

describe('isolation and clocks', () => {
  it('keeps two simulators in one process apart', async () => {
    const a = createHarness();
    const b = createHarness();
    open.push(a, b);
    await a.post('/api/projects', { name: 'only-in-a' }, { as: 'admin' });
    expect((await b.get('/api/projects', { as: 'admin' })).body.count).toBe(0);
    expect((await a.get('/api/projects', { as: 'admin' })).body.count).toBe(1);
  });

  it('retries under a real, sped-up clock without advancing it by hand', async () => {
    const h = createHarness({ clock: { mode: 'real', speed: 1000 } });
    open.push(h);
    r = await startReceiver({ behaviour: (_q, n) => ({ status: n < 3 ? 500 : 200 }) });
    h.seed({
      users: [{ username: 'u' }],
      projects: [{ name: 'p', owner: 'u' }],
      tasks: [{ name: 't', owner: 'u', project: 'p' }],
    });
    await h.post('/api/webhooks', aWebhook().forProject(1).to(r.url).withEvents('update:task').build(), {
      as: 'u',
    });
    await h.patch('/api/tasks/1', { name: 'x' }, { as: 'u' });
    // 5 s and 300 s of simulated time pass in about 0.3 s of wall time.
    await expect.poll(() => r?.requests.length, { timeout: 5000 }).toBe(3);
  });

  it('never drops a synchronous ping, even when a drop rule matches', async () => {
    const h = createHarness();
    open.push(h);
    r = await startReceiver();
    h.seed({ users: [{ username: 'u' }], projects: [{ name: 'p', owner: 'u' }] });
    const w = await h.post('/api/webhooks', aWebhook().forProject(1).to(r.url).build(), { as: 'u' });
    await h.post('/_sim/faults', {
      match: { operation: 'webhooks.deliver' },
      effect: { deliveryDrop: true },
    });
    const ping = await h.post(`/api/webhooks/${w.body.id}/ping`, undefined, { as: 'u' });
    expect(ping.status).toBe(200);
    expect(r.requests).toHaveLength(1);
  });
});
