import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DONE_OPERATIONS } from '../src/domain/operations-budget';
import { aCluster, aNodePool } from './support/fixtures';
import { createHarness, type Harness } from './support/harness';

const NAMESPACES = ['a', 'b'] as const;
type Ns = (typeof NAMESPACES)[number];

let h: Harness | undefined;
afterEach(() => h?.close());

type Step =
  | { kind: 'seed-cluster'; ns: Ns }
  | { kind: 'update-pool'; ns: Ns; pick: number }
  | { kind: 'create-pool'; ns: Ns; pick: number }
  | { kind: 'delete-cluster'; ns: Ns; pick: number }
  | { kind: 'cancel'; ns: Ns; pick: number }
  | { kind: 'seed-operations'; ns: Ns; pick: number; statuses: ('DONE' | 'RUNNING')[] }
  | { kind: 'seed-max-operations'; ns: Ns; max: number; pick: number }
  | { kind: 'advance'; ns: Ns; by: '1s' | '3s' | '1h' }
  | { kind: 'import'; from: Ns; to: Ns }
  | { kind: 'clear-journal'; ns: Ns }
  | { kind: 'delete-namespace'; ns: Ns };

const ns = fc.constantFrom(...NAMESPACES);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('seed-cluster' as const), ns }),
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('update-pool' as const), ns, pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('create-pool' as const), ns, pick: fc.nat() }) },
  fc.record({ kind: fc.constant('delete-cluster' as const), ns, pick: fc.nat() }),
  fc.record({ kind: fc.constant('cancel' as const), ns, pick: fc.nat() }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('seed-operations' as const),
      ns,
      pick: fc.nat(),
      statuses: fc.array(fc.constantFrom('DONE' as const, 'DONE' as const, 'RUNNING' as const), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
  },
  fc.record({
    kind: fc.constant('seed-max-operations' as const),
    ns,
    max: fc.integer({ min: 1, max: 4 }),
    pick: fc.nat(),
  }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ns,
      by: fc.constantFrom('1s' as const, '3s' as const, '1h' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('import' as const), from: ns, to: ns }) },
  fc.record({ kind: fc.constant('clear-journal' as const), ns }),
  fc.record({ kind: fc.constant('delete-namespace' as const), ns }),
);

