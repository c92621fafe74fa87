import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool, V } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, LOC, OPS, POOL, ZONE } from './support/harness';

/**
 * The node pool methods besides get/update/create/delete (issue 16): setSize, setManagement,
 * setAutoscaling (and clusters.update's desiredNodePoolAutoscaling), rollback, completeUpgrade and
 * fetchNodePoolUpgradeInfo, each in its `locations` and legacy `zones` REST forms where GKE has both.
 * Rollouts and rollbacks of stopped upgrades are covered elsewhere; here are the basic forms.
 */

const OP_ID = /^operation-\d{13}-[0-9a-f-]+$/;
const NUMBER = '281707762362'; // the project number the simulator derives for "p1"
const CLOUD = 'https://www.googleapis.com/auth/cloud-platform';
const ZONE_POOL = `${ZONE}/clusters/c1/nodePools/np1`;
const TARGET = `https://container.googleapis.com/v1beta1/projects/${NUMBER}/zones/us-central1-a/clusters/c1/nodePools/np1`;
const T0_STAMP = '2026-01-01T00:00:00.000000Z';
const T2_STAMP = '2026-01-01T00:00:02.000000Z';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

/** A PENDING operation as a node pool method answers it. */
const pendingOp = (operationType: string, targetLink = TARGET) => ({
  name: expect.stringMatching(OP_ID),
  zone: 'us-central1-a',
  operationType,
  status: 'PENDING',
  selfLink: expect.stringMatching(
    new RegExp(
      `^https://container\\.googleapis\\.com/v1beta1/projects/${NUMBER}/zones/us-central1-a/operations/operation-`,
    ),
  ),
  targetLink,
  startTime: T0_STAMP,
});

/** Advances the clock by the default operation duration and returns the operation, which must be DONE. */
async function finish(opName: string) {
  await h.advance('2s');
  const op = (await h.get(`${OPS}/${opName}`)).body;
  expect(op.status).toBe('DONE');
  return op;
}

const operationCount = async () => (await h.get(OPS)).body.operations?.length ?? 0;

/** Seeds a second cluster c2 in us-central1-a, whose paths the tests build from `c2Pool`. */
async function seedC2(cluster: Record<string, unknown>) {
  await h.seed({ clusters: [{ ...aCluster('c2').build(), ...cluster } as never] });
}
const C2 = `${LOC}/clusters/c2`;
const C2_POOL = `${C2}/nodePools/np1`;

