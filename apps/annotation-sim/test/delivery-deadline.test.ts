// The overall deadline of a delivery attempt (CVAT's RQ job time-out): a receiver that answers one byte
// every 200 ms, which no read time-out ever cuts, holds its webhook no longer than the deadline and never
// holds back another webhook's deliveries.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryOptions, OutboundEntry } from '../src/delivery/engine';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';

/** One request a receiver took: the payload, and when its connection opened and closed (wall ms). */
interface Held {
  json: { event: string; task?: { name: string } };
  openedAt: number;
  closedAt?: number;
  /** Body bytes trickled before the connection closed. */
  bytes: number;
}

/**
 * A receiver on 127.0.0.1. `trickle(n)` says whether its n-th request (1-based) is answered with a head
 * announcing 100,000 bytes and then one byte every 200 ms; the others get 200 `ok` at once.
 */
async function startTrickler(trickle: (n: number) => boolean) {
  const held: Held[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const openedAt = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const h: Held = { json: JSON.parse(Buffer.concat(chunks).toString('utf8')), openedAt, bytes: 0 };
      held.push(h);
      req.socket.on('close', () => {
        h.closedAt = performance.now();
      });
      if (!trickle(held.length)) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
      res.flushHeaders();
      const timer = setInterval(() => {
        res.write('x');
        h.bytes++;
      }, 200);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    held,
    async close() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let h: Harness;
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  h?.close();
  await Promise.all(closers.map((c) => c()));
  closers = [];
});

async function trickler(trickle: (n: number) => boolean) {
  const r = await startTrickler(trickle);
  closers.push(r.close);
  return r;
}

function world(delivery: DeliveryOptions) {
  h = createHarness({ delivery });
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p', size: 4, segment_size: 2 }],
  });
}

async function projectHook(target: string) {
  const body = aWebhook().forProject(1).to(target).withEvents('update:task').build();
  const res = await h.post('/api/webhooks?org=acme', body, { as: 'alice' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

const rename = async (name: string) =>
  expect((await h.patch('/api/tasks/1', { name }, { as: 'alice' })).status).toBe(200);

async function rowsOf(id: number) {
  const res = await h.get(`/api/webhooks/${id}/deliveries`, { as: 'alice' });
  return (res.body.results as { status_code: number; attempt: number; request: Held['json'] }[]).map((d) => [
    d.request.task?.name,
    d.status_code,
    d.attempt,
  ]);
}

const journal = (id: number): OutboundEntry[] =>
  h.sim
    .deliveries()
    .journal()
    .entries.filter((e) => e.webhookId === id);

// The default sends from the delivery thread (queued deliveries wait there, decision 0011); 'main' is
// the calling thread's sender and the engine's plain path.
describe.each([
  ['the delivery thread', {}],
  ['the calling thread', { thread: 'main' }],
] as const)('on %s', (_name, threadOption) => {
  it('cuts a trickling receiver at the deadline: no row, a journal entry, a retry, and the next event goes out', async () => {
    world({ ...threadOption, jobTimeoutMs: 700 });
    const r = await trickler((n) => n === 1);
    const id = await projectHook(r.url);
    await rename('a');
    await rename('b');
    // The read time-out (10 s) never fires: a byte comes every 200 ms. Only the deadline ends it.
    await expect
      .poll(() => journal(id).map((e) => e.outcome), { timeout: 3000, interval: 50 })
      .toEqual(['timeout', 'response']);
    const first = r.held[0] as Held;
    expect(first.json.task?.name).toBe('a');
    expect(first.bytes).toBeGreaterThanOrEqual(1);
    expect(first.closedAt).toBeDefined();
    expect((first.closedAt as number) - first.openedAt).toBeLessThan(700 + 1000);
    // As CVAT's job, killed before it writes the row: nothing in the deliveries, what RQ records.
    expect(journal(id)[0]).toMatchObject({
      attempt: 1,
      deliveryId: null,
      statusCode: null,
      error: 'rq.timeouts.JobTimeoutException: Task exceeded maximum timeout value (0.7 seconds)',
    });
    await h.idle();
    expect(await rowsOf(id)).toEqual([['b', 200, 1]]);
    // RQ retries a failed job on the Retry schedule (5 s first); its row has the next attempt number.
    expect(h.sim.deliveries().stats()).toEqual({ queued: 0, inFlight: 0, scheduledRetries: 1 });
    h.advance('5s');
    await h.idle();
    expect(await rowsOf(id)).toEqual([
      ['a', 200, 2],
      ['b', 200, 1],
    ]);
  }, 10_000);

  it("does not hold back another webhook's deliveries while one receiver trickles", async () => {
    world({ ...threadOption, jobTimeoutMs: 2500 });
    const stalled = await trickler(() => true);
    const fast = await trickler(() => false);
    const slow = await projectHook(stalled.url);
    const quick = await projectHook(fast.url);
    const sent = performance.now();
    for (const name of ['a', 'b', 'c']) await rename(name);
    await expect.poll(() => fast.held.length, { timeout: 2000, interval: 20 }).toBe(3);
    // All three reached the other receiver well within the stalled one's deadline, while it still held
    // its first delivery open and the two behind it waited.
    expect(performance.now() - sent).toBeLessThan(2000);
    expect(stalled.held).toHaveLength(1);
    expect(stalled.held[0]?.closedAt).toBeUndefined();
    await expect.poll(() => journal(quick).length, { timeout: 1000, interval: 20 }).toBe(3);
    expect(await rowsOf(quick)).toEqual([
      ['c', 200, 1],
      ['b', 200, 1],
      ['a', 200, 1],
    ]);
    expect(journal(slow)).toEqual([]);
  }, 10_000);

  it('answers a ping cut off by the deadline with a 504 row', async () => {
    world({ ...threadOption, jobTimeoutMs: 500 });
    const r = await trickler(() => true);
    const id = await projectHook(r.url);
    const began = performance.now();
    const res = await h.post(`/api/webhooks/${id}/ping`, undefined, { as: 'alice' });
    expect(performance.now() - began).toBeLessThan(500 + 1000);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ event: 'ping', status_code: 504, attempt: 1 });
    expect(res.body.response).toMatch(/delivery deadline passed \(jobTimeoutMs, 0\.5 seconds\)/);
    expect(journal(id)).toMatchObject([{ outcome: 'timeout', statusCode: 504, deliveryId: res.body.id }]);
  }, 10_000);
});
