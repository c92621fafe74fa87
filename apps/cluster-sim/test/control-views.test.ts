import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClusterView, OperationView, PoolView } from '../src/index';
import { aCluster, aNodePool, V } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, OPS, POOL } from './support/harness';

/**
 * The dashboard's read-only control views: `GET /_sim/operations` (newest first, `?status=`) and
 * `GET /_sim/node-pools` (clusters with their pools), per namespace.
 */
let h: Harness;
afterEach(() => h.close());

const NP2 = `${CLUSTER}/nodePools/np2`;

async function operations(query = '', headers: Record<string, string> = {}) {
  const res = await h.get<{ operations: OperationView[] }>(`/_sim/operations${query}`, {
    token: null,
    headers,
  });
  expect(res.status, res.text).toBe(200);
  return res.body.operations;
}

async function clusters(prefix = '', headers: Record<string, string> = {}) {
  const res = await h.get<{ clusters: ClusterView[] }>(`${prefix}/_sim/node-pools`, { token: null, headers });
  expect(res.status, res.text).toBe(200);
  return res.body.clusters;
}

async function pool(name: string): Promise<PoolView> {
  const found = (await clusters())[0]?.pools.find((p) => p.name === name);
  if (!found) throw new Error(`no pool ${name} in the view`);
  return found;
}

