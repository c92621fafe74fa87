import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool, V } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, OPS, POOL } from './support/harness';

/**
 * Node upgrades that unfold: surge in batches of maxSurge + maxUnavailable, a zone at a time; blue-green
 * phase by phase with its soaks; cancel and failure midway leave a mixed pool that rollback brings back.
 */
let h: Harness;
afterEach(() => h.close());

const metric = (name: string, value: number) => ({ name, intValue: String(value) });
const stage = (phase: string) => ({ name: 'UPGRADE_STAGE', stringValue: phase });

async function op(name: string) {
  return (await h.get(`${OPS}/${name}`)).body;
}

async function seed(pool: ReturnType<typeof aNodePool>, locations?: string[]) {
  const cluster = aCluster().withPools(pool).build();
  if (locations) {
    cluster.location = 'us-central1';
    cluster.locations = locations;
  }
  await h.seed({ clusters: [cluster] });
}

describe('surge upgrades', () => {
  beforeEach(() => {
    h = createHarness();
  });

  it('upgrades one node at a time by default, with detail and metrics per batch, and the surge node counted', async () => {
    await seed(aNodePool('np1').withVersion(V.oldPatch133).withNodeCount(3));
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    expect(started).toMatchObject({ operationType: 'UPGRADE_NODES', status: 'PENDING' });
    // 3 batches share the 1.8 s after the 0.2 s PENDING: one every 600 ms.
    await h.advance('200ms');
    expect(await op(started.name)).toMatchObject({
      status: 'RUNNING',
      detail: 'Updating np1, processed 0 out of 3 nodes (0.0%)',
      progress: { metrics: [metric('NODES_TOTAL', 3), metric('NODES_COMPLETE', 0), metric('NODES_DONE', 0)] },
    });
    // A surge node exists beside the 3 while a batch runs.
    expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(4);
    await h.advance('600ms');
    expect((await op(started.name)).detail).toBe('Updating np1, processed 1 out of 3 nodes (33.3%)');
    await h.advance('600ms');
    expect((await op(started.name)).detail).toBe('Updating np1, processed 2 out of 3 nodes (66.7%)');
    const pool = (await h.get(POOL)).body;
    expect(pool).toMatchObject({ status: 'RECONCILING', version: V.oldPatch133 });
    await h.advance('600ms');
    const done = await op(started.name);
    expect(done.status).toBe('DONE');
    expect(done.progress.metrics).toEqual([
      metric('NODES_TOTAL', 3),
      metric('NODES_FAILED', 0),
      metric('NODES_COMPLETE', 3),
      metric('NODES_DONE', 3),
      metric('NODE_PDB_DELAY_SECONDS', 0),
    ]);
    expect((await h.get(POOL)).body).toMatchObject({ status: 'RUNNING', version: V.master });
    expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(3);
  });

  it('sizes batches by maxSurge + maxUnavailable, per zone, one zone after the other', async () => {
    await seed(aNodePool('np1').withVersion(V.oldPatch133).withNodeCount(3), [
      'us-central1-a',
      'us-central1-b',
    ]);
    const res = await h.put(POOL.replace('us-central1-a', 'us-central1'), {
      nodeVersion: V.master,
      upgradeSettings: { maxSurge: 2, maxUnavailable: 1 },
    });
    expect(res.status, res.text).toBe(200);
    const name = res.body.name;
    const ops = OPS.replace('us-central1-a', 'us-central1');
    // 3 nodes per zone, 3 at a time: one batch in each zone, 900 ms each.
    await h.advance('200ms');
    expect((await h.get(`${ops}/${name}`)).body.detail).toBe(
      'Updating np1, processed 0 out of 6 nodes (0.0%)',
    );
    const cluster = CLUSTER.replace('us-central1-a', 'us-central1');
    expect((await h.get(cluster)).body.currentNodeCount).toBe(8);
    await h.advance('900ms');
    expect((await h.get(`${ops}/${name}`)).body.detail).toBe(
      'Updating np1, processed 3 out of 6 nodes (50.0%)',
    );
    await h.advance('900ms');
    expect((await h.get(`${ops}/${name}`)).body.status).toBe('DONE');
  });

  it('takes its per-batch time from the settings, scaled by the world clock', async () => {
    await seed(aNodePool('np1').withVersion(V.oldPatch133).withNodeCount(2));
    await h.settings({ rollout: { batchMs: 300_000 } });
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    await h.advance('200ms');
    await h.advance('5m');
    expect((await op(started.name)).detail).toBe('Updating np1, processed 1 out of 2 nodes (50.0%)');
    await h.advance('5m');
    expect((await op(started.name)).status).toBe('DONE');
  });

  it('applies changes that need no new nodes in place: NODES_TOTAL 0, as recorded for a taints update', async () => {
    await seed(aNodePool('np1'));
    const started = (await h.put(POOL, { taints: { taints: [] } })).body;
    await h.advance('1s');
    const running = await op(started.name);
    expect(running.status).toBe('RUNNING');
    expect(running.detail).toBeUndefined();
    await h.advance('1s');
    expect((await op(started.name)).progress).toEqual({ metrics: [metric('NODES_TOTAL', 0)] });
  });
});

