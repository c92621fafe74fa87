import { afterEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool } from './support/fixtures';
import { createHarness, type Harness, OPS, POOL } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

/** Namespace `ns`'s path for an API path or a control path. */
const at = (ns: string, path: string) => `/_ns/${ns}${path}`;

/** Upgrades pool np1 of namespace `ns` (an UPDATE_NODE_POOL operation): its operation's name. */
async function update(ns: string): Promise<string> {
  const op = await h.request('PUT', at(ns, POOL), { body: { nodeVersion: '-' } });
  expect(op.status).toBe(200);
  return op.body.name;
}
const status = async (ns: string, op: string) => (await h.request('GET', at(ns, `${OPS}/${op}`))).status;
async function advance(ns: string, by: string) {
  const res = await h.request('POST', at(ns, '/_sim/clock/advance'), { body: { by }, token: null });
  expect(res.status).toBe(200);
}

describe('the memory budget of all namespaces', () => {
  it('forgets the oldest DONE operation of any namespace first, never a running one', async () => {
    // About three DONE operations fit in the share.
    h = createHarness({ budgets: { operations: 3 * 1700 } });
    for (const ns of ['a', 'b']) {
      const seeded = await h.request('POST', at(ns, '/_sim/seed'), {
        body: { clusters: [aCluster().withPools(aNodePool('np1')).build()] },
        token: null,
      });
      expect(seeded.status).toBe(201);
    }
    const a1 = await update('a');
    await advance('a', '3s');
    const b1 = await update('b');
    await advance('b', '3s');
    const a2 = await update('a');
    // a2 runs: the DONE ones are a1 and b1, both kept.
    expect([await status('a', a1), await status('b', b1), await status('a', a2)]).toEqual([200, 200, 200]);
    const memory = (await h.request('GET', at('a', '/_sim/memory'), { token: null })).body;
    const pool = memory.kinds.find((k: { kind: string }) => k.kind === 'operations');
    expect(pool.evicted).toBe(0);
    const size = pool.usedBytes / 2;
    expect(size).toBeGreaterThan(1200);
    expect(size).toBeLessThan(1700);
    // Each update of b makes a DONE operation: the third one DONE in all makes a1, the oldest, go.
    await advance('a', '3s');
    const b2 = await update('b');
    await advance('b', '3s');
    expect(await status('a', a1)).toBe(404);
    expect((await h.request('GET', at('a', `${OPS}/${a1}`))).body.error.message).toBe(
      `Not found: projects/p1/zones/us-central1-a/operations/${a1}.`,
    );
    expect([await status('b', b1), await status('a', a2), await status('b', b2)]).toEqual([200, 200, 200]);
    const after = (await h.request('GET', at('a', '/_sim/memory'), { token: null })).body;
    expect(after.namespace.kinds.operations.evicted).toBe(1);
    expect(after.kinds.find((k: { kind: string }) => k.kind === 'operations').usedBytes).toBeLessThanOrEqual(
      3 * 1700,
    );
  });
});
