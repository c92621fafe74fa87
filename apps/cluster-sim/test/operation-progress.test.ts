import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

/**
 * The `progress` and `targetLink` of every operation type the simulator starts, while it runs and once
 * it is DONE, as the recordings show them (operation-view.ts lists the sources).
 */
let h: Harness;
const ZONE = '/v1beta1/projects/p1/locations/us-central1-a';
const CLUSTER = `${ZONE}/clusters/c1`;
const LINK =
  /^https:\/\/container\.googleapis\.com\/v1beta1\/projects\/\d+\/zones\/us-central1-a\/clusters\/c1/;

beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

/** The operation a request started, read at the start, at 1 s and once DONE. */
async function lifecycle(start: Promise<{ status: number; text: string; body: { name: string } }>) {
  const res = await start;
  expect(res.status, res.text).toBe(200);
  const read = async () => (await h.get(`${ZONE}/operations/${res.body.name}`)).body;
  const first = await read();
  await h.advance('1s');
  const running = await read();
  await h.advance('30m');
  const done = await read();
  expect(done.status).toBe('DONE');
  return { first, running, done };
}

const noProgress = (ops: { progress?: unknown; detail?: unknown }[]) => {
  for (const op of ops) {
    expect(op.progress).toBeUndefined();
    expect(op.detail).toBeUndefined();
  }
};

describe('operation progress by type', () => {
  it('CREATE_CLUSTER: none while it runs, its phases counted at DONE; aimed at the cluster', async () => {
    const { first, running, done } = await lifecycle(
      h.post(`${ZONE}/clusters`, { cluster: { name: 'c2', initialNodeCount: 1 } }),
    );
    noProgress([first, running]);
    expect(done.targetLink).toMatch(/\/zones\/us-central1-a\/clusters\/c2$/);
    expect(done.progress.metrics.map((m: { name: string }) => m.name)).toEqual([
      'CLUSTER_CONFIGURING',
      'CLUSTER_CONFIGURING_TOTAL',
      'CLUSTER_DEPLOYING',
      'CLUSTER_DEPLOYING_TOTAL',
      'CLUSTER_HEALTHCHECKING',
      'CLUSTER_HEALTHCHECKING_TOTAL',
    ]);
  });

  it('CREATE_NODE_POOL and DELETE_NODE_POOL: none, aimed at the pool', async () => {
    const created = await lifecycle(
      h.post(`${CLUSTER}/nodePools`, { nodePool: { name: 'np2', initialNodeCount: 1 } }),
    );
    const deleted = await lifecycle(h.del(`${CLUSTER}/nodePools/np2`));
    for (const op of [created, deleted]) {
      noProgress([op.first, op.running, op.done]);
      expect(op.done.targetLink).toMatch(new RegExp(`${LINK.source}/nodePools/np2$`));
    }
  });

  it('UPGRADE_MASTER, UPDATE_CLUSTER on the cluster and DELETE_CLUSTER: none, aimed at the cluster', async () => {
    const master = await lifecycle(h.put(CLUSTER, { update: { desiredMasterVersion: '-' } }));
    const logging = await lifecycle(h.put(CLUSTER, { update: { desiredLoggingService: 'none' } }));
    const deleted = await lifecycle(h.del(CLUSTER));
    for (const [type, op] of [
      ['UPGRADE_MASTER', master],
      ['UPDATE_CLUSTER', logging],
      ['DELETE_CLUSTER', deleted],
    ] as const) {
      expect(op.done.operationType).toBe(type);
      noProgress([op.first, op.running, op.done]);
      expect(op.done.targetLink).toMatch(new RegExp(`${LINK.source}$`));
    }
  });

  it('UPDATE_CLUSTER on a pool (autoscaling): NODES_TOTAL 0 at DONE only, aimed at the pool', async () => {
    const op = await lifecycle(
      h.put(CLUSTER, { update: { desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 5 } } }),
    );
    noProgress([op.first, op.running]);
    expect(op.done.targetLink).toMatch(new RegExp(`${LINK.source}/nodePools/np1$`));
    expect(op.done.progress).toEqual({ metrics: [{ name: 'NODES_TOTAL', intValue: '0' }] });
  });

  it('SET_NODE_POOL_SIZE and SET_NODE_POOL_MANAGEMENT: none, aimed at the pool', async () => {
    const size = await lifecycle(h.post(`${CLUSTER}/nodePools/np1:setSize`, { nodeCount: 4 }));
    const management = await lifecycle(
      h.post(`${CLUSTER}/nodePools/np1:setManagement`, {
        management: { autoUpgrade: true, autoRepair: true },
      }),
    );
    for (const [type, op] of [
      ['SET_NODE_POOL_SIZE', size],
      ['SET_NODE_POOL_MANAGEMENT', management],
    ] as const) {
      expect(op.done.operationType).toBe(type);
      noProgress([op.first, op.running, op.done]);
      expect(op.done.targetLink).toMatch(new RegExp(`${LINK.source}/nodePools/np1$`));
    }
  });

  it('UPGRADE_NODES: nodes counted while it runs and at DONE; an in-place change only NODES_TOTAL 0', async () => {
    const upgrade = await lifecycle(h.put(`${CLUSTER}/nodePools/np1`, { nodeVersion: '-' }));
    expect(upgrade.first.progress).toBeUndefined();
    expect(upgrade.running.detail).toMatch(/^Updating np1, processed \d out of 3 nodes \(\d+\.\d%\)$/);
    expect(upgrade.running.progress.metrics.map((m: { name: string }) => m.name)).toEqual([
      'NODES_TOTAL',
      'NODES_COMPLETE',
      'NODES_DONE',
    ]);
    expect(upgrade.done.progress.metrics).toEqual([
      { name: 'NODES_TOTAL', intValue: '3' },
      { name: 'NODES_FAILED', intValue: '0' },
      { name: 'NODES_COMPLETE', intValue: '3' },
      { name: 'NODES_DONE', intValue: '3' },
      { name: 'NODE_PDB_DELAY_SECONDS', intValue: '0' },
    ]);
    expect(upgrade.done.targetLink).toMatch(new RegExp(`${LINK.source}/nodePools/np1$`));
    const labels = await lifecycle(h.put(`${CLUSTER}/nodePools/np1`, { labels: { labels: { team: 'a' } } }));
    expect(labels.done.operationType).toBe('UPGRADE_NODES');
    noProgress([labels.first, labels.running]);
    expect(labels.done.progress).toEqual({ metrics: [{ name: 'NODES_TOTAL', intValue: '0' }] });
  });
});
