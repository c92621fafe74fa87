import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { deliveryIfMade } from '../src/definition';
import { entryBytes } from '../src/delivery/journal';
import { DELIVERY_ROWS } from '../src/delivery/rows-budget';
import { EXPORT_JOBS_TABLE } from '../src/domain/events/export-budget';
import { eventsOf } from '../src/domain/events/state';
import { REQUESTS_TABLE } from '../src/domain/requests/budget';
import { requestsOf } from '../src/domain/requests/state';
import type { AnnotationState } from '../src/domain/state';
import { createHarness, type Harness } from './support/harness';

const KINDS = ['journal', 'events', 'deliveries', 'requests'] as const;
type Kind = (typeof KINDS)[number];
const NAMESPACES = ['a', 'b'] as const;
type Ns = (typeof NAMESPACES)[number];
const CVAT_XML = encodeURIComponent('CVAT for images 1.1');

let h: Harness | undefined;
afterEach(() => h?.close());

const sender = async () => ({ kind: 'response' as const, status: 200, body: 'ok' });

/**
 * What the stores of a namespace hold now, by their own estimators: the bytes `GET /_sim/memory` must
 * show for it (the journal's are the journal's own count, checked by adding up to its pool).
 */
function heldByStores(state: AnnotationState): Omit<Record<Kind, number>, 'journal'> {
  const store = eventsOf(state).store;
  const outbound = deliveryIfMade(state)?.journal().entries ?? [];
  return {
    events: store.length === 0 ? 0 : store.heldBytes(),
    deliveries: DELIVERY_ROWS.bytesOf(state.deliveries) + outbound.reduce((sum, e) => sum + entryBytes(e), 0),
    requests:
      REQUESTS_TABLE.bytesOf(requestsOf(state).requests) + EXPORT_JOBS_TABLE.bytesOf(eventsOf(state).jobs),
  };
}

type Step =
  | { kind: 'seed'; ns: Ns }
  | { kind: 'update-task'; ns: Ns; n: number }
  | { kind: 'deliver-large'; ns: Ns; size: number }
  | { kind: 'create-webhook'; ns: Ns }
  | { kind: 'delete-webhook'; ns: Ns; pick: number }
  | { kind: 'delete-project'; ns: Ns; pick: number }
  | { kind: 'export-dataset'; ns: Ns }
  | { kind: 'export-events'; ns: Ns; settle: boolean }
  | { kind: 'poll-events'; ns: Ns; pick: number; download: boolean }
  | { kind: 'log-events'; ns: Ns; n: number }
  | { kind: 'advance'; ns: Ns; by: '3s' | '25h' }
  | { kind: 'import'; from: Ns; to: Ns }
  | { kind: 'clear-journal'; ns: Ns }
  | { kind: 'delete-namespace'; ns: Ns };

const ns = fc.constantFrom(...NAMESPACES);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('seed' as const), ns }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('update-task' as const),
      ns,
      n: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('deliver-large' as const),
      ns,
      size: fc.integer({ min: 100, max: 6000 }),
    }),
  },
  fc.record({ kind: fc.constant('create-webhook' as const), ns }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete-webhook' as const), ns, pick: fc.nat() }) },
  fc.record({ kind: fc.constant('delete-project' as const), ns, pick: fc.nat() }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('export-dataset' as const), ns }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('export-events' as const), ns, settle: fc.boolean() }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('poll-events' as const),
      ns,
      pick: fc.nat(),
      download: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('log-events' as const),
      ns,
      n: fc.integer({ min: 1, max: 60 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ns,
      by: fc.constantFrom('3s' as const, '3s' as const, '25h' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('import' as const), from: ns, to: ns }) },
  fc.record({ kind: fc.constant('clear-journal' as const), ns }),
  fc.record({ kind: fc.constant('delete-namespace' as const), ns }),
);