describe('nodePools.setSize', () => {
  const forms = [
    ['locations', `${POOL}:setSize`],
    ['zones', `${ZONE_POOL}/setSize`],
  ] as const;

  it.each(forms)(
    'resizes the pool through the %s form with a SET_NODE_POOL_SIZE operation',
    async (_, path) => {
      const before = (await h.get(POOL)).body;
      const res = await h.post(path, { nodeCount: 5 });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(pendingOp('SET_NODE_POOL_SIZE'));
      await h.advance('1s');
      expect((await h.get(`${OPS}/${res.body.name}`)).body.status).toBe('RUNNING');
      expect((await h.get(POOL)).body.initialNodeCount).toBe(3);
      const done = await finish(res.body.name);
      expect(done.endTime).toBe(T2_STAMP);
      const after = (await h.get(POOL)).body;
      expect(after.initialNodeCount).toBe(5);
      expect(after.status).toBe('RUNNING');
      expect(after.etag).not.toBe(before.etag);
      expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(5);
      expect((await h.journal()).find((e) => e.method === 'POST')).toMatchObject({
        operation: 'nodePools.setSize',
        status: 200,
      });
    },
  );

  it('counts every pool and every zone of a pool in the cluster currentNodeCount', async () => {
    await h.seed({
      nodePools: [
        {
          projectId: 'p1',
          location: 'us-central1-a',
          cluster: 'c1',
          ...aNodePool('np2').withNodeCount(2).build(),
          locations: ['us-central1-a', 'us-central1-b'],
        },
      ],
    });
    expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(3 + 2 * 2);
    const res = await h.post(`${CLUSTER}/nodePools/np2:setSize`, { nodeCount: 4 });
    expect(res.status, res.text).toBe(200);
    await finish(res.body.name);
    expect((await h.get(`${CLUSTER}/nodePools/np2`)).body.initialNodeCount).toBe(4);
    expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(3 + 4 * 2);
    const zero = await h.post(`${POOL}:setSize`, { nodeCount: 0 });
    expect(zero.status, zero.text).toBe(200);
    await finish(zero.body.name);
    expect((await h.get(POOL)).body.initialNodeCount).toBeUndefined();
    expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(4 * 2);
  });

  it('refuses a negative nodeCount with 400 INVALID_ARGUMENT and a field violation, starting nothing', async () => {
    const res = await h.post(`${POOL}:setSize`, { nodeCount: -1 });
    expect(res.status, res.text).toBe(400);
    const message = "Invalid value for field 'node_count': -1. Must be greater than or equal to 0.";
    expect(res.body.error).toEqual({
      code: 400,
      message,
      errors: [{ message, domain: 'global', reason: 'badRequest' }],
      status: 'INVALID_ARGUMENT',
      details: [
        expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.RequestInfo' }),
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'node_count', description: message }],
        },
      ],
    });
    expect(await operationCount()).toBe(0);
    expect((await h.get(POOL)).body.initialNodeCount).toBe(3);
  });

  it('resizes a pool whose autoscaling is enabled', async () => {
    await seedC2({
      nodePools: [
        { ...aNodePool('np1').build(), autoscaling: { enabled: true, minNodeCount: 1, maxNodeCount: 5 } },
      ],
    });
    const res = await h.post(`${C2_POOL}:setSize`, { nodeCount: 4 });
    expect(res.status, res.text).toBe(200);
    await finish(res.body.name);
    const pool = (await h.get(C2_POOL)).body;
    expect(pool.initialNodeCount).toBe(4);
    expect(pool.autoscaling).toEqual({
      enabled: true,
      minNodeCount: 1,
      maxNodeCount: 5,
      locationPolicy: 'BALANCED',
    });
  });

  it('accepts deprecated ids that match the path and refuses ones that contradict it', async () => {
    const same = await h.post(`${POOL}:setSize`, {
      nodeCount: 2,
      projectId: 'p1',
      zone: 'us-central1-a',
      clusterId: 'c1',
      nodePoolId: 'np1',
      name: 'projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1',
    });
    expect(same.status, same.text).toBe(200);
    await finish(same.body.name);
    for (const [field, snake] of [
      ['projectId', 'project_id'],
      ['zone', 'zone'],
      ['clusterId', 'cluster_id'],
      ['nodePoolId', 'node_pool_id'],
      ['name', 'name'],
    ] as const) {
      const bad = await h.post(`${ZONE_POOL}/setSize`, { nodeCount: 2, [field]: 'other' });
      expect(bad.status, `${field}: ${bad.text}`).toBe(400);
      expect(bad.body.error).toMatchObject({
        status: 'INVALID_ARGUMENT',
        message: `Invalid value for field '${snake}': "other" does not match the resource in the request URL.`,
      });
    }
    expect(await operationCount()).toBe(1);
  });
});

describe('nodePools.setManagement', () => {
  const forms = [
    ['locations', `${POOL}:setManagement`],
    ['zones', `${ZONE_POOL}/setManagement`],
  ] as const;

  it.each(forms)(
    'replaces the management through the %s form with a SET_NODE_POOL_MANAGEMENT operation',
    async (_, path) => {
      const before = (await h.get(POOL)).body;
      expect(before.management).toEqual({ autoUpgrade: true, autoRepair: true });
      const res = await h.post(path, { management: { autoUpgrade: true, autoRepair: false } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(pendingOp('SET_NODE_POOL_MANAGEMENT'));
      expect((await h.get(POOL)).body.management).toEqual({ autoUpgrade: true, autoRepair: true });
      await finish(res.body.name);
      const after = (await h.get(POOL)).body;
      // proto3 JSON: autoRepair false is the default and omitted.
      expect(after.management).toEqual({ autoUpgrade: true });
      expect(after.etag).not.toBe(before.etag);
      expect((await h.journal()).find((e) => e.method === 'POST')?.operation).toBe('nodePools.setManagement');
    },
  );

  it.each([
    [
      { autoUpgrade: false, autoRepair: true },
      'Auto_upgrade cannot be false when release_channel REGULAR is set.',
    ],
    [
      { autoUpgrade: false, autoRepair: false },
      'Auto_upgrade and auto_repair cannot be false when release_channel REGULAR is set.',
    ],
    [{}, 'Auto_upgrade and auto_repair cannot be false when release_channel REGULAR is set.'],
  ])(
    'refuses %j on a cluster on the REGULAR channel with 400 INVALID_ARGUMENT',
    async (management, message) => {
      expect((await h.get(CLUSTER)).body.releaseChannel).toEqual({ channel: 'REGULAR' });
      const res = await h.post(`${POOL}:setManagement`, { management });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message });
      expect(await operationCount()).toBe(0);
    },
  );

  it.each([
    ['UNSPECIFIED', { channel: 'UNSPECIFIED' }],
    ['no channel', {}],
  ])('lets auto-upgrade be turned off on a cluster with %s', async (_, releaseChannel) => {
    await seedC2({ releaseChannel });
    const res = await h.post(`${C2_POOL}:setManagement`, {
      management: { autoUpgrade: false, autoRepair: true },
    });
    expect(res.status, res.text).toBe(200);
    await finish(res.body.name);
    expect((await h.get(C2_POOL)).body.management).toEqual({ autoRepair: true });
    // No auto-upgrade: fetchNodePoolUpgradeInfo no longer says ACTIVE.
    expect((await h.get(`${C2_POOL}:fetchNodePoolUpgradeInfo`)).body.autoUpgradeStatus).toBeUndefined();
  });
});

