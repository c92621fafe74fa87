import { afterEach, describe, expect, it } from 'vitest';
import type { AnnotationSimOptions } from '../src/app';
import type { OutboundRequest } from '../src/delivery/sender';
import { createHarness, type Harness } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

const sender = async (_req: OutboundRequest) => ({ kind: 'response' as const, status: 200, body: 'ok' });
const CVAT_XML = encodeURIComponent('CVAT for images 1.1');
const WEBHOOK = {
  target_url: 'http://receiver.test/hook',
  type: 'project',
  project: 'p',
  owner: 'admin',
  events: ['update:task'],
};

/** A simulator with the given shares, and namespaces `a`, `b`, `c`, … each with a project, a task and a webhook. */
async function worlds(budgets: AnnotationSimOptions['budgets'], names = ['a', 'b', 'c']) {
  h = createHarness({ sender, budgets });
  for (const ns of names) {
    const seeded = await h.post(`/_ns/${ns}/_sim/seed`, {
      projects: [{ name: 'p', owner: 'admin' }],
      tasks: [{ name: 't', owner: 'admin', project: 'p', size: 2 }],
      webhooks: [WEBHOOK],
    });
    expect(seeded.status).toBe(201);
  }
}

const rows = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    scope: 'click:element',
    source: 'client',
    timestamp: '2026-01-01T00:00:00Z',
    payload: JSON.stringify({ tag, i, text: 'x'.repeat(200) }),
  }));

/** What `GET /_sim/memory` says of one kind in namespace `ns`: the process's pool and the namespace's part. */
async function memory(ns: string, kind: string) {
  const body = (await h.get(`/_ns/${ns}/_sim/memory`)).body;
  return {
    pool: body.kinds.find((k: { kind: string }) => k.kind === kind),
    mine: body.namespace.kinds[kind] ?? { bytes: 0, evicted: 0 },
  };
}

describe('the memory budget of all namespaces', () => {
  it('evicts the event rows of the namespace holding the oldest first, a quarter of its log at a time', async () => {
    // 40 rows of ~400 bytes are ~25 KB with their columns: two namespaces' fit, a third's does not.
    await worlds({ events: 60_000 });
    for (const ns of ['a', 'b']) await h.post(`/_ns/${ns}/_sim/events/records`, { events: rows(40, ns) });
    expect((await memory('a', 'events')).pool.evicted).toBe(0);
    await h.post('/_ns/c/_sim/events/records', { events: rows(40, 'c') });
    const a = (await h.get('/_ns/a/_sim/events')).body;
    const b = (await h.get('/_ns/b/_sim/events')).body;
    const c = (await h.get('/_ns/c/_sim/events')).body;
    // A quarter of a's log, then a quarter of what is left, … until the logs fit.
    const quarters: number[] = [];
    for (let left = 40, gone = 0; left > 0; ) {
      const quarter = Math.ceil(left / 4);
      gone += quarter;
      left -= quarter;
      quarters.push(gone);
    }
    expect(a.evicted).toBeGreaterThan(0);
    expect(quarters).toContain(a.evicted);
    expect(a.stored + a.evicted).toBe(40);
    expect([b.evicted, c.evicted]).toEqual([0, 0]);
    const used = await memory('a', 'events');
    expect(used.pool.usedBytes).toBeLessThanOrEqual(60_000);
    expect(used.mine.evicted).toBe(a.evicted);
  });

  it('never evicts a request still running; once ended, the oldest of any namespace goes first', async () => {
    await worlds({ requests: 3_000 }, ['a', 'b']);
    const start = (ns: string) =>
      h.post(`/_ns/${ns}/api/tasks/1/dataset/export?format=${CVAT_XML}`, undefined, { as: 'admin' });
    const status = async (ns: string, rq: string) =>
      (await h.get(`/_ns/${ns}/api/requests/${encodeURIComponent(rq)}`, { as: 'admin' })).status;
    const a = (await start('a')).body.rq_id;
    await h.post('/_ns/a/_sim/clock/advance', { by: '3s' });
    const b = (await start('b')).body.rq_id;
    // a's finished export (its file kept for download) fills most of the share; b's runs beside it.
    const held = await memory('a', 'requests');
    expect(held.mine.bytes).toBeGreaterThan(1_500);
    expect(await status('a', a)).toBe(200);
    expect(await status('b', b)).toBe(200);
    expect(
      (await h.get(`/_ns/b/api/requests/${encodeURIComponent(b)}`, { as: 'admin' })).body.status,
    ).not.toBe('finished');
    await h.post('/_ns/b/_sim/clock/advance', { by: '3s' });
    // b's ended: a's, the oldest, went as an expired one does.
    expect(await status('a', a)).toBe(404);
    expect(await status('b', b)).toBe(200);
    expect((await memory('a', 'requests')).mine).toEqual({ bytes: 0, evicted: 1 });
  });

  it("drops the oldest delivery rows and outbound journal entries of any namespace, the journal's dropped counting them", async () => {
    await worlds({ deliveries: 40_000 }, ['a', 'b']);
    for (const ns of ['a', 'b']) {
      const engine = h.sim.deliveries(ns);
      for (let i = 0; i < 5; i++)
        engine.enqueue(1, {
          event: 'update:task',
          webhook_id: 1,
          task: { id: 1, notes: `${ns}${i}`.repeat(500) },
        });
      await engine.idle();
    }
    const a = await h.get('/_ns/a/api/webhooks/1/deliveries', { as: 'admin' });
    const b = await h.get('/_ns/b/api/webhooks/1/deliveries', { as: 'admin' });
    expect(a.body.count).toBeLessThan(5);
    expect(b.body.count).toBe(5);
    const outbound = await h.get('/_ns/a/_sim/deliveries');
    expect(outbound.body.dropped).toBeGreaterThan(0);
    const { pool, mine } = await memory('a', 'deliveries');
    expect(pool.usedBytes).toBeLessThanOrEqual(40_000);
    expect(mine.evicted).toBe(5 - a.body.count + outbound.body.dropped);
  });

  it('gives back what a deleted namespace held', async () => {
    await worlds({ events: 1_000_000 }, ['a']);
    await h.post('/_ns/a/_sim/events/records', { events: rows(40, 'a') });
    expect((await memory('a', 'events')).pool.usedBytes).toBeGreaterThan(0);
    expect((await h.del('/_sim/namespaces/a')).status).toBe(204);
    const body = (await h.get('/_sim/memory')).body;
    expect(body.kinds.find((k: { kind: string }) => k.kind === 'events').usedBytes).toBe(0);
  });
});