/** One simulator whose shares are small enough for these steps to evict operations and journal entries. */
function accountingWorld() {
  const harness = createHarness({ budgets: { operations: 6_000, journal: 4_000 } });
  let made = 0;
  /** What the budget evicted of deleted namespaces: it stays in the pools' counts. */
  const gone: Record<string, number> = {};
  const control = (n: Ns, path: string) => `/_ns/${n}/_sim${path}`;
  const loc = (n: Ns) => `/_ns/${n}/v1beta1/projects/p1/locations/us-central1-a`;
  const state = (n: Ns) => harness.sim.world(n).state;
  const nth = <T>(items: T[], pick: number): T | undefined => items[pick % Math.max(1, items.length)];
  const cluster = (n: Ns, pick: number) => nth([...state(n).clusters.values()], pick);
  const namespaces = async (): Promise<string[]> =>
    (await harness.get('/_sim/namespaces', { token: null })).body.namespaces;
  const seed = async (n: Ns, body: unknown) => {
    const res = await harness.post(control(n, '/seed'), body, { token: null });
    expect(res.status, res.text).toBe(201);
  };

  async function run(s: Step): Promise<void> {
    switch (s.kind) {
      case 'seed-cluster':
        return seed(s.ns, { clusters: [aCluster(`c${++made}`).withPools(aNodePool('np1')).build()] });
      case 'update-pool': {
        const c = cluster(s.ns, s.pick);
        const pool = c && [...c.pools.keys()][0];
        if (c && pool)
          await harness.put(`${loc(s.ns)}/clusters/${c.name}/nodePools/${pool}`, { nodeVersion: '-' });
        return;
      }
      case 'create-pool': {
        const c = cluster(s.ns, s.pick);
        if (c)
          await harness.post(`${loc(s.ns)}/clusters/${c.name}/nodePools`, {
            nodePool: { ...aNodePool(`np${++made}`).build() },
          });
        return;
      }
      case 'delete-cluster': {
        const c = cluster(s.ns, s.pick);
        if (c) await harness.del(`${loc(s.ns)}/clusters/${c.name}`);
        return;
      }
      case 'cancel': {
        const op = nth(
          [...state(s.ns).operations.values()].filter((o) => o.status !== 'DONE'),
          s.pick,
        );
        if (op) await harness.post(`${loc(s.ns)}/operations/${op.id}:cancel`, {});
        return;
      }
      case 'seed-operations': {
        const c = cluster(s.ns, s.pick);
        if (!c) return;
        const operations = s.statuses.map((status) => ({
          projectId: 'p1',
          location: c.location,
          cluster: c.name,
          status,
        }));
        return seed(s.ns, { operations });
      }
      case 'seed-max-operations': {
        const c = cluster(s.ns, s.pick);
        const operations = c
          ? [{ projectId: 'p1', location: c.location, cluster: c.name, status: 'DONE' }]
          : [];
        return seed(s.ns, { settings: { maxOperations: s.max }, operations });
      }
      case 'advance': {
        const res = await harness.post(control(s.ns, '/clock/advance'), { by: s.by }, { token: null });
        expect(res.status, res.text).toBe(200);
        return;
      }
      case 'import': {
        const snapshot = await harness.get(control(s.from, '/state'), { token: null });
        const res = await harness.put(control(s.to, '/state'), snapshot.body, { token: null });
        expect(res.status, res.text).toBe(200);
        return;
      }
      case 'clear-journal':
        expect((await harness.del(control(s.ns, '/journal'), { token: null })).status).toBeLessThan(300);
        return;
      case 'delete-namespace': {
        if (!(await namespaces()).includes(s.ns)) return;
        const before = (await harness.get(control(s.ns, '/memory'), { token: null })).body.namespace.kinds;
        for (const [kind, { evicted }] of Object.entries(before as Record<string, { evicted: number }>))
          gone[kind] = (gone[kind] ?? 0) + evicted;
        expect((await harness.del(`/_sim/namespaces/${s.ns}`, { token: null })).status).toBe(204);
        expect(await namespaces()).not.toContain(s.ns);
        // Asked for again, it is a new namespace that holds nothing and lost nothing.
        const fresh = (await harness.get(control(s.ns, '/memory'), { token: null })).body.namespace.kinds;
        for (const kind of ['journal', 'operations'])
          expect(fresh[kind] ?? { bytes: 0, evicted: 0 }, kind).toEqual({ bytes: 0, evicted: 0 });
        return;
      }
    }
  }

  /** Every namespace's operations are their estimates, and every kind adds up to its pool. */
  async function check(after: string): Promise<void> {
    const sums: Record<string, { bytes: number; evicted: number }> = {};
    let pools: { kind: string; usedBytes: number; evicted: number }[] = [];
    for (const name of await namespaces()) {
      const memory = (await harness.get(`/_ns/${name}/_sim/memory`, { token: null })).body;
      pools = memory.kinds;
      const shown: Record<string, { bytes: number; evicted: number }> = memory.namespace.kinds;
      const held = DONE_OPERATIONS.bytesOf(harness.sim.world(name).state.operations);
      expect(shown.operations?.bytes ?? 0, `operations of ${name} after ${after}`).toBe(held);
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
  it("shows for each namespace its DONE operations' estimates, adding up to the pools', whatever the API, seeds, imports and deletions did", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 8, maxLength: 30, size: 'max' }), async (steps) => {
        h?.close();
        const world = accountingWorld();
        h = world.harness;
        for (const n of NAMESPACES) await world.run({ kind: 'seed-cluster', ns: n });
        for (const [i, s] of steps.entries()) {
          await world.run(s);
          await world.check(`step ${i} ${JSON.stringify(s)}`);
        }
      }),
      { seed: 33_0019, numRuns: 25 },
    );
  }, 60_000);
});