describe('nodePools.setAutoscaling', () => {
  const forms = [
    ['locations', `${POOL}:setAutoscaling`],
    ['zones', `${ZONE_POOL}/autoscaling`],
  ] as const;

  it.each(forms)(
    'enables and disables autoscaling through the %s form with an UPDATE_CLUSTER operation on the pool',
    async (_, path) => {
      const before = (await h.get(POOL)).body;
      expect(before.autoscaling).toBeUndefined();
      const res = await h.post(path, { autoscaling: { enabled: true, minNodeCount: 1, maxNodeCount: 5 } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(pendingOp('UPDATE_CLUSTER'));
      expect((await h.get(POOL)).body.autoscaling).toBeUndefined();
      const done = await finish(res.body.name);
      expect(done.progress).toEqual({ metrics: [{ name: 'NODES_TOTAL', intValue: '0' }] });
      expect(done.targetLink).toBe(TARGET);
      const after = (await h.get(POOL)).body;
      expect(after.autoscaling).toEqual({
        enabled: true,
        minNodeCount: 1,
        maxNodeCount: 5,
        locationPolicy: 'BALANCED',
      });
      expect(after.etag).not.toBe(before.etag);
      expect(after.initialNodeCount).toBe(3);

      const off = await h.post(path, { autoscaling: { enabled: false } });
      expect(off.status, off.text).toBe(200);
      await finish(off.body.name);
      expect((await h.get(POOL)).body.autoscaling).toBeUndefined();
      expect((await h.journal()).find((e) => e.method === 'POST')?.operation).toBe(
        'nodePools.setAutoscaling',
      );
    },
  );

  it.each([
    [
      'total counts with a location policy of its own',
      { enabled: true, totalMinNodeCount: 2, totalMaxNodeCount: 9, locationPolicy: 'ANY' },
      { enabled: true, totalMinNodeCount: 2, totalMaxNodeCount: 9, locationPolicy: 'ANY' },
    ],
    [
      'zero counts beside min/max as unset (totalMinNodeCount: 0)',
      { enabled: true, minNodeCount: 0, maxNodeCount: 3, totalMinNodeCount: 0 },
      { enabled: true, maxNodeCount: 3, locationPolicy: 'BALANCED' },
    ],
    [
      'an unspecified location policy as BALANCED',
      { enabled: true, maxNodeCount: 3, locationPolicy: 'LOCATION_POLICY_UNSPECIFIED' },
      { enabled: true, maxNodeCount: 3, locationPolicy: 'BALANCED' },
    ],
    ['no autoscaling as disabled', undefined, undefined],
  ])('takes %s', async (_, autoscaling, stored) => {
    const res = await h.post(`${POOL}:setAutoscaling`, autoscaling === undefined ? {} : { autoscaling });
    expect(res.status, res.text).toBe(200);
    await finish(res.body.name);
    expect((await h.get(POOL)).body.autoscaling).toEqual(stored);
  });

  it.each([
    [
      { enabled: true },
      'Node_pool_autoscaling.max_node_count and node_pool_autoscaling.total_max_node_count cannot be both set to zero.',
    ],
    [
      { enabled: true, minNodeCount: 4, maxNodeCount: 2 },
      'Node_pool_autoscaling.min_node_count must be less than or equal to node_pool_autoscaling.max_node_count.',
    ],
    [
      { enabled: true, minNodeCount: -1, maxNodeCount: 3 },
      'Node_pool_autoscaling.min_node_count must be greater than or equal to 0.',
    ],
    [
      { enabled: true, totalMinNodeCount: 5, totalMaxNodeCount: 2 },
      'Node_pool_autoscaling.total_min_node_count must be less than or equal to node_pool_autoscaling.total_max_node_count.',
    ],
  ])('refuses %j with 400 INVALID_ARGUMENT, starting nothing', async (autoscaling, message) => {
    const res = await h.post(`${POOL}:setAutoscaling`, { autoscaling });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message });
    expect(await operationCount()).toBe(0);
  });

  it('refuses per-zone and total counts together', async () => {
    const res = await h.post(`${ZONE_POOL}/autoscaling`, {
      autoscaling: { enabled: true, minNodeCount: 1, maxNodeCount: 3, totalMaxNodeCount: 6 },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toMatch(
      /^Node_pool_autoscaling\.total_min_node_count and node_pool_autoscaling\.total_max_node_count cannot be set together/,
    );
    expect(await operationCount()).toBe(0);
  });

  it('holds the cluster while it runs, as UPDATE_CLUSTER does', async () => {
    const res = await h.post(`${POOL}:setAutoscaling`, { autoscaling: { enabled: true, maxNodeCount: 4 } });
    expect((await h.get(CLUSTER)).body.status).toBe('RECONCILING');
    const busy = await h.post(`${POOL}:setSize`, { nodeCount: 1 });
    expect(busy.status, busy.text).toBe(400);
    expect(busy.body.error).toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: `Cluster is running incompatible operation ${res.body.name}.`,
    });
    await finish(res.body.name);
    expect((await h.get(CLUSTER)).body.status).toBe('RUNNING');
  });
});