describe('a cancelled or failed surge upgrade', () => {
  beforeEach(async () => {
    h = createHarness();
    await seed(aNodePool('np1').withVersion(V.oldPatch133).withNodeCount(4));
  });

  it('keeps the upgraded nodes upgraded (a mixed pool), which rollback brings back', async () => {
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    // 4 batches of 450 ms after 200 ms: two are done at 1.1 s.
    await h.advance('1100ms');
    expect((await op(started.name)).detail).toBe('Updating np1, processed 2 out of 4 nodes (50.0%)');
    expect((await h.post(`${OPS}/${started.name}:cancel`, {})).status).toBe(200);
    await h.advance('500ms');
    const cancelled = await op(started.name);
    expect(cancelled).toMatchObject({ status: 'DONE', error: { code: 1 } });
    expect(cancelled.progress.metrics).toContainEqual(metric('NODES_DONE', 2));
    // The pool runs (its version is the old one: two nodes are still on it).
    expect((await h.get(POOL)).body).toMatchObject({ status: 'RUNNING', version: V.oldPatch133 });
    const info = (await h.get(`${POOL}:fetchNodePoolUpgradeInfo`)).body;
    expect(info.upgradeDetails).toEqual([
      expect.objectContaining({
        state: 'CANCELED',
        initialVersion: V.oldPatch133,
        targetVersion: V.master,
        startType: 'MANUAL',
      }),
    ]);

    const rollback = await h.post(`${POOL}:rollback`, { respectPdb: true });
    expect(rollback.status, rollback.text).toBe(200);
    expect(rollback.body).toMatchObject({ operationType: 'UPGRADE_NODES', status: 'PENDING' });
    expect((await h.get(POOL)).body.status).toBe('RECONCILING');
    // Two nodes to bring back, one at a time.
    await h.advance('200ms');
    expect((await op(rollback.body.name)).detail).toBe('Updating np1, processed 0 out of 2 nodes (0.0%)');
    await h.advance('2s');
    expect((await op(rollback.body.name)).status).toBe('DONE');
    expect((await h.get(POOL)).body).toMatchObject({ status: 'RUNNING', version: V.oldPatch133 });
    // Rolled back: a second rollback has nothing left to do (an operation that changes nothing).
    const again = (await h.post(`${POOL}:rollback`, {})).body;
    await h.advance('2s');
    expect((await op(again.name)).progress).toEqual({ metrics: [metric('NODES_TOTAL', 0)] });
  });

  it('fails at the batch a fault names, with the nodes before it upgraded', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      effect: { operationFails: { atBatch: 3, status: 'INTERNAL', message: 'Node failed to register.' } },
    });
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    await h.advance('1100ms');
    expect((await op(started.name)).status).toBe('RUNNING');
    // Batch 3 ends at 200 + 3 × 450 ms.
    await h.advance('450ms');
    const failed = await op(started.name);
    expect(failed).toMatchObject({
      status: 'DONE',
      statusMessage: 'Node failed to register.',
      error: { code: 13, message: 'Node failed to register.' },
    });
    expect(failed.progress.metrics).toEqual([
      metric('NODES_TOTAL', 4),
      metric('NODES_FAILED', 1),
      metric('NODES_COMPLETE', 2),
      metric('NODES_DONE', 3),
      metric('NODE_PDB_DELAY_SECONDS', 0),
    ]);
    expect((await h.get(POOL)).body.status).toBe('RUNNING_WITH_ERROR');
    const rollback = (await h.post(`${POOL}:rollback`, {})).body;
    await h.advance('200ms');
    expect((await op(rollback.name)).detail).toBe('Updating np1, processed 0 out of 2 nodes (0.0%)');
  });

  it('stalls at the batch a fault names until it is cancelled', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      effect: { operationStalls: { atBatch: 2 } },
    });
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    await h.advance('1h');
    const stalled = await op(started.name);
    expect(stalled.status).toBe('RUNNING');
    expect(stalled.detail).toBe('Updating np1, processed 1 out of 4 nodes (25.0%)');
    // Meanwhile the pool is busy: a rollback is the incompatible operation GKE answers.
    const rollback = await h.post(`${POOL}:rollback`, {});
    expect(rollback.status).toBe(400);
    expect(rollback.body.error.message).toBe(`Cluster is running incompatible operation ${started.name}.`);
    await h.post(`${OPS}/${started.name}:cancel`, {});
    await h.advance('1s');
    expect((await op(started.name)).status).toBe('DONE');
  });
});

