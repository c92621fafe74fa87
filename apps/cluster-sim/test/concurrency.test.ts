import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startClusterSim } from '../src/index';
import { aCluster, aNodePool } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, OPS, POOL } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  const pools = ['np1', 'np2', 'np3', 'np4', 'np5', 'np6', 'np7'].map((n) => aNodePool(n));
  await h.seed({
    clusters: [
      aCluster()
        .withPools(...pools)
        .build(),
    ],
  });
});
afterEach(() => h.close());

describe('concurrent operations on a cluster', () => {
  it('produces exactly one operation and 49 ABORTED for 50 concurrent updates with the same etag', async () => {
    const etag = await h.etagOf();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.put(POOL, { labels: { labels: { writer: String(i) } }, etag })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.status).toBe('ABORTED');
    expect((await h.get(OPS)).body.operations).toHaveLength(1);
  });

  it('returns 400 FAILED_PRECONDITION while another operation runs on the same pool', async () => {
    const first = (await h.put(POOL, { nodeVersion: '-' })).body;
    const res = await h.put(POOL, { nodeVersion: '-' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 400,
        message: `Cluster is running incompatible operation ${first.name}.`,
        errors: [
          {
            message: `Cluster is running incompatible operation ${first.name}.`,
            domain: 'global',
            reason: 'failedPrecondition',
          },
        ],
        status: 'FAILED_PRECONDITION',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.RequestInfo',
            requestId: expect.stringMatching(/^0x[0-9a-f]{16}$/),
          },
        ],
      },
    });
  });

  it('uses the legacy busy wording when configured', async () => {
    await h.settings({ busyMessage: 'legacy' });
    const first = (await h.put(POOL, { nodeVersion: '-' })).body;
    const res = await h.put(POOL, { nodeVersion: '-' });
    expect(res.body.error.message).toBe(
      `Operation ${first.name} is currently upgrading cluster c1. Please wait and try again once it is done.`,
    );
  });

  it('runs updates of different pools concurrently within the quota of 5, then answers 429 RESOURCE_EXHAUSTED', async () => {
    for (const np of ['np1', 'np2', 'np3', 'np4', 'np5']) {
      const res = await h.put(`${CLUSTER}/nodePools/${np}`, { nodeVersion: '-' });
      expect(res.status, res.text).toBe(200);
    }
    const sixth = await h.put(`${CLUSTER}/nodePools/np6`, { nodeVersion: '-' });
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message:
        'Too many operations: cluster "c1" hits the concurrent operations quota 5, please try again later.',
    });
    await h.advance('2s');
    expect((await h.put(`${CLUSTER}/nodePools/np6`, { nodeVersion: '-' })).status).toBe(200);
  });

  it('blocks node pool work while a cluster-wide operation runs', async () => {
    const del = (await h.del(CLUSTER)).body;
    expect(del.operationType).toBe('DELETE_CLUSTER');
    const res = await h.put(POOL, { nodeVersion: '-' });
    expect(res.body.error.message).toBe(`Cluster is running incompatible operation ${del.name}.`);
  });
});

describe('over a real socket', () => {
  it('answers 50 concurrent updates carrying one etag with 1 operation and 49 ABORTED', async () => {
    const sim = await startClusterSim({ clock: { mode: 'manual' } });
    try {
      await sim.app.request('/_sim/seed', {
        method: 'POST',
        body: JSON.stringify({ clusters: [aCluster().build()] }),
      });
      const url = `${sim.url}${POOL}`;
      const headers = { authorization: 'Bearer t', 'content-type': 'application/json' };
      const etag = ((await (await fetch(url, { headers })).json()) as { etag: string }).etag;
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const body = JSON.stringify({ labels: { labels: { writer: String(i) } }, etag });
          return (await fetch(url, { method: 'PUT', headers, body })).status;
        }),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    } finally {
      await sim.close();
    }
  });
});