describe('clusters.update with desiredNodePoolAutoscaling', () => {
  it.each([
    ['locations', CLUSTER],
    ['zones', `${ZONE}/clusters/c1`],
  ])('sets the only pool autoscaling through the %s form, as setAutoscaling does', async (_, path) => {
    const res = await h.put(path, {
      update: { desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 4 } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(pendingOp('UPDATE_CLUSTER'));
    const done = await finish(res.body.name);
    expect(done.progress).toEqual({ metrics: [{ name: 'NODES_TOTAL', intValue: '0' }] });
    expect((await h.get(POOL)).body.autoscaling).toEqual({
      enabled: true,
      maxNodeCount: 4,
      locationPolicy: 'BALANCED',
    });
    expect((await h.journal()).find((e) => e.method === 'PUT')?.operation).toBe('clusters.update');
  });

  it('needs desiredNodePoolId when the cluster has more than one pool, and targets the pool it names', async () => {
    await h.seed({
      nodePools: [{ projectId: 'p1', location: 'us-central1-a', cluster: 'c1', ...aNodePool('np2').build() }],
    });
    const ambiguous = await h.put(CLUSTER, {
      update: { desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 4 } },
    });
    expect(ambiguous.status, ambiguous.text).toBe(400);
    expect(ambiguous.body.error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'Node pool id must be specified if cluster has more than one node pool..',
    });
    const res = await h.put(CLUSTER, {
      update: { desiredNodePoolId: 'np2', desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 4 } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(pendingOp('UPDATE_CLUSTER', TARGET.replace(/np1$/, 'np2')));
    await finish(res.body.name);
    expect((await h.get(`${CLUSTER}/nodePools/np2`)).body.autoscaling).toMatchObject({ maxNodeCount: 4 });
    expect((await h.get(POOL)).body.autoscaling).toBeUndefined();
    const missing = await h.put(CLUSTER, {
      update: { desiredNodePoolId: 'nope', desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 4 } },
    });
    expect(missing.status, missing.text).toBe(404);
    expect(missing.body.error.message).toBe('Not found: node pool "nope" not found.');
  });

  it('checks the autoscaling as setAutoscaling does', async () => {
    const res = await h.put(CLUSTER, {
      update: { desiredNodePoolAutoscaling: { enabled: true, minNodeCount: 5, maxNodeCount: 2 } },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toBe(
      'Node_pool_autoscaling.min_node_count must be less than or equal to node_pool_autoscaling.max_node_count.',
    );
    expect(await operationCount()).toBe(0);
  });

  it.each([
    ['desiredNodeVersion', { desiredNodeVersion: '-' }],
    ['desiredImageType', { desiredImageType: 'UBUNTU_CONTAINERD' }],
  ])('refuses it together with %s as not simulated (501)', async (_, other) => {
    const before = (await h.get(CLUSTER)).body;
    const res = await h.put(CLUSTER, {
      update: { ...other, desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 4 } },
    });
    expect(res.status, res.text).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect(res.body.error.status).toBe('UNIMPLEMENTED');
    expect(res.body.error.message).toMatch(
      /^A ClusterUpdate with desiredNodePoolAutoscaling and desiredNodeVersion or desiredImageType together/,
    );
    expect(await operationCount()).toBe(0);
    expect((await h.get(CLUSTER)).body).toEqual(before);
  });

  it('still refuses other ClusterUpdate fields beside it as not simulated', async () => {
    const res = await h.put(CLUSTER, {
      update: {
        desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 4 },
        desiredShieldedNodes: { enabled: false },
        desiredIntraNodeVisibilityConfig: { enabled: true },
      },
    });
    expect(res.status, res.text).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect(res.body.error.message).toMatch(
      /^ClusterUpdate fields "desiredIntraNodeVisibilityConfig", "desiredShieldedNodes": not simulated/,
    );
    expect(await operationCount()).toBe(0);
  });
});

describe('nodePools.rollback', () => {
  it.each([
    ['locations', `${POOL}:rollback`, {}],
    ['zones', `${ZONE_POOL}:rollback`, { respectPdb: true }],
  ])(
    'answers, through the %s form, with an UPGRADE_NODES operation that changes nothing when there is nothing to roll back',
    async (_, path, body) => {
      const before = (await h.get(POOL)).body;
      const cluster = (await h.get(CLUSTER)).body;
      const res = await h.post(path, body);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(pendingOp('UPGRADE_NODES'));
      const done = await finish(res.body.name);
      expect(done.error).toBeUndefined();
      expect((await h.get(POOL)).body).toEqual(before);
      expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(cluster.currentNodeCount);
      expect((await h.get(CLUSTER)).body.currentNodeVersion).toBe(cluster.currentNodeVersion);
      expect((await h.journal()).find((e) => e.method === 'POST')?.operation).toBe('nodePools.rollback');
    },
  );

  it('is refused while an upgrade of the pool runs', async () => {
    const upgrade = await h.put(POOL, { nodeVersion: V.masterPrevPatch });
    expect(upgrade.status, upgrade.text).toBe(200);
    await h.advance('1s');
    const res = await h.post(`${POOL}:rollback`, {});
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 400,
      status: 'FAILED_PRECONDITION',
      message: `Cluster is running incompatible operation ${upgrade.body.name}.`,
      errors: [{ reason: 'failedPrecondition' }],
    });
    expect(await operationCount()).toBe(1);
  });
});

