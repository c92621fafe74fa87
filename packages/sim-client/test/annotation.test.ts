import { describe, expect, it } from 'vitest';
import {
  createAnnotationSimClient,
  isSimClient,
  type OutboundDelivery,
  SimWaitTimeoutError,
} from '../src/index';

/**
 * annotation-sim's own control routes, wired against a recording fetch: these pin method, path, query
 * and body (annotation-webhooks.test.ts runs the webhook routes against a real simulator).
 */
function recorder(answer: (method: string, url: string) => Response) {
  const calls: { method: string; url: string; body: unknown; namespace?: string }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init = {}) => {
    const method = init.method ?? 'GET';
    const headers = init.headers as Record<string, string>;
    calls.push({
      method,
      url: String(input),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      namespace: headers['X-Sim-Namespace'],
    });
    return answer(method, String(input));
  };
  return { calls, fetch };
}
const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
const BASE = 'http://127.0.0.1:1';

const delivery: OutboundDelivery = {
  seq: 1,
  time: '2026-01-01T00:00:00.000Z',
  webhookId: 7,
  deliveryId: 1,
  event: 'create:task',
  attempt: 1,
  redelivery: false,
  url: 'http://127.0.0.1:2/hook',
  method: 'POST',
  headers: [['Content-Type', 'application/json']],
  body: '{"event": "create:task"}',
  outcome: 'response',
  statusCode: 503,
  faults: [],
};

describe('createAnnotationSimClient', () => {
  it('lists, counts and clears outbound deliveries, and waits for the queue to drain', async () => {
    const { calls, fetch } = recorder(() => json({ entries: [delivery], dropped: 0, stats: {} }));
    const sim = createAnnotationSimClient({ baseUrl: BASE, namespace: 'n', fetch });
    expect((await sim.deliveries.list({ webhook: 7, event: 'create:task' })).entries).toEqual([delivery]);
    await sim.deliveries.stats();
    await sim.deliveries.idle();
    await sim.deliveries.clear();
    expect(calls.map((c) => [c.method, c.url, c.body, c.namespace])).toEqual([
      ['GET', `${BASE}/_sim/deliveries?webhook=7&event=create%3Atask`, undefined, 'n'],
      ['GET', `${BASE}/_sim/deliveries/stats`, undefined, 'n'],
      ['POST', `${BASE}/_sim/deliveries/idle`, undefined, 'n'],
      ['DELETE', `${BASE}/_sim/deliveries`, undefined, 'n'],
    ]);
  });

  it('long-polls for a delivery, sending the timeout in ms', async () => {
    const { calls, fetch } = recorder(() => json({ entry: delivery }));
    const sim = createAnnotationSimClient({ baseUrl: BASE, fetch });
    expect(await sim.deliveries.waitFor({ event: 'create:task' }, { timeout: '2s' })).toEqual(delivery);
    expect(calls[0]).toMatchObject({
      method: 'POST',
      url: `${BASE}/_sim/deliveries/wait`,
      body: { event: 'create:task', timeoutMs: 2000 },
    });
  });

  it('gives undefined from wait and a readable error from waitFor on 408', async () => {
    const { fetch } = recorder((method) =>
      method === 'POST'
        ? json({ error: { status: 408, reason: 'TIMEOUT', message: 'no delivery matched in time' } }, 408)
        : json({ entries: [delivery], dropped: 0, stats: {} }),
    );
    const sim = createAnnotationSimClient({ baseUrl: BASE, fetch });
    expect(await sim.deliveries.wait({ event: 'update:task' }, 10)).toBeUndefined();
    const error = await sim.deliveries
      .waitFor({ event: 'update:task' }, { timeout: 10 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimWaitTimeoutError);
    expect((error as Error).message).toBe(
      'no delivery matching {"event":"update:task"} within 10 (namespace "default"). ' +
        'Deliveries made:\n  #1 webhook 7 create:task attempt 1 → 503',
    );
  });

  it('reads and configures the events API, writes rows, and moves export jobs', async () => {
    const { calls, fetch } = recorder(() => json({}));
    const sim = createAnnotationSimClient({ baseUrl: BASE, fetch }).withNamespace('ev');
    expect(isSimClient(sim)).toBe(true);
    await sim.events.get();
    await sim.events.configure({ storeConnected: false, exportDuration: '5s' });
    await sim.events.record([{ scope: 'create:task', timestamp: '2026-01-01T00:00:00Z' }]);
    await sim.events.exports.complete('rq-1');
    await sim.events.exports.complete('rq-2', { fail: 'ClickHouse is down' });
    await sim.events.exports.fail('rq-3', 'MemoryError');
    await sim.events.exports.expireFile('action=export&target=events&id=q&user_id=2');
    expect(calls.map((c) => [c.method, c.url.slice(BASE.length), c.body, c.namespace])).toEqual([
      ['GET', '/_sim/events', undefined, 'ev'],
      ['PATCH', '/_sim/events/settings', { storeConnected: false, exportDuration: '5s' }, 'ev'],
      [
        'POST',
        '/_sim/events/records',
        { events: [{ scope: 'create:task', timestamp: '2026-01-01T00:00:00Z' }] },
        'ev',
      ],
      // The job in the path (docs/decisions/0020-control-plane-dialect.md), its rq_id encoded.
      ['POST', '/_sim/events/exports/rq-1/complete', undefined, 'ev'],
      ['POST', '/_sim/events/exports/rq-2/fail', { message: 'ClickHouse is down' }, 'ev'],
      ['POST', '/_sim/events/exports/rq-3/fail', { message: 'MemoryError' }, 'ev'],
      [
        'POST',
        '/_sim/events/exports/action%3Dexport%26target%3Devents%26id%3Dq%26user_id%3D2/expire-file',
        undefined,
        'ev',
      ],
    ]);
  });
});