describe('GET /_sim/operations', () => {
  beforeEach(async () => {
    h = createHarness();
    await h.seed({
      clusters: [
        aCluster()
          .withPools(aNodePool('np1').withVersion(V.oldPatch133).withNodeCount(4), aNodePool('np2'))
          .build(),
      ],
    });
  });

  it('is empty for a world without operations', async () => {
    expect(await operations()).toEqual([]);
  });

  it('lists an update started by a PUT, RUNNING on its pool, and DONE once completed through the control plane', async () => {
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    expect(started.status).toBe('PENDING');
    let [view] = await operations();
    expect(view).toMatchObject({
      id: started.name,
      name: started.name,
      project: 'p1',
      location: 'us-central1-a',
      cluster: 'c1',
      pool: 'np1',
      operationType: 'UPGRADE_NODES',
      status: 'PENDING',
      percent: 0,
      startTime: '2026-01-01T00:00:00.000000Z',
      selfLink: started.selfLink,
      targetLink: started.targetLink,
    });
    expect(view?.targetLink).toMatch(/\/clusters\/c1\/nodePools\/np1$/);

    // 4 surge batches of 450 ms after the 200 ms PENDING: two are done at 1.1 s, half the running time.
    await h.advance('1100ms');
    [view] = await operations();
    const api = (await h.get(`${OPS}/${started.name}`)).body;
    // The API's own rendering, field for field, plus the dashboard's fields.
    expect(view).toEqual({
      ...api,
      id: started.name,
      project: 'p1',
      location: 'us-central1-a',
      cluster: 'c1',
      pool: 'np1',
      percent: 50,
    });
    expect(view).toMatchObject({
      status: 'RUNNING',
      detail: 'Updating np1, processed 2 out of 4 nodes (50.0%)',
    });
    expect(view?.endTime).toBeUndefined();

    const completed = await h.post(`/_sim/operations/${view?.id}/complete`, {}, { token: null });
    expect(completed.status, completed.text).toBe(200);
    [view] = await operations();
    expect(view).toMatchObject({
      id: started.name,
      status: 'DONE',
      percent: 100,
      endTime: '2026-01-01T00:00:01.100000Z',
      pool: 'np1',
    });
    expect(view?.error).toBeUndefined();
  });

  it('lists newest first and filters by status; a bad status or an unknown parameter is a 400', async () => {
    const first = (await h.put(POOL, { nodeVersion: V.master })).body;
    await h.advance('500ms');
    const second = (await h.post(`${NP2}:setSize`, { nodeCount: 5 })).body;
    await h.post(`/_sim/operations/${first.name}/complete`, {}, { token: null });
    await h.advance('300ms');

    expect((await operations()).map((o) => [o.id, o.status, o.pool])).toEqual([
      [second.name, 'RUNNING', 'np2'],
      [first.name, 'DONE', 'np1'],
    ]);
    expect((await operations('?status=DONE')).map((o) => o.id)).toEqual([first.name]);
    expect((await operations('?status=RUNNING')).map((o) => o.id)).toEqual([second.name]);
    expect(await operations('?status=PENDING')).toEqual([]);
    expect(await operations('?status=ABORTING')).toEqual([]);

    const bad = await h.get('/_sim/operations?status=FINISHED', { token: null });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error).toMatchObject({ status: 400, path: 'status' });
    expect(bad.body.error.message).toContain('RUNNING');
    const lower = await h.get('/_sim/operations?status=done', { token: null });
    expect(lower.status).toBe(400);
    const unknown = await h.get('/_sim/operations?state=DONE', { token: null });
    expect(unknown.status, unknown.text).toBe(400);
  });

  it('shows a cancelled operation ABORTING then DONE with its error, at the percent it stopped at', async () => {
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    await h.advance('1100ms');
    expect((await h.post(`${OPS}/${started.name}:cancel`, {})).status).toBe(200);
    expect(await operations('?status=ABORTING')).toEqual([
      expect.objectContaining({ id: started.name, percent: 50 }),
    ]);
    await h.advance('1s');
    const [view] = await operations();
    expect(view).toMatchObject({ status: 'DONE', percent: 50, error: { code: 1 } });
  });

  it('is not a poll: reading the view never advances a poll-driven operation', async () => {
    await h.settings({ operationPolls: 4 });
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    for (let i = 0; i < 10; i++)
      expect((await operations())[0]).toMatchObject({ status: 'PENDING', percent: 0 });
    await h.get(`${OPS}/${started.name}`);
    expect((await operations())[0]).toMatchObject({ status: 'RUNNING', percent: 25 });
  });

  it('keeps a stalled rollout at the step it stalled on, however long it waits', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      effect: { operationStalls: { atBatch: 2 } },
    });
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    await h.advance('1h');
    // Batch 2 (the second quarter of the running time) never ends.
    expect((await operations())[0]).toMatchObject({ id: started.name, status: 'RUNNING', percent: 50 });
    expect((await pool('np1')).rollout).toMatchObject({
      state: 'RUNNING',
      batch: 2,
      batches: 4,
      nodesUpgraded: 1,
      stalled: true,
      operation: started.name,
    });
  });

  it('keeps namespaces apart (path prefix and header)', async () => {
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    const other = await h.get('/_ns/other/_sim/operations', { token: null });
    expect(other.status, other.text).toBe(200);
    expect(other.body).toEqual({ operations: [] });
    expect(await operations('', { 'x-sim-namespace': 'other' })).toEqual([]);

    const seeded = await h.request('POST', '/_ns/other/_sim/seed', {
      body: { clusters: [aCluster('c9').inProject('p9').build()] },
      token: null,
    });
    expect(seeded.status, seeded.text).toBe(201);
    const theirs = await h.put(
      '/_ns/other/v1beta1/projects/p9/locations/us-central1-a/clusters/c9/nodePools/np1',
      { nodeVersion: V.master },
    );
    expect(theirs.status, theirs.text).toBe(200);

    expect((await operations('', { 'x-sim-namespace': 'other' })).map((o) => [o.id, o.project])).toEqual([
      [theirs.body.name, 'p9'],
    ]);
    expect((await operations()).map((o) => [o.id, o.project])).toEqual([[started.name, 'p1']]);
    expect((await clusters('/_ns/other')).map((c) => `${c.project}/${c.name}`)).toEqual(['p9/c9']);
    expect((await clusters()).map((c) => `${c.project}/${c.name}`)).toEqual(['p1/c1']);
  });
});