describe('nodePools.completeUpgrade', () => {
  const message =
    'Node pool "np1" is not in the node pool soaking phase of a blue-green upgrade; completeUpgrade can only end a node pool soak.';

  it('is refused outside a blue-green soak with 400 FAILED_PRECONDITION', async () => {
    const res = await h.post(`${POOL}:completeUpgrade`, {});
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 400,
      status: 'FAILED_PRECONDITION',
      message,
      errors: [{ reason: 'failedPrecondition' }],
    });
    expect((await h.journal()).find((e) => e.method === 'POST')?.operation).toBe('nodePools.completeUpgrade');
  });

  it('is refused during a surge upgrade, which has no soak', async () => {
    const upgrade = await h.put(POOL, { nodeVersion: V.masterPrevPatch });
    expect(upgrade.status, upgrade.text).toBe(200);
    await h.advance('1s');
    const res = await h.post(`${POOL}:completeUpgrade`, {});
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ status: 'FAILED_PRECONDITION', message });
    // The upgrade goes on as before.
    await finish(upgrade.body.name);
    expect((await h.get(POOL)).body.version).toBe(V.masterPrevPatch);
  });
});

describe('nodePools.fetchNodePoolUpgradeInfo', () => {
  const forms = [
    ['locations', `${POOL}:fetchNodePoolUpgradeInfo`],
    ['zones', `${ZONE_POOL}:fetchNodePoolUpgradeInfo`],
  ] as const;

  it.each(forms)(
    'answers through the %s form with the auto-upgrade status of a pool already on the master version',
    async (_, path) => {
      const res = await h.get(path);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ autoUpgradeStatus: ['ACTIVE'] });
      const [entry] = await h.journal();
      expect(entry).toMatchObject({
        operation: 'nodePools.fetchNodePoolUpgradeInfo',
        method: 'GET',
        status: 200,
      });
    },
  );

  it.each([
    ['an older patch of the master minor', V.master, V.oldPatch133, { patchTargetVersion: V.master }],
    [
      'an older patch of an older minor',
      V.master,
      '1.32.8-gke.1134000',
      { patchTargetVersion: V.minor132, minorTargetVersion: V.master },
    ],
    ['the newest patch of an older minor', V.master, V.minor132, { minorTargetVersion: V.master }],
    [
      'a pool two minors behind a newer master',
      V.newerMinor,
      V.minor132,
      { minorTargetVersion: V.newerMinor },
    ],
    ['a pool on the master version', V.newerMinor, V.newerMinor, {}],
  ])('gives the target versions of %s', async (_, master, version, targets) => {
    await h.seed({
      clusters: [
        aCluster('c2').withMasterVersion(master).withPools(aNodePool('np1').withVersion(version)).build(),
      ],
    });
    for (const path of [
      `${C2_POOL}:fetchNodePoolUpgradeInfo`,
      `${ZONE}/clusters/c2/nodePools/np1:fetchNodePoolUpgradeInfo`,
    ]) {
      const res = await h.get(path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expect(res.body).toEqual({ autoUpgradeStatus: ['ACTIVE'], ...targets });
    }
  });

  it('lists an upgrade made by nodePools.update: RUNNING, then SUCCEEDED with its end time', async () => {
    await h.seed({
      clusters: [aCluster('c2').withPools(aNodePool('np1').withVersion(V.oldPatch133)).build()],
    });
    const path = `${C2_POOL}:fetchNodePoolUpgradeInfo`;
    expect((await h.get(path)).body.upgradeDetails).toBeUndefined();
    const upgrade = await h.put(C2_POOL, { nodeVersion: V.master });
    expect(upgrade.status, upgrade.text).toBe(200);
    await h.advance('1s');
    const running = (await h.get(path)).body;
    expect(running.upgradeDetails).toEqual([
      {
        state: 'RUNNING',
        startTime: T0_STAMP,
        initialVersion: V.oldPatch133,
        targetVersion: V.master,
        startType: 'MANUAL',
      },
    ]);
    await h.advance('1s');
    expect((await h.get(`${OPS}/${upgrade.body.name}`)).body.status).toBe('DONE');
    expect((await h.get(path)).body).toEqual({
      autoUpgradeStatus: ['ACTIVE'],
      upgradeDetails: [
        {
          state: 'SUCCEEDED',
          startTime: T0_STAMP,
          endTime: T2_STAMP,
          initialVersion: V.oldPatch133,
          targetVersion: V.master,
          startType: 'MANUAL',
        },
      ],
    });
  });

  it('lists no upgrade for an update that keeps the version', async () => {
    const res = await h.put(POOL, { labels: { labels: { a: '1' } } });
    await finish(res.body.name);
    expect((await h.get(`${POOL}:fetchNodePoolUpgradeInfo`)).body).toEqual({ autoUpgradeStatus: ['ACTIVE'] });
  });

  it('encodes enums as numbers for $alt=json;enum-encoding=int', async () => {
    await h.seed({
      clusters: [aCluster('c2').withPools(aNodePool('np1').withVersion(V.oldPatch133)).build()],
    });
    const upgrade = await h.put(C2_POOL, { nodeVersion: V.master });
    await finish(upgrade.body.name);
    const res = await h.get(
      `${C2_POOL}:fetchNodePoolUpgradeInfo?$alt=${encodeURIComponent('json;enum-encoding=int')}`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      autoUpgradeStatus: [1], // ACTIVE
      upgradeDetails: [
        {
          state: 2, // SUCCEEDED
          startTime: T0_STAMP,
          endTime: T2_STAMP,
          initialVersion: V.oldPatch133,
          targetVersion: V.master,
          startType: 2, // MANUAL
        },
      ],
    });
  });

  it('accepts the version query parameter and refuses other unknown ones', async () => {
    const withVersion = await h.get(`${POOL}:fetchNodePoolUpgradeInfo?version=v1beta1`);
    expect(withVersion.status, withVersion.text).toBe(200);
    expect(withVersion.body).toEqual({ autoUpgradeStatus: ['ACTIVE'] });
    const unknown = await h.get(`${ZONE_POOL}:fetchNodePoolUpgradeInfo?foo=1`);
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.body.error.status).toBe('INVALID_ARGUMENT');
    expect(unknown.body.error.message).toBe(
      `Invalid JSON payload received. Unknown name "foo": Cannot bind query parameter. Field 'foo' could not be found in request message.`,
    );
    // `version` is the verb's request field, not nodePools.get's.
    expect((await h.get(`${POOL}?version=v1beta1`)).status).toBe(400);
  });
});