describe('blue-green upgrades', () => {
  const blueGreen = (settings: Record<string, unknown> = {}) => ({
    nodeVersion: V.master,
    upgradeSettings: {
      strategy: 'BLUE_GREEN',
      blueGreenSettings: {
        standardRolloutPolicy: { batchNodeCount: 1, batchSoakDuration: '60s' },
        nodePoolSoakDuration: '600s',
        ...settings,
      },
    },
  });

  beforeEach(async () => {
    h = createHarness();
    await seed(aNodePool('np1').withVersion(V.oldPatch133).withNodeCount(2));
    await h.settings({ rollout: { phaseMs: 60_000, batchMs: 30_000 } });
  });

  async function phase() {
    return (await h.get(POOL)).body.updateInfo?.blueGreenInfo?.phase;
  }

  it('walks the phases, soaks, and ends with the green pool only', async () => {
    const before = (await h.get(POOL)).body;
    const started = (await h.put(POOL, blueGreen())).body;
    expect(await phase()).toBe('UPDATE_STARTED');
    await h.advance('200ms');
    expect(await phase()).toBe('CREATING_GREEN_POOL');
    const info = (await h.get(POOL)).body.updateInfo.blueGreenInfo;
    expect(info.blueInstanceGroupUrls).toEqual(before.instanceGroupUrls);
    expect(info.greenInstanceGroupUrls).toHaveLength(1);
    expect(info.greenInstanceGroupUrls[0]).not.toBe(before.instanceGroupUrls[0]);
    expect(info.greenPoolVersion).toBe(V.master);
    expect((await op(started.name)).progress.metrics[0]).toEqual(stage('CREATING_GREEN_POOL'));
    await h.advance('60s');
    expect(await phase()).toBe('CORDONING_BLUE_POOL');
    // The green pool stands beside the blue one.
    expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(4);
    await h.advance('60s');
    expect(await phase()).toBe('DRAINING_BLUE_POOL');
    await h.advance('30s');
    expect((await op(started.name)).detail).toBe('Updating np1, processed 1 out of 2 nodes (50.0%)');
    // The batch soak (60 s), then the last batch (30 s): the whole pool soaks.
    await h.advance('90s');
    expect(await phase()).toBe('NODE_POOL_SOAKING');
    const soaking = (await h.get(POOL)).body.updateInfo.blueGreenInfo;
    expect(soaking.bluePoolDeletionStartTime).toBe('2026-01-01T00:14:00.200000Z');
    expect((await op(started.name)).status).toBe('RUNNING');
    await h.advance('600s');
    expect(await phase()).toBe('DELETING_BLUE_POOL');
    await h.advance('60s');
    expect((await op(started.name)).status).toBe('DONE');
    const after = (await h.get(POOL)).body;
    expect(after).toMatchObject({ status: 'RUNNING', version: V.master });
    expect(after.updateInfo).toBeUndefined();
    expect(after.instanceGroupUrls).toEqual(info.greenInstanceGroupUrls);
    expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(2);
  });

  it('completeUpgrade during the soak skips the rest of it; outside the soak it is refused', async () => {
    const started = (await h.put(POOL, blueGreen({ nodePoolSoakDuration: '86400s' }))).body;
    await h.advance('200ms');
    const early = await h.post(`${POOL}:completeUpgrade`, {});
    expect(early.status).toBe(400);
    expect(early.body.error.status).toBe('FAILED_PRECONDITION');
    await h.advance('4m');
    expect(await phase()).toBe('NODE_POOL_SOAKING');
    const complete = await h.post(`${POOL}:completeUpgrade`, {});
    expect(complete.status, complete.text).toBe(200);
    expect(complete.body).toEqual({});
    expect(await phase()).toBe('DELETING_BLUE_POOL');
    await h.advance('60s');
    expect((await op(started.name)).status).toBe('DONE');
    expect((await h.get(POOL)).body.version).toBe(V.master);
  });

  it('a cancel during the soak, then rollback, returns to the blue pool (ROLLBACK_STARTED)', async () => {
    const before = (await h.get(POOL)).body;
    const started = (await h.put(POOL, blueGreen())).body;
    await h.advance('5m');
    expect(await phase()).toBe('NODE_POOL_SOAKING');
    // Rollback while the upgrade runs is the incompatible operation (recorded).
    expect((await h.post(`${POOL}:rollback`, {})).status).toBe(400);
    await h.post(`${OPS}/${started.name}:cancel`, {});
    await h.advance('1s');
    const cancelled = await op(started.name);
    expect(cancelled.status).toBe('DONE');
    expect(cancelled.progress.metrics[0]).toEqual(stage('NODE_POOL_SOAKING'));
    const rollback = (await h.post(`${POOL}:rollback`, {})).body;
    await h.advance('200ms');
    expect(await phase()).toBe('ROLLBACK_STARTED');
    await h.advance('60s');
    expect((await op(rollback.name)).status).toBe('DONE');
    const after = (await h.get(POOL)).body;
    expect(after).toMatchObject({ status: 'RUNNING', version: V.oldPatch133 });
    expect(after.updateInfo).toBeUndefined();
    expect(after.instanceGroupUrls).toEqual(before.instanceGroupUrls);
  });

  it('a fault can stall a phase', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      effect: { operationStalls: { atPhase: 'CORDONING_BLUE_POOL' } },
    });
    const started = (await h.put(POOL, blueGreen())).body;
    await h.advance('1d');
    expect(await phase()).toBe('CORDONING_BLUE_POOL');
    expect((await op(started.name)).status).toBe('RUNNING');
  });

  it('a fault can fail a phase: the pool keeps both pools and the phase reached, for rollback', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      effect: { operationFails: { atPhase: 'DRAINING_BLUE_POOL', message: 'Drain timed out.' } },
    });
    const started = (await h.put(POOL, blueGreen())).body;
    await h.advance('2m');
    await h.advance('200ms');
    expect(await phase()).toBe('DRAINING_BLUE_POOL');
    // Draining takes 30 s + 60 s soak + 30 s; it fails where the node pool soak would begin.
    await h.advance('119s');
    expect((await op(started.name)).status).toBe('RUNNING');
    await h.advance('1s');
    const failed = await op(started.name);
    expect(failed).toMatchObject({ status: 'DONE', statusMessage: 'Drain timed out.' });
    expect(failed.progress.metrics[0]).toEqual(stage('DRAINING_BLUE_POOL'));
    expect((await h.get(POOL)).body).toMatchObject({
      status: 'RUNNING_WITH_ERROR',
      version: V.oldPatch133,
      updateInfo: { blueGreenInfo: { phase: 'DRAINING_BLUE_POOL' } },
    });
    const rollback = (await h.post(`${POOL}:rollback`, {})).body;
    await h.advance('61s');
    expect((await op(rollback.name)).status).toBe('DONE');
    expect((await h.get(POOL)).body.updateInfo).toBeUndefined();
  });

  it("follows the pool's own strategy when the update names only a version", async () => {
    h.close();
    h = createHarness();
    const pool = aNodePool('np1').withVersion(V.oldPatch133).build();
    pool.upgradeSettings = { strategy: 'BLUE_GREEN', blueGreenSettings: { nodePoolSoakDuration: '0s' } };
    await h.seed({ clusters: [{ ...aCluster().build(), nodePools: [pool] }] });
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    await h.advance('200ms');
    expect(await phase()).toBe('CREATING_GREEN_POOL');
    await h.advance('2s');
    expect((await op(started.name)).status).toBe('DONE');
    expect((await h.get(POOL)).body.version).toBe(V.master);
  });

  it('steps through the phases by polls when the world counts polls', async () => {
    await h.settings({ operationPolls: 10 });
    const started = (await h.put(POOL, blueGreen())).body;
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      const o = await op(started.name);
      const p = await phase();
      if (p && seen.at(-1) !== p) seen.push(p);
      if (o.status === 'DONE') break;
    }
    expect((await op(started.name)).status).toBe('DONE');
    // The soak (600 s) is most of the time: polls spend most of their count there.
    expect(seen).toContain('NODE_POOL_SOAKING');
    expect((await h.get(POOL)).body.version).toBe(V.master);
  });

  it('uses GKE defaults: one node per batch and a one-hour node pool soak', async () => {
    const started = (
      await h.put(POOL, { nodeVersion: V.master, upgradeSettings: { strategy: 'BLUE_GREEN' } })
    ).body;
    // 200 ms + create 60 s + cordon 60 s + 2 batches × 30 s: soaking from 3 min 0.2 s to 63 min 0.2 s.
    await h.advance('3m');
    await h.advance('200ms');
    expect(await phase()).toBe('NODE_POOL_SOAKING');
    await h.advance('59m');
    expect(await phase()).toBe('NODE_POOL_SOAKING');
    await h.advance('1m');
    expect(await phase()).toBe('DELETING_BLUE_POOL');
    await h.advance('1m');
    expect((await op(started.name)).status).toBe('DONE');
  });

  it('completeUpgrade also ends the soak of an upgrade that advances by polls', async () => {
    await h.settings({ operationPolls: 100 });
    const started = (await h.put(POOL, blueGreen({ nodePoolSoakDuration: '86400s' }))).body;
    let polls = 0;
    while ((await phase()) !== 'NODE_POOL_SOAKING' && polls < 100) {
      await op(started.name);
      polls++;
    }
    expect(await phase()).toBe('NODE_POOL_SOAKING');
    expect((await h.post(`${POOL}:completeUpgrade`, {})).status).toBe(200);
    expect(await phase()).toBe('DELETING_BLUE_POOL');
    // The soak was nearly all of the planned time: what is left is the deletion.
    let more = 0;
    while ((await op(started.name)).status !== 'DONE' && more < 100) more++;
    expect(more).toBeLessThan(100);
    expect((await h.get(POOL)).body.version).toBe(V.master);
  });

  it('waits before draining under the autoscaled rollout policy (3 days unless set)', async () => {
    const started = (
      await h.put(POOL, {
        nodeVersion: V.master,
        upgradeSettings: {
          strategy: 'BLUE_GREEN',
          blueGreenSettings: { autoscaledRolloutPolicy: {}, nodePoolSoakDuration: '0s' },
        },
      })
    ).body;
    await h.advance('2m');
    await h.advance('200ms');
    expect(await phase()).toBe('WAITING_TO_DRAIN_BLUE_POOL');
    await h.advance('71h');
    expect(await phase()).toBe('WAITING_TO_DRAIN_BLUE_POOL');
    await h.advance('1h');
    // The whole blue pool drains in one batch.
    expect(await phase()).toBe('DRAINING_BLUE_POOL');
    await h.advance('30s');
    // A zero soak: the blue pool's deletion starts as soon as it is drained.
    expect(await phase()).toBe('DELETING_BLUE_POOL');
    await h.advance('1m');
    expect((await op(started.name)).status).toBe('DONE');
  });
});

describe('upgrade strategies that are not simulated', () => {
  it('refuses a node upgrade of a SHORT_LIVED pool with 501, starting nothing', async () => {
    h = createHarness();
    await seed(aNodePool('np1').withVersion(V.oldPatch133));
    const res = await h.put(POOL, { nodeVersion: V.master, upgradeSettings: { strategy: 'SHORT_LIVED' } });
    expect(res.status, res.text).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect((await h.get(POOL)).body).toMatchObject({ status: 'RUNNING', version: V.oldPatch133 });
    // Settings alone change in place.
    expect((await h.put(POOL, { upgradeSettings: { strategy: 'SHORT_LIVED' } })).status).toBe(200);
  });
});
