import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { V } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, LOC, OPS, POOL, ZONE } from './support/harness';

const NUMBER = '281707762362';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

describe('nodePools.create and delete', () => {
  it('creates a pool with a CREATE_NODE_POOL operation and GKE defaults, PROVISIONING until DONE', async () => {
    const res = await h.post(`${CLUSTER}/nodePools`, { nodePool: { name: 'np2', initialNodeCount: 2 } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      operationType: 'CREATE_NODE_POOL',
      status: 'PENDING',
      targetLink: `https://container.googleapis.com/v1beta1/projects/${NUMBER}/zones/us-central1-a/clusters/c1/nodePools/np2`,
    });
    expect((await h.get(`${CLUSTER}/nodePools/np2`)).body.status).toBe('PROVISIONING');
    await h.advance('2s');
    const pool = (await h.get(`${CLUSTER}/nodePools/np2`)).body;
    expect(pool).toMatchObject({
      name: 'np2',
      status: 'RUNNING',
      version: V.master,
      initialNodeCount: 2,
      locations: ['us-central1-a'],
      management: { autoUpgrade: true, autoRepair: true },
      maxPodsConstraint: { maxPodsPerNode: '110' },
      podIpv4CidrSize: 24,
      upgradeSettings: { maxSurge: 1, strategy: 'SURGE' },
      config: {
        machineType: 'e2-medium',
        diskSizeGb: 100,
        diskType: 'pd-balanced',
        imageType: 'COS_CONTAINERD',
        serviceAccount: 'default',
        metadata: { 'disable-legacy-endpoints': 'true' },
        resourceLabels: { 'goog-gke-node-pool-provisioning-model': 'on-demand' },
        effectiveCgroupMode: 'EFFECTIVE_CGROUP_MODE_V2',
        kubeletConfig: { insecureKubeletReadonlyPortEnabled: false, maxParallelImagePulls: 2 },
      },
    });
    expect(pool.config.oauthScopes).toHaveLength(6);
  });

  it('gives n4 machine types hyperdisk-balanced disks', async () => {
    await h.post(`${CLUSTER}/nodePools`, {
      nodePool: { name: 'n4', config: { machineType: 'n4-standard-2' } },
    });
    expect((await h.get(`${CLUSTER}/nodePools/n4`)).body.config.diskType).toBe('hyperdisk-balanced');
  });

  it('answers 409 ALREADY_EXISTS with the real text for an existing pool', async () => {
    const res = await h.post(`${CLUSTER}/nodePools`, { nodePool: { name: 'np1' } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      status: 'ALREADY_EXISTS',
      message: 'Already exists: projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1.',
      errors: [{ reason: 'alreadyExists' }],
    });
  });

  it('creates through the legacy zonal form with numeric enums', async () => {
    const res = await h.post(`${ZONE}/clusters/c1/nodePools`, {
      nodePool: {
        name: 'np3',
        upgradeSettings: { strategy: 2 },
        config: { taints: [{ key: 'a', value: 'b', effect: 3 }] },
      },
    });
    expect(res.status, res.text).toBe(200);
    await h.advance('2s');
    const pool = (await h.get(`${CLUSTER}/nodePools/np3`)).body;
    expect(pool.upgradeSettings.strategy).toBe('BLUE_GREEN');
    expect(pool.config.taints[0].effect).toBe('NO_EXECUTE');
  });

  it('deletes a pool with a DELETE_NODE_POOL operation: STOPPING, then gone', async () => {
    const res = await h.del(POOL);
    expect(res.status, res.text).toBe(200);
    expect(res.body.operationType).toBe('DELETE_NODE_POOL');
    expect((await h.get(POOL)).body.status).toBe('STOPPING');
    await h.advance('2s');
    expect((await h.get(POOL)).status).toBe(404);
    expect((await h.get(`${CLUSTER}/nodePools`)).body).toEqual({});
  });
});