/** Every method, for what they share: the pool lookup, auth, the journal name, the /v1 surface. */
const METHODS = [
  {
    name: 'nodePools.setSize',
    method: 'POST',
    loc: ':setSize',
    zone: '/setSize',
    body: { nodeCount: 2 },
    permission: 'container.clusters.update',
    status: 200,
  },
  {
    name: 'nodePools.setManagement',
    method: 'POST',
    loc: ':setManagement',
    zone: '/setManagement',
    body: { management: { autoUpgrade: true, autoRepair: true } },
    permission: 'container.clusters.update',
    status: 200,
  },
  {
    name: 'nodePools.setAutoscaling',
    method: 'POST',
    loc: ':setAutoscaling',
    zone: '/autoscaling',
    body: { autoscaling: { enabled: false } },
    permission: 'container.clusters.update',
    status: 200,
  },
  {
    name: 'nodePools.rollback',
    method: 'POST',
    loc: ':rollback',
    zone: ':rollback',
    body: {},
    permission: 'container.clusters.update',
    status: 200,
  },
  {
    // Refused outside a soak (400), after auth and the pool lookup.
    name: 'nodePools.completeUpgrade',
    method: 'POST',
    loc: ':completeUpgrade',
    body: {},
    permission: 'container.clusters.update',
    status: 400,
  },
  {
    name: 'nodePools.fetchNodePoolUpgradeInfo',
    method: 'GET',
    loc: ':fetchNodePoolUpgradeInfo',
    zone: ':fetchNodePoolUpgradeInfo',
    permission: 'container.clusters.get',
    status: 200,
  },
] as const;