/** One simulator whose shares are small enough for these steps to evict from every kind. */
function accountingWorld() {
  const harness = createHarness({
    sender,
    budgets: { journal: 4_000, events: 20_000, deliveries: 25_000, requests: 3_000 },
  });
  let made = 0;
  /** Query ids of the events exports each namespace started. */
  const queries: Record<Ns, string[]> = { a: [], b: [] };
  /** What the budget evicted of deleted namespaces: it stays in the pools' counts. */
  const gone: Record<string, number> = {};
  const api = (n: Ns, path: string) => `/_ns/${n}${path}`;
  const as = { as: 'admin' };
  const nth = <T>(items: T[], pick: number): T | undefined => items[pick % Math.max(1, items.length)];
  const state = (n: Ns) => harness.sim.world(n).state;

  async function run(s: Step): Promise<void> {
    switch (s.kind) {
      case 'seed': {
        const id = ++made;
        const seeded = await harness.post(api(s.ns, '/_sim/seed'), {
          projects: [{ name: `p${id}`, owner: 'admin' }],
          tasks: [{ name: `t${id}`, owner: 'admin', project: `p${id}`, size: 2 }],
          webhooks: [
            {
              target_url: 'http://receiver.test/hook',
              type: 'project',
              project: `p${id}`,
              owner: 'admin',
              events: ['update:task'],
            },
          ],
        });
        expect(seeded.status).toBe(201);
        return;
      }
      case 'update-task': {
        const task = nth([...state(s.ns).tasks.keys()], made);
        if (task === undefined) return;
        for (let i = 0; i < s.n; i++)
          await harness.patch(api(s.ns, `/api/tasks/${task}`), { name: `renamed ${++made}` }, as);
        await harness.sim.deliveries(s.ns).idle();
        return;
      }
      case 'deliver-large': {
        const webhook = nth([...state(s.ns).webhooks.keys()], made);
        if (webhook === undefined) return;
        const engine = harness.sim.deliveries(s.ns);
        engine.enqueue(webhook, {
          event: 'update:task',
          webhook_id: webhook,
          task: { id: 1, notes: 'x'.repeat(s.size) },
        });
        await engine.idle();
        return;
      }
      case 'create-webhook': {
        const project = nth([...state(s.ns).projects.keys()], made);
        if (project === undefined) return;
        const res = await harness.post(
          api(s.ns, '/api/webhooks'),
          {
            target_url: 'http://receiver.test/other',
            type: 'project',
            project_id: project,
            events: ['update:task'],
          },
          as,
        );
        expect(res.status).toBe(201);
        return;
      }
      case 'delete-webhook': {
        const webhook = nth([...state(s.ns).webhooks.keys()], s.pick);
        if (webhook !== undefined)
          expect((await harness.del(api(s.ns, `/api/webhooks/${webhook}`), as)).status).toBe(204);
        return;
      }
      case 'delete-project': {
        const project = nth([...state(s.ns).projects.keys()], s.pick);
        if (project !== undefined)
          expect((await harness.del(api(s.ns, `/api/projects/${project}`), as)).status).toBe(204);
        return;
      }
      case 'export-dataset': {
        const task = nth([...state(s.ns).tasks.keys()], made);
        if (task === undefined) return;
        await harness.post(
          api(s.ns, `/api/tasks/${task}/dataset/export?format=${CVAT_XML}&filename=f${++made}.zip`),
          undefined,
          as,
        );
        return;
      }
      case 'export-events': {
        const started = await harness.get(api(s.ns, '/api/events'), as);
        expect(started.status).toBe(202);
        queries[s.ns].push(started.body.query_id);
        // Its time passed: finished, to be downloaded (the export takes 2 s).
        if (s.settle) harness.sim.world(s.ns).clock.advance('3s');
        return;
      }
      case 'poll-events': {
        const query = nth(queries[s.ns], s.pick);
        if (query !== undefined)
          await harness.get(
            api(s.ns, `/api/events?query_id=${query}${s.download ? '&action=download' : ''}`),
            as,
          );
        return;
      }
      case 'log-events': {
        const events = Array.from({ length: s.n }, (_, i) => ({
          scope: 'click:element',
          source: 'client',
          timestamp: '2026-01-01T00:00:00Z',
          payload: JSON.stringify({ i, text: 'x'.repeat(200) }),
        }));
        expect((await harness.post(api(s.ns, '/_sim/events/records'), { events })).status).toBeLessThan(300);
        return;
      }
      case 'advance':
        expect((await harness.post(api(s.ns, '/_sim/clock/advance'), { by: s.by })).status).toBe(200);
        return;
      case 'import': {
        const snapshot = await harness.get(api(s.from, '/_sim/state'));
        expect((await harness.put(api(s.to, '/_sim/state'), snapshot.body)).status).toBe(200);
        return;
      }
      case 'clear-journal':
        expect((await harness.del(api(s.ns, '/_sim/journal'))).status).toBeLessThan(300);
        return;
      case 'delete-namespace': {
        if (!(await namespaces()).includes(s.ns)) return;
        const before = (await harness.get(api(s.ns, '/_sim/memory'))).body.namespace.kinds;
        for (const [kind, { evicted }] of Object.entries(before as Record<string, { evicted: number }>))
          gone[kind] = (gone[kind] ?? 0) + evicted;
        queries[s.ns] = [];
        expect((await harness.del(`/_sim/namespaces/${s.ns}`)).status).toBe(204);
        expect(await namespaces()).not.toContain(s.ns);
        // Asked for again, it is a new namespace that holds nothing and lost nothing.
        const fresh = (await harness.get(api(s.ns, '/_sim/memory'))).body.namespace.kinds;
        for (const kind of KINDS)
          expect(fresh[kind] ?? { bytes: 0, evicted: 0 }, kind).toEqual({ bytes: 0, evicted: 0 });
        return;
      }
    }
  }

  const namespaces = async (): Promise<string[]> => (await harness.get('/_sim/namespaces')).body.namespaces;

  /** Every namespace's figures are its stores' estimates, and they add up to the pools'. */
  async function check(after: string): Promise<void> {
    const sums: Record<string, { bytes: number; evicted: number }> = {};
    let pools: { kind: string; usedBytes: number; evicted: number }[] = [];
    for (const name of await namespaces()) {
      const memory = (await harness.get(`/_ns/${name}/_sim/memory`)).body;
      pools = memory.kinds;
      const shown: Record<string, { bytes: number; evicted: number }> = memory.namespace.kinds;
      const held = heldByStores(harness.sim.world(name).state);
      for (const kind of Object.keys(held) as (keyof typeof held)[])
        expect(shown[kind]?.bytes ?? 0, `${kind} of ${name} after ${after}`).toBe(held[kind]);
      for (const [kind, figures] of Object.entries(shown)) {
        const sum = sums[kind] ?? { bytes: 0, evicted: 0 };
        sum.bytes += figures.bytes;
        sum.evicted += figures.evicted;
        sums[kind] = sum;
      }
    }
    for (const pool of pools) {
      const sum = sums[pool.kind] ?? { bytes: 0, evicted: 0 };
      expect(sum.bytes, `${pool.kind} bytes of all namespaces after ${after}`).toBe(pool.usedBytes);
      expect(sum.evicted + (gone[pool.kind] ?? 0), `${pool.kind} evicted after ${after}`).toBe(pool.evicted);
    }
  }

  return { harness, run, check };
}

describe('GET /_sim/memory', () => {
  it("shows for each namespace what its stores hold by their own estimates, adding up to the pools', whatever the API, seeds, imports, deletions and downloads did", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 8, maxLength: 30, size: 'max' }), async (steps) => {
        h?.close();
        const world = accountingWorld();
        h = world.harness;
        for (const n of NAMESPACES) await world.run({ kind: 'seed', ns: n });
        for (const [i, s] of steps.entries()) {
          await world.run(s);
          await world.check(`step ${i} ${JSON.stringify(s)}`);
        }
      }),
      { seed: 33_0019, numRuns: 25 },
    );
  }, 60_000);
});