describe('clusters.create and delete', () => {
  it('creates a cluster with a default-pool and a CREATE_CLUSTER operation', async () => {
    const res = await h.post(`/v1beta1/projects/p1/locations/europe-west1/clusters`, {
      cluster: { name: 'c2', initialNodeCount: 1, initialClusterVersion: '1.32' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      operationType: 'CREATE_CLUSTER',
      targetLink: `https://container.googleapis.com/v1beta1/projects/${NUMBER}/locations/europe-west1/clusters/c2`,
    });
    const path = '/v1beta1/projects/p1/locations/europe-west1/clusters/c2';
    expect((await h.get(path)).body.status).toBe('PROVISIONING');
    await h.advance('2s');
    const cluster = (await h.get(path)).body;
    expect(cluster).toMatchObject({
      name: 'c2',
      status: 'RUNNING',
      location: 'europe-west1',
      locations: ['europe-west1-a', 'europe-west1-b', 'europe-west1-c'],
      currentMasterVersion: V.minor132,
      currentNodeVersion: V.minor132,
      selfLink: 'https://container.googleapis.com/v1beta1/projects/p1/locations/europe-west1/clusters/c2',
    });
    expect(cluster.nodePools.map((p: { name: string }) => p.name)).toEqual(['default-pool']);
    expect(cluster.nodePools[0].locations).toHaveLength(3);
    expect((await h.get('/v1beta1/projects/p1/locations/-/clusters')).body.clusters).toHaveLength(2);
  });

  it('answers 409 ALREADY_EXISTS for an existing cluster', async () => {
    const res = await h.post(`${LOC}/clusters`, { cluster: { name: 'c1', initialNodeCount: 1 } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe('Already exists: projects/p1/locations/us-central1-a/clusters/c1.');
  });

  it('rejects an unsupported master version', async () => {
    const res = await h.post(`${LOC}/clusters`, {
      cluster: { name: 'c3', initialNodeCount: 1, initialClusterVersion: '1.99' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Master version "1.99" is unsupported.');
  });

  it('deletes a cluster with a DELETE_CLUSTER operation', async () => {
    const res = await h.del(CLUSTER);
    expect(res.body.operationType).toBe('DELETE_CLUSTER');
    expect((await h.get(CLUSTER)).body.status).toBe('STOPPING');
    await h.advance('2s');
    expect((await h.get(CLUSTER)).status).toBe(404);
    expect((await h.get(`${OPS}/${res.body.name}`)).body.status).toBe('DONE');
  });
});

describe('clusters.update', () => {
  it('upgrades the master with an UPGRADE_MASTER operation that holds the whole cluster', async () => {
    const res = await h.put(CLUSTER, { update: { desiredMasterVersion: '1.34' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      operationType: 'UPGRADE_MASTER',
      targetLink: `https://container.googleapis.com/v1beta1/projects/${NUMBER}/zones/us-central1-a/clusters/c1`,
    });
    const busy = await h.put(POOL, { nodeVersion: '-' });
    expect(busy.status).toBe(400);
    expect(busy.body.error.message).toBe(`Cluster is running incompatible operation ${res.body.name}.`);
    await h.advance('2s');
    expect((await h.get(CLUSTER)).body.currentMasterVersion).toBe(V.newerMinor);
    const now = await h.put(POOL, { nodeVersion: '1.34' });
    expect(now.status, now.text).toBe(200);
  });

  it('upgrades the only pool with desiredNodeVersion, and asks for a pool id when there are several', async () => {
    const res = await h.put(`${ZONE}/clusters/c1`, { update: { desiredNodeVersion: '1.33.4' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.operationType).toBe('UPGRADE_NODES');
    await h.advance('2s');
    expect((await h.get(POOL)).body.version).toBe(V.masterPrevPatch);
    await h.post(`${CLUSTER}/nodePools`, { nodePool: { name: 'np2' } });
    await h.advance('2s');
    const ambiguous = await h.put(CLUSTER, { update: { desiredNodeVersion: '-' } });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error.message).toBe(
      'Node pool id must be specified if cluster has more than one node pool..',
    );
  });

  it('answers an empty update with "Must specify a field to update."', async () => {
    const res = await h.put(CLUSTER, { update: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 400,
      message: 'Must specify a field to update.',
      errors: [{ message: 'Must specify a field to update.', domain: 'global', reason: 'badRequest' }],
      status: 'INVALID_ARGUMENT',
    });
  });

  /** The 501 the simulator answers for what GKE would apply and it does not simulate. */
  const notSimulated = (what: string) => ({
    code: 501,
    message: `${what}: not simulated by cluster-sim, so the request is refused rather than accepted and ignored (see cluster-sim's FIDELITY.md).`,
    errors: [
      {
        message: `${what}: not simulated by cluster-sim, so the request is refused rather than accepted and ignored (see cluster-sim's FIDELITY.md).`,
        domain: 'global',
        reason: 'notImplemented',
      },
    ],
    status: 'UNIMPLEMENTED',
    details: [expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.RequestInfo' })],
  });

  it('refuses ClusterUpdate fields it does not simulate with 501 and X-Sim-Reason, starting nothing', async () => {
    const before = (await h.get(CLUSTER)).body;
    const ops = (await h.get(OPS)).body.operations?.length ?? 0;
    const res = await h.put(CLUSTER, {
      update: {
        desiredShieldedNodes: { enabled: false },
        desiredIntraNodeVisibilityConfig: { enabled: true },
      },
    });
    expect(res.status, res.text).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect(res.body.error).toEqual(
      notSimulated('ClusterUpdate fields "desiredIntraNodeVisibilityConfig", "desiredShieldedNodes"'),
    );
    // Nothing was started and nothing changed: no UPDATE_CLUSTER that ends DONE having done nothing.
    expect((await h.get(OPS)).body.operations?.length ?? 0).toBe(ops);
    expect((await h.get(CLUSTER)).body).toEqual(before);
    // A field it does simulate beside one it does not: refused whole, not applied in part.
    const mixed = await h.put(CLUSTER, {
      update: { desiredNodeVersion: '-', desiredAddonsConfig: { httpLoadBalancing: { disabled: true } } },
    });
    expect(mixed.status, mixed.text).toBe(501);
    expect(mixed.body.error.message).toMatch(
      /^A ClusterUpdate with "desiredAddonsConfig", "desiredNodeVersion" together: not simulated/,
    );
    expect((await h.get(OPS)).body.operations?.length ?? 0).toBe(ops);
  });

  it('refuses a master and a node version in one ClusterUpdate instead of applying only the first', async () => {
    const res = await h.put(CLUSTER, { update: { desiredMasterVersion: '-', desiredNodeVersion: '-' } });
    expect(res.status, res.text).toBe(501);
    expect(res.body.error.message).toMatch(
      /^A ClusterUpdate with desiredMasterVersion and a node pool field together: not simulated/,
    );
  });

  it('answers desiredNodePoolId alone, which names a pool but changes nothing, as an empty update', async () => {
    const res = await h.put(CLUSTER, { update: { desiredNodePoolId: 'default-pool' } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toBe('Must specify a field to update.');
  });
});
