import { v1 as gapicV1 } from '@google-cloud/container';
import { OAuth2Client } from 'google-auth-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startClusterSim } from '../src/index';
import { aCluster, aNodePool, V } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, OPS, POOL, ZONE } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const ZONAL_CLUSTER = `${ZONE}/clusters/c1`;

/** Runs an operation to DONE and returns it as clients then read it. */
async function settle(op: { name: string }) {
  await h.advance('5s');
  const done = (await h.get(`${OPS}/${op.name}`)).body;
  expect(done.status).toBe('DONE');
  return done;
}

/** Recreates a pool's nodes the way GKE's documentation says to by hand: an update to its own version. */
async function recreate(pool = POOL) {
  const op = await h.put(pool, { nodeVersion: V.master });
  expect(op.status, op.text).toBe(200);
  expect(op.body.operationType).toBe('UPGRADE_NODES');
  await settle(op.body);
}

describe('IP rotation', () => {
  it('walks start → nodes recreated → complete, the cluster RECONCILING only while each operation runs', async () => {
    const before = (await h.get(CLUSTER)).body;
    const start = await h.post(`${CLUSTER}:startIpRotation`, {});
    expect(start.status, start.text).toBe(200);
    expect(start.body.operationType).toBe('UPDATE_CLUSTER');
    expect(start.body.targetLink).toMatch(/\/v1beta1\/projects\/\d+\/zones\/us-central1-a\/clusters\/c1$/);
    expect(start.body.progress).toBeUndefined();
    const during = (await h.get(CLUSTER)).body;
    expect(during.status).toBe('RECONCILING');
    // The new address is not served before the operation is DONE.
    expect(during.endpoint).toBe(before.endpoint);

    expect((await settle(start.body)).error).toBeUndefined();
    const rotating = (await h.get(CLUSTER)).body;
    expect(rotating.status).toBe('RUNNING');
    expect(rotating.endpoint).toMatch(/^34\.\d+\.\d+\.\d+$/);
    expect(rotating.endpoint).not.toBe(before.endpoint);
    expect(rotating.privateClusterConfig.publicEndpoint).toBe(rotating.endpoint);
    expect(rotating.controlPlaneEndpointsConfig.ipEndpointsConfig.publicEndpoint).toBe(rotating.endpoint);
    // IP rotation issues a new cluster CA; the service account signing key stays (no credential rotation).
    expect(rotating.masterAuth.clusterCaCertificate).not.toBe(before.masterAuth.clusterCaCertificate);
    expect(Buffer.from(rotating.masterAuth.clusterCaCertificate, 'base64').toString()).toMatch(
      /^-----BEGIN CERTIFICATE-----\n/,
    );
    expect((await h.get(`${CLUSTER}/jwks`)).body.keys).toHaveLength(1);

    // The nodes still point at the old address: completing is refused, nothing starts.
    const early = await h.post(`${CLUSTER}:completeIpRotation`, {});
    expect(early.status).toBe(400);
    expect(early.body.error.status).toBe('FAILED_PRECONDITION');
    expect(early.body.error.message).toBe('Node pool "np1" requires recreation.');
    await recreate();

    const complete = await h.post(`${ZONAL_CLUSTER}:completeIpRotation`, {});
    expect(complete.status, complete.text).toBe(200);
    expect(complete.body.operationType).toBe('UPDATE_CLUSTER');
    expect((await h.get(CLUSTER)).body.status).toBe('RECONCILING');
    await settle(complete.body);
    const after = (await h.get(CLUSTER)).body;
    expect(after.status).toBe('RUNNING');
    expect(after.endpoint).toBe(rotating.endpoint);
    expect(after.masterAuth.clusterCaCertificate).toBe(rotating.masterAuth.clusterCaCertificate);
    // Nothing is left to complete.
    const again = await h.post(`${CLUSTER}:completeIpRotation`, {});
    expect(again.status).toBe(400);
    expect(again.body.error.message).toBe(
      'Cluster "c1" has no IP rotation in progress; start one with startIpRotation first.',
    );
  });

  it('a credential rotation also issues a new signing key, listed beside the old one until completion', async () => {
    const oldKey = (await h.get(`${CLUSTER}/jwks`)).body.keys[0];
    const start = await h.post(`${CLUSTER}:startIpRotation`, { rotateCredentials: true });
    expect(start.status, start.text).toBe(200);
    await settle(start.body);
    const keys = (await h.get(`${CLUSTER}/jwks`)).body.keys;
    expect(keys).toHaveLength(2);
    expect(keys[0].kid).not.toBe(oldKey.kid);
    expect(keys[1]).toEqual(oldKey);
    await recreate();
    await settle((await h.post(`${CLUSTER}:completeIpRotation`, {})).body);
    expect((await h.get(`${CLUSTER}/jwks`)).body.keys).toEqual([keys[0]]);
  });

  it('refuses a second start, and any operation while one runs (the one-operation rule)', async () => {
    const start = await h.post(`${CLUSTER}:startIpRotation`, {});
    const busy = await h.post(`${CLUSTER}:startIpRotation`, {});
    expect(busy.status).toBe(400);
    expect(busy.body.error.message).toBe(`Cluster is running incompatible operation ${start.body.name}.`);
    const pool = await h.post(`${POOL}:setSize`, { nodeCount: 1 });
    expect(pool.status).toBe(400);
    await settle(start.body);
    const twice = await h.post(`${CLUSTER}:startIpRotation`, { rotateCredentials: true });
    expect(twice.status).toBe(400);
    expect(twice.body.error.status).toBe('FAILED_PRECONDITION');
    expect(twice.body.error.message).toContain('is already rotating its control plane IP address');
  });

  it('counts only the pools that existed at the start; a pool deleted meanwhile is not waited for', async () => {
    await h.seed({
      clusters: [aCluster('c2').withPools(aNodePool('a'), aNodePool('b')).build()],
    });
    const c2 = CLUSTER.replace(/c1$/, 'c2');
    await settle((await h.post(`${c2}:startIpRotation`, {})).body);
    const created = await h.post(`${c2}/nodePools`, { nodePool: { name: 'late', initialNodeCount: 1 } });
    expect(created.status, created.text).toBe(200);
    await settle(created.body);
    await settle((await h.del(`${c2}/nodePools/b`)).body);
    const refused = await h.post(`${c2}:completeIpRotation`, {});
    expect(refused.body.error.message).toContain('Node pool "a"');
    await recreate(`${c2}/nodePools/a`);
    expect((await h.post(`${c2}:completeIpRotation`, {})).status).toBe(200);
  });

  it('a failed start changes nothing (fault rules match it by name) and can be started again', async () => {
    const before = (await h.get(CLUSTER)).body;
    await h.addFault({
      match: { operation: 'clusters.startIpRotation' },
      trigger: { times: 1 },
      effect: { operationFails: { status: 'INTERNAL', message: 'boom' } },
    });
    const failed = await settle((await h.post(`${CLUSTER}:startIpRotation`, {})).body);
    expect(failed.error).toEqual({ code: 13, message: 'boom' });
    const after = (await h.get(CLUSTER)).body;
    expect(after.endpoint).toBe(before.endpoint);
    expect(after.masterAuth).toEqual(before.masterAuth);
    expect((await h.post(`${CLUSTER}:startIpRotation`, {})).status).toBe(200);
  });

  it('validates the request like the other setters', async () => {
    const unknown = await h.post(`${CLUSTER}:startIpRotation`, { rotate: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('Unknown name "rotate"');
    const wrongType = await h.post(`${CLUSTER}:startIpRotation`, { rotateCredentials: 'yes' });
    expect(wrongType.status).toBe(400);
    const missing = await h.post(`${CLUSTER.replace(/c1$/, 'c9')}:startIpRotation`, {});
    expect(missing.status).toBe(404);
    expect((await h.get(OPS)).body.operations).toBeUndefined();
  });

  it('keeps the rotation in a state snapshot', async () => {
    await settle((await h.post(`${CLUSTER}:startIpRotation`, { rotateCredentials: true })).body);
    const snapshot = (await h.get('/_sim/state', { token: null })).body;
    const put = await h.request('PUT', '/_sim/state', { body: snapshot, token: null });
    expect(put.status, put.text).toBe(200);
    expect((await h.get(`${CLUSTER}/jwks`)).body.keys).toHaveLength(2);
    expect((await h.post(`${CLUSTER}:completeIpRotation`, {})).body.error.message).toContain('"np1"');
  });
});

describe('setMasterAuth', () => {
  const REMOVED =
    'Basic authentication was removed for GKE cluster versions >= 1.19. Instructions for choosing an alternative authentication method can be found at: https://cloud.google.com/kubernetes-engine/docs/how-to/api-server-authentication.';

  it('refuses every action that would turn basic authentication on', async () => {
    for (const body of [
      { action: 'SET_PASSWORD', update: { password: 'secret' } },
      { action: 'GENERATE_PASSWORD', update: {} },
      { action: 'SET_USERNAME', update: { username: 'admin' } },
    ]) {
      const res = await h.post(`${CLUSTER}:setMasterAuth`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.status).toBe('INVALID_ARGUMENT');
      expect(res.body.error.message).toBe(REMOVED);
    }
    const noAction = await h.post(`${CLUSTER}:setMasterAuth`, { update: {} });
    expect(noAction.status).toBe(400);
    expect((await h.get(OPS)).body.operations).toBeUndefined();
  });

  it('disables basic authentication (an empty username) with an UPDATE_CLUSTER operation', async () => {
    const before = (await h.get(CLUSTER)).body.masterAuth;
    const op = await h.post(`${ZONAL_CLUSTER}:setMasterAuth`, {
      action: 'SET_USERNAME',
      update: { username: '' },
    });
    expect(op.status, op.text).toBe(200);
    expect(op.body.operationType).toBe('UPDATE_CLUSTER');
    expect((await h.get(CLUSTER)).body.status).toBe('RECONCILING');
    await settle(op.body);
    const after = (await h.get(CLUSTER)).body.masterAuth;
    expect(after).toEqual(before);
    expect(after.username).toBeUndefined();
  });

  it('refuses a client certificate change it does not simulate', async () => {
    const res = await h.post(`${CLUSTER}:setMasterAuth`, {
      action: 'SET_USERNAME',
      update: { clientCertificateConfig: { issueClientCertificate: true } },
    });
    expect(res.status).toBe(501);
  });
});

describe('fetchClusterUpgradeInfo', () => {
  it('answers the targets, the auto-upgrade status and the master upgrades, in both forms', async () => {
    const info = await h.get(`${CLUSTER}:fetchClusterUpgradeInfo`);
    expect(info.status, info.text).toBe(200);
    expect(info.body.autoUpgradeStatus).toEqual(['ACTIVE']);
    expect(info.body.minorTargetVersion).toMatch(/^1\.34\./);
    expect(info.body.upgradeDetails).toBeUndefined();
    const op = await h.put(CLUSTER, { update: { desiredMasterVersion: '1.34' } });
    expect(op.status, op.text).toBe(200);
    const running = (await h.get(`${ZONAL_CLUSTER}:fetchClusterUpgradeInfo?version=1.34`)).body;
    expect(running.upgradeDetails).toEqual([
      {
        state: 'RUNNING',
        startTime: expect.any(String),
        initialVersion: V.master,
        targetVersion: expect.stringMatching(/^1\.34\./),
        startType: 'MANUAL',
      },
    ]);
    await settle(op.body);
    const done = (await h.get(`${CLUSTER}:fetchClusterUpgradeInfo`)).body;
    expect(done.upgradeDetails[0].state).toBe('SUCCEEDED');
    expect(done.upgradeDetails[0].endTime).toEqual(expect.any(String));
  });

  it('shows an auto-upgrade paused by a maintenance exclusion in force', async () => {
    const now = Date.parse((await h.get('/_sim/clock', { token: null })).body.now);
    const op = await h.post(`${CLUSTER}:setMaintenancePolicy`, {
      maintenancePolicy: {
        window: {
          dailyMaintenanceWindow: { startTime: '03:00' },
          maintenanceExclusions: {
            freeze: {
              startTime: new Date(now).toISOString(),
              endTime: new Date(now + 7 * 86_400_000).toISOString(),
              maintenanceExclusionOptions: { scope: 'NO_MINOR_UPGRADES' },
            },
          },
        },
      },
    });
    expect(op.status, op.text).toBe(200);
    await settle(op.body);
    const info = (await h.get(`${CLUSTER}:fetchClusterUpgradeInfo`)).body;
    expect(info.autoUpgradeStatus).toEqual(['MINOR_UPGRADE_PAUSED']);
    expect(info.pausedReason).toEqual(['MAINTENANCE_EXCLUSION_NO_MINOR_UPGRADES']);
    await h.advance('8d');
    expect((await h.get(`${CLUSTER}:fetchClusterUpgradeInfo`)).body.autoUpgradeStatus).toEqual(['ACTIVE']);
  });
});

describe('aggregated.usableSubnetworks.list', () => {
  it("lists the subnetworks of the project's clusters with the secondary ranges they name", async () => {
    await h.seed({
      clusters: [
        {
          ...aCluster('c2').inLocation('europe-west1').build(),
          network: 'vpc1',
          subnetwork: 'sub1',
          ipAllocationPolicy: { clusterSecondaryRangeName: 'pods', servicesSecondaryRangeName: 'services' },
        },
      ],
    });
    const res = await h.get('/v1/projects/p1/aggregated/usableSubnetworks');
    expect(res.status, res.text).toBe(200);
    const c1 = (await h.get(CLUSTER)).body;
    expect(res.body.subnetworks).toEqual([
      {
        subnetwork: 'projects/p1/regions/europe-west1/subnetworks/sub1',
        network: 'projects/p1/global/networks/vpc1',
        secondaryIpRanges: [
          { rangeName: 'pods', ipCidrRange: expect.any(String), status: 'IN_USE_SHAREABLE_POD' },
          { rangeName: 'services', ipCidrRange: expect.any(String), status: 'IN_USE_SERVICE' },
        ],
      },
      {
        subnetwork: 'projects/p1/regions/us-central1/subnetworks/default',
        network: 'projects/p1/global/networks/default',
        secondaryIpRanges: [
          {
            rangeName: c1.ipAllocationPolicy.clusterSecondaryRangeName,
            ipCidrRange: c1.ipAllocationPolicy.clusterIpv4CidrBlock,
            status: 'IN_USE_MANAGED_POD',
          },
        ],
      },
    ]);
    const page = await h.get('/v1beta1/projects/p1/aggregated/usableSubnetworks?pageSize=1');
    expect(page.body.subnetworks).toHaveLength(1);
    const next = await h.get(
      `/v1beta1/projects/p1/aggregated/usableSubnetworks?pageSize=1&pageToken=${page.body.nextPageToken}`,
    );
    expect(next.body.subnetworks[0].subnetwork).toContain('us-central1');
    expect(next.body.nextPageToken).toBeUndefined();
    const filtered = await h.get(
      '/v1/projects/p1/aggregated/usableSubnetworks?filter=networkProjectId%3Dother',
    );
    expect(filtered.body).toEqual({});
    const bad = await h.get('/v1/projects/p1/aggregated/usableSubnetworks?filter=name%3Dx');
    expect(bad.status).toBe(400);
  });
});

describe('through the GAPIC client (REST fallback, numeric enums)', () => {
  it('rotates credentials: start, recreate, complete', async () => {
    process.env.METADATA_SERVER_DETECTION = 'none';
    const sim = await startClusterSim({ seed: 7, clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' } });
    try {
      const seeded = await sim.app.request('/_sim/seed', {
        method: 'POST',
        body: JSON.stringify({ clusters: [aCluster().build()] }),
      });
      expect(seeded.status).toBe(201);
      const authClient = new OAuth2Client();
      authClient.setCredentials({ access_token: 'fake-token' });
      const gke = new gapicV1.ClusterManagerClient({
        fallback: true,
        apiEndpoint: '127.0.0.1',
        port: sim.port,
        protocol: 'http',
        authClient,
      } as unknown as ConstructorParameters<typeof gapicV1.ClusterManagerClient>[0]);
      const name = 'projects/p1/locations/us-central1-a/clusters/c1';
      const advance = () =>
        sim.app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by: '5s' }) });
      const [start] = await gke.startIPRotation({ name, rotateCredentials: true });
      expect(start.operationType).toBe('UPDATE_CLUSTER');
      await advance();
      const [cluster] = await gke.getCluster({ name });
      expect(cluster.status).toBe('RUNNING');
      await expect(gke.completeIPRotation({ name })).rejects.toThrow(
        /Node pool \\"np1\\" requires recreation\./,
      );
      await gke.updateNodePool({ name: `${name}/nodePools/np1`, nodeVersion: V.master, imageType: '' });
      await advance();
      const [complete] = await gke.completeIPRotation({ name });
      expect(complete.operationType).toBe('UPDATE_CLUSTER');
      await advance();
      const [done] = await gke.getOperation({
        name: `projects/p1/locations/us-central1-a/operations/${complete.name}`,
      });
      expect(done.status).toBe('DONE');
      const [info] = await gke.fetchClusterUpgradeInfo({ name });
      expect(info.autoUpgradeStatus).toEqual(['ACTIVE']);
      await gke.close();
    } finally {
      await sim.close();
    }
  });
});