const forms = METHODS.flatMap((m) => [
  { ...m, form: 'locations', root: '/v1beta1/projects/p1/locations/us-central1-a', suffix: m.loc },
  ...('zone' in m
    ? [{ ...m, form: 'zones', root: '/v1beta1/projects/p1/zones/us-central1-a', suffix: m.zone }]
    : []),
]);
type Form = (typeof forms)[number];
const pathOf = (f: Form, pool = 'np1', version = 'v1beta1') =>
  `${f.root.replace('v1beta1', version)}/clusters/c1/nodePools/${pool}${f.suffix}`;
const send = (f: Form, path: string, token?: string | null) =>
  h.request(f.method, path, 'body' in f ? { body: f.body, token } : { token });

const RPC: Record<string, string> = {
  'nodePools.setSize': 'SetNodePoolSize',
  'nodePools.setManagement': 'SetNodePoolManagement',
  'nodePools.setAutoscaling': 'SetNodePoolAutoscaling',
  'nodePools.rollback': 'RollbackNodePoolUpgrade',
  'nodePools.completeUpgrade': 'CompleteNodePoolUpgrade',
  'nodePools.fetchNodePoolUpgradeInfo': 'FetchNodePoolUpgradeInfo',
};

describe('what every node pool method shares', () => {
  const cases = forms.map((f) => [`${f.name} (${f.form})`, f] as const);

  it.each(cases)('%s answers 404 for a missing pool and 401 without credentials', async (_, f) => {
    const missing = await send(f, pathOf(f, 'nope'));
    expect(missing.status, missing.text).toBe(404);
    expect(missing.body.error).toMatchObject({
      code: 404,
      status: 'NOT_FOUND',
      message: 'Not found: node pool "nope" not found.',
    });
    const anonymous = await send(f, pathOf(f), null);
    expect(anonymous.status, anonymous.text).toBe(401);
    expect(anonymous.body.error.status).toBe('UNAUTHENTICATED');
    expect(await operationCount()).toBe(0);
    const [notFound, unauthenticated] = await h.journal();
    expect(notFound).toMatchObject({ operation: f.name, status: 404 });
    expect(unauthenticated?.status).toBe(401);
    // Also a request refused before its handler is journaled as the method called, and the ErrorInfo
    // names its RPC (the GET verb shares nodePools.get's route).
    expect(unauthenticated?.operation).toBe(f.name);
    expect(anonymous.body.error.details[0].metadata.method).toBe(
      `google.container.v1beta1.ClusterManager.${RPC[f.name]}`,
    );
  });

  it('matches fault rules by the method called, not the route a GET verb shares with nodePools.get', async () => {
    await h.addFault({
      match: { operation: 'nodePools.fetchNodePoolUpgradeInfo' },
      effect: { error: { status: 'UNAVAILABLE' } },
    });
    expect((await h.get(`${POOL}:fetchNodePoolUpgradeInfo`)).status).toBe(503);
    expect((await h.get(POOL)).status).toBe(200);
  });

  it.each(cases)('%s needs its permission on the cluster', async (_, f) => {
    await h.settings({
      auth: {
        principals: {
          viewer: { scopes: [CLOUD], permissions: ['container.clusters.get', 'container.operations.*'] },
          nobody: { scopes: [CLOUD], permissions: ['container.operations.*'] },
        },
      },
    });
    const seg = f.form === 'zones' ? 'zones' : 'locations';
    const denied = await send(f, pathOf(f), f.permission === 'container.clusters.get' ? 'nobody' : 'viewer');
    expect(denied.status, denied.text).toBe(403);
    expect(denied.body.error).toMatchObject({
      status: 'PERMISSION_DENIED',
      message: `Required "${f.permission}" permission(s) for "projects/p1/${seg}/us-central1-a/clusters/c1".`,
    });
    if (f.permission === 'container.clusters.get') {
      expect((await send(f, pathOf(f), 'viewer')).status).toBe(200);
    }
    expect(await operationCount()).toBe(0);
  });

  it.each(cases)('%s works the same under /v1/', async (_, f) => {
    const res = await send(f, pathOf(f, 'np1', 'v1'));
    expect(res.status, res.text).toBe(f.status);
    if (f.status === 200 && f.method === 'POST') {
      expect(res.body.targetLink).toBe(TARGET.replace('/v1beta1/', '/v1/'));
      expect(res.body.selfLink).toBe(
        `https://container.googleapis.com/v1/projects/${NUMBER}/zones/us-central1-a/operations/${res.body.name}`,
      );
      expect(
        (await h.get(`/v1/projects/p1/locations/us-central1-a/operations/${res.body.name}`)).status,
      ).toBe(200);
    }
    const [entry] = await h.journal();
    expect(entry).toMatchObject({ operation: f.name, method: f.method, status: f.status });
  });
});

describe('custom verbs the simulator does not know', () => {
  it('answer as before: a GET of np1:unknown is no pool, a POST to the pool path no route', async () => {
    const get = await h.get(`${POOL}:unknown`);
    expect(get.status, get.text).toBe(404);
    expect(get.body.error.message).toBe('Not found: node pool "np1:unknown" not found.');
    const post = await h.post(POOL, {});
    expect(post.status, post.text).toBe(404);
    const unknownVerb = await h.post(`${POOL}:unknown`, {});
    expect(unknownVerb.status, unknownVerb.text).toBe(404);
  });

  it('leave the pool routes as they were: get, update and the legacy /update', async () => {
    expect((await h.get(POOL)).body).toMatchObject({ name: 'np1', status: 'RUNNING' });
    expect((await h.put(POOL, { nodeVersion: '-' })).status).toBe(200);
    await h.advance('2s');
    expect((await h.post(`${ZONE_POOL}/update`, { nodeVersion: '-' })).status).toBe(200);
  });
});
