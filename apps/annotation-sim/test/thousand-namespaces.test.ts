import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundRequest } from '../src/delivery/sender';
import { createHarness, type Harness } from './support/harness';

// A full collection before each sample: what is measured is memory still held, not garbage.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
/** Heap plus ArrayBuffer backing stores (the event log's columns), after collections a few turns apart. */
async function retained(): Promise<number> {
  for (let k = 0; k < 3; k++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const MiB = 1024 * 1024;
const NAMESPACES = 1000;
/** The shares the options give: 7.5 MiB in all. */
const BUDGETS = { journal: 0.5 * MiB, events: 3 * MiB, deliveries: 3 * MiB, requests: 1 * MiB };
const TOTAL = Object.values(BUDGETS).reduce((a, b) => a + b, 0);
/**
 * What a namespace that used everything costs whatever it holds (its delivery engine, its stores' and
 * tables' empty structures): 16.4 KB measured with every share 0, so nothing is kept.
 */
const ACTIVE_NAMESPACE_BYTES = 20 * 1024;
/** The shares (the stores' estimates are within a quarter of what they hold), and the namespaces. */
const BOUND = TOTAL * 1.25 + NAMESPACES * ACTIVE_NAMESPACE_BYTES;
/** Per namespace, once busy: event rows of ~1.2 KB, webhook deliveries of ~3 KB (and one export). */
const ROWS = 100;
const DELIVERIES = 10;
const CVAT_XML = encodeURIComponent('CVAT for images 1.1');

/** An injected sender: answers 200 at once (no socket). */
const sender = async (_req: OutboundRequest) => ({ kind: 'response' as const, status: 200, body: 'ok' });

/** A row, distinct per namespace and row (no shared string to cheat with). */
const row = (ns: number, i: number) => ({
  scope: 'click:element',
  obj_name: 'button',
  obj_id: i,
  source: 'client',
  timestamp: '2026-01-01T00:00:00Z',
  payload: JSON.stringify({ ns, i, text: 'x'.repeat(1100) }),
});

/** A delivery payload, distinct per namespace and delivery. */
const payload = (ns: number, i: number) => ({
  event: 'update:task',
  webhook_id: 1,
  task: { id: 1, name: `t-${ns}-${i}`, notes: 'y'.repeat(3000) },
});

const ns = (i: number) => `/_ns/n${i}`;
let h: Harness;
/** What the busy part added to the small worlds. */
let busy = 0;
/** The first export request of namespace n0, and the ids of its first delivery rows. */
let firstExport = '';
let firstDeliveries: number[] = [];

/**
 * 1,000 namespaces, each a small world (a project with a task, a webhook), then busy: 100 event rows,
 * 10 webhook deliveries, a dataset export kept for download, and the journal entries of all those
 * requests. What that adds must stay within the shares and what an active namespace costs anyway.
 */
beforeAll(async () => {
  h = createHarness({ sender, budgets: BUDGETS, maxNamespaces: NAMESPACES + 1 });
  for (let i = 0; i < NAMESPACES; i++) {
    const seeded = await h.post(`${ns(i)}/_sim/seed`, {
      projects: [{ name: 'p', owner: 'admin', labels: [{ name: 'car' }] }],
      tasks: [{ name: 't', owner: 'admin', project: 'p', size: 2 }],
      webhooks: [
        {
          target_url: 'http://receiver.test/hook',
          type: 'project',
          project: 'p',
          owner: 'admin',
          events: ['update:task'],
        },
      ],
    });
    expect(seeded.status).toBe(201);
  }
  const before = await retained();
  for (let i = 0; i < NAMESPACES; i++) {
    const rows = Array.from({ length: ROWS }, (_, k) => row(i, k));
    expect((await h.post(`${ns(i)}/_sim/events/records`, { events: rows })).status).toBe(201);
    const started = await h.post(`${ns(i)}/api/tasks/1/dataset/export?format=${CVAT_XML}`, undefined, {
      as: 'admin',
    });
    expect(started.status).toBe(202);
    if (i === 0) firstExport = started.body.rq_id;
    expect((await h.post(`${ns(i)}/_sim/clock/advance`, { by: '3s' })).status).toBe(200);
    const engine = h.sim.deliveries(`n${i}`);
    for (let k = 0; k < DELIVERIES; k++) engine.enqueue(1, payload(i, k));
    await engine.idle();
    if (i === 0) {
      const first = await h.get(`${ns(0)}/api/webhooks/1/deliveries`, { as: 'admin' });
      firstDeliveries = first.body.results.map((d: { id: number }) => d.id);
      expect(firstDeliveries).toHaveLength(DELIVERIES);
    }
  }
  busy = (await retained()) - before;
}, 120_000);
afterAll(() => h?.close());

describe('a thousand busy namespaces', () => {
  it('hold no more than the memory budget the options set, however much they logged', () => {
    // Before the budget (the shares ignored, each namespace bounded on its own only): 331.8 MiB.
    console.log(
      `busy namespaces added ${(busy / MiB).toFixed(1)} MiB (shares ${(TOTAL / MiB).toFixed(1)} MiB)`,
    );
    expect(busy).toBeLessThan(BOUND);
  });

  it('count what was evicted, process-wide and in the namespace that lost it', async () => {
    const memory = await h.get(`${ns(0)}/_sim/memory`);
    expect(memory.status).toBe(200);
    const kinds = Object.fromEntries(
      memory.body.kinds.map((k: { kind: string }) => [k.kind, k] as const),
    ) as Record<string, { maxBytes: number; usedBytes: number; evicted: number }>;
    for (const [kind, share] of Object.entries(BUDGETS)) {
      expect(kinds[kind]?.maxBytes).toBe(share);
      expect(kinds[kind]?.usedBytes).toBeLessThanOrEqual(share);
      expect(kinds[kind]?.evicted).toBeGreaterThan(0);
    }
    // n0 was filled first: its oldest rows, deliveries and export went for the namespaces after it.
    const mine = memory.body.namespace.kinds;
    expect(mine.events.evicted).toBeGreaterThan(0);
    expect(mine.deliveries.evicted).toBeGreaterThan(0);
    expect(mine.requests.evicted).toBeGreaterThan(0);
    expect(mine.journal.evicted).toBeGreaterThan(0);
    const events = await h.get(`${ns(0)}/_sim/events`);
    expect(events.body.evicted).toBeGreaterThan(0);
  });

  it('answer for an evicted delivery or export as CVAT answers for a missing one', async () => {
    const gone = firstDeliveries[0] as number;
    const delivery = await h.get(`${ns(0)}/api/webhooks/1/deliveries/${gone}`, { as: 'admin' });
    const never = await h.get(`${ns(0)}/api/webhooks/1/deliveries/999999`, { as: 'admin' });
    expect([delivery.status, delivery.text]).toEqual([never.status, never.text]);
    const request = await h.get(`${ns(0)}/api/requests/${encodeURIComponent(firstExport)}`, { as: 'admin' });
    expect(request.status).toBe(404);
    expect(request.text).toContain('There is no request with specified id');
    // The newest are still there (the last namespace's busy deliveries, not its first).
    const last = await h.get(`${ns(NAMESPACES - 1)}/api/webhooks/1/deliveries`, { as: 'admin' });
    expect(last.body.count).toBe(DELIVERIES);
  });
});