describe('GET /_sim/node-pools', () => {
  beforeEach(() => {
    h = createHarness();
  });

  it('is empty for an empty world', async () => {
    expect(await clusters()).toEqual([]);
  });

  it('shows each cluster with its pools, their etags and node counts', async () => {
    await h.seed({
      clusters: [
        aCluster('c2').withPools(aNodePool('np1')).build(),
        aCluster()
          .withPools(aNodePool('np1').withNodeCount(4), aNodePool('np2').withVersion(V.minor132))
          .build(),
      ],
    });
    const all = await clusters();
    expect(all.map((c) => c.name)).toEqual(['c1', 'c2']);
    const c1 = all[0];
    expect(c1).toMatchObject({
      project: 'p1',
      location: 'us-central1-a',
      name: 'c1',
      status: 'RUNNING',
      currentMasterVersion: V.master,
      currentNodeCount: 7,
      operations: [],
    });
    expect(c1?.pools).toEqual([
      {
        name: 'np1',
        status: 'RUNNING',
        version: V.master,
        etag: await h.etagOf(),
        initialNodeCount: 4,
        locations: ['us-central1-a'],
        nodesPerZone: { 'us-central1-a': 4 },
        nodeCount: 4,
        autoscaling: null,
        rollout: null,
        operation: null,
      },
      expect.objectContaining({ name: 'np2', version: V.minor132, nodeCount: 3, etag: await h.etagOf(NP2) }),
    ]);
  });

  it('counts the nodes of each zone of a regional pool', async () => {
    const cluster = aCluster().withPools(aNodePool('np1').withNodeCount(2)).build();
    cluster.location = 'us-central1';
    cluster.locations = ['us-central1-a', 'us-central1-b', 'us-central1-c'];
    await h.seed({ clusters: [cluster] });
    const [c1] = await clusters();
    expect(c1?.currentNodeCount).toBe(6);
    expect(c1?.pools[0]).toMatchObject({
      initialNodeCount: 2,
      locations: ['us-central1-a', 'us-central1-b', 'us-central1-c'],
      nodesPerZone: { 'us-central1-a': 2, 'us-central1-b': 2, 'us-central1-c': 2 },
      nodeCount: 6,
    });
  });

  it('reflects a size change: the running operation, then the new count and etag', async () => {
    await h.seed({ clusters: [aCluster().withPools(aNodePool('np1'), aNodePool('np2')).build()] });
    const before = await pool('np1');
    const resize = await h.post(`${POOL}:setSize`, { nodeCount: 5 });
    expect(resize.status, resize.text).toBe(200);
    await h.advance('500ms');

    let [c1] = await clusters();
    expect(c1).toMatchObject({ status: 'RECONCILING', operations: [resize.body.name] });
    expect(c1?.pools.map((p) => [p.name, p.operation, p.initialNodeCount])).toEqual([
      ['np1', resize.body.name, 3],
      ['np2', null, 3],
    ]);
    expect((await operations())[0]).toMatchObject({
      id: resize.body.name,
      operationType: 'SET_NODE_POOL_SIZE',
      pool: 'np1',
      status: 'RUNNING',
    });

    await h.advance('2s');
    [c1] = await clusters();
    expect(c1).toMatchObject({ status: 'RUNNING', currentNodeCount: 8, operations: [] });
    const after = c1?.pools[0];
    expect(after).toMatchObject({
      name: 'np1',
      status: 'RUNNING',
      initialNodeCount: 5,
      nodesPerZone: { 'us-central1-a': 5 },
      nodeCount: 5,
      operation: null,
    });
    expect(after?.etag).not.toBe(before.etag);
    expect(after?.etag).toBe(await h.etagOf());
  });

  it('shows autoscaling only when it is enabled', async () => {
    await h.seedDefault();
    const res = await h.post(`${POOL}:setAutoscaling`, {
      autoscaling: { enabled: true, minNodeCount: 1, maxNodeCount: 5 },
    });
    expect(res.status, res.text).toBe(200);
    expect((await pool('np1')).autoscaling).toBeNull();
    await h.post(`/_sim/operations/${res.body.name}/complete`, {}, { token: null });
    // GKE's default location policy comes with it.
    expect((await pool('np1')).autoscaling).toEqual({
      minNodeCount: 1,
      maxNodeCount: 5,
      locationPolicy: 'BALANCED',
    });
    const off = await h.post(`${POOL}:setAutoscaling`, { autoscaling: { enabled: false } });
    await h.post(`/_sim/operations/${off.body.name}/complete`, {}, { token: null });
    expect((await pool('np1')).autoscaling).toBeNull();
  });

  it('shows a surge rollout batch by batch, and the mixed pool a cancel leaves', async () => {
    await h.seed({
      clusters: [aCluster().withPools(aNodePool('np1').withVersion(V.oldPatch133).withNodeCount(4)).build()],
    });
    const started = (await h.put(POOL, { nodeVersion: V.master })).body;
    expect((await pool('np1')).rollout).toMatchObject({ state: 'RUNNING', batch: null, nodesUpgraded: 0 });
    await h.advance('1100ms');
    const [c1] = await clusters();
    // A surge node exists beside the 4 while a batch runs.
    expect(c1?.currentNodeCount).toBe(5);
    expect(c1?.pools[0]).toMatchObject({
      status: 'RECONCILING',
      version: V.oldPatch133,
      operation: started.name,
      rollout: {
        state: 'RUNNING',
        kind: 'upgrade',
        strategy: 'SURGE',
        phase: null,
        batch: 3,
        batches: 4,
        zone: 'us-central1-a',
        nodesUpgraded: 2,
        nodesTotal: 4,
        fromVersion: V.oldPatch133,
        toVersion: V.master,
        stalled: false,
        operation: started.name,
      },
    });

    await h.post(`${OPS}/${started.name}:cancel`, {});
    await h.advance('1s');
    expect(await pool('np1')).toMatchObject({
      status: 'RUNNING',
      operation: null,
      rollout: {
        state: 'STOPPED',
        strategy: 'SURGE',
        nodesUpgraded: 2,
        nodesTotal: 4,
        fromVersion: V.oldPatch133,
        toVersion: V.master,
        operation: null,
      },
    });

    // A rollback runs on the mixed pool; once DONE the pool has no rollout left.
    const rollback = (await h.post(`${POOL}:rollback`, {})).body;
    expect((await pool('np1')).rollout).toMatchObject({
      state: 'RUNNING',
      kind: 'rollback',
      operation: rollback.name,
    });
    await h.post(`/_sim/operations/${rollback.name}/complete`, {}, { token: null });
    expect(await pool('np1')).toMatchObject({ version: V.oldPatch133, rollout: null, operation: null });
  });

  it('shows the blue-green phase a rollout has reached', async () => {
    await h.seed({ clusters: [aCluster().withPools(aNodePool('np1').withVersion(V.oldPatch133)).build()] });
    const started = (
      await h.put(POOL, {
        nodeVersion: V.master,
        upgradeSettings: {
          strategy: 'BLUE_GREEN',
          blueGreenSettings: { standardRolloutPolicy: { batchNodeCount: 1 }, nodePoolSoakDuration: '60s' },
        },
      })
    ).body;
    expect(started.name).toBeTruthy();
    await h.advance('300ms');
    expect((await pool('np1')).rollout).toMatchObject({
      state: 'RUNNING',
      strategy: 'BLUE_GREEN',
      phase: 'CREATING_GREEN_POOL',
      batch: null,
      batches: null,
    });
    await h.advance('2s');
    expect((await pool('np1')).rollout).toMatchObject({ phase: 'NODE_POOL_SOAKING', nodesUpgraded: 3 });
    expect((await operations())[0]?.progress?.metrics[0]).toEqual({
      name: 'UPGRADE_STAGE',
      stringValue: 'NODE_POOL_SOAKING',
    });
  });

  it('names a cluster-wide operation on every pool it works on', async () => {
    const cluster = aCluster().withPools(aNodePool('np1'), aNodePool('np2')).build();
    cluster.location = 'us-central1';
    cluster.locations = ['us-central1-a', 'us-central1-b'];
    await h.seed({ clusters: [cluster] });
    const update = await h.put('/v1beta1/projects/p1/locations/us-central1/clusters/c1', {
      update: { desiredLocations: ['us-central1-a', 'us-central1-b', 'us-central1-c'] },
    });
    expect(update.status, update.text).toBe(200);
    const [c1] = await clusters();
    expect(c1?.pools.map((p) => p.operation)).toEqual([update.body.name, update.body.name]);
    expect((await operations())[0]).toMatchObject({ id: update.body.name, pool: null, cluster: 'c1' });
    await h.post(`/_sim/operations/${update.body.name}/complete`, {}, { token: null });
    expect((await clusters())[0]?.pools.map((p) => [p.operation, p.nodeCount])).toEqual([
      [null, 9],
      [null, 9],
    ]);
  });
});

describe('openapi', () => {
  it('documents both views', async () => {
    h = createHarness();
    const doc = (await h.get('/_sim/openapi.json', { token: null })).body;
    expect(doc.paths['/_sim/operations'].get.summary).toContain('newest first');
    expect(doc.paths['/_sim/node-pools'].get.summary).toContain('node pools');
  });
});
