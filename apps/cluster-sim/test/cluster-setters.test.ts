import { createPublicKey } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, LOC, OPS, ZONE } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const ZONAL_CLUSTER = `${ZONE}/clusters/c1`;

/** Runs an operation to DONE and returns the cluster as clients then read it. */
async function settle(op: { name: string }) {
  await h.advance('5s');
  const done = await h.get(`${OPS}/${op.name}`);
  expect(done.body.status).toBe('DONE');
  return (await h.get(CLUSTER)).body;
}

describe('setResourceLabels', () => {
  it('replaces the labels when DONE and moves the fingerprint', async () => {
    const before = (await h.get(CLUSTER)).body;
    expect(before.labelFingerprint).toBe('a9dc16a7');
    const op = await h.post(`${CLUSTER}:setResourceLabels`, {
      resourceLabels: { team: 'a', env: 'dev' },
      labelFingerprint: before.labelFingerprint,
    });
    expect(op.status, op.text).toBe(200);
    expect(op.body.operationType).toBe('UPDATE_CLUSTER');
    expect(op.body.targetLink).toMatch(/\/v1beta1\/projects\/\d+\/zones\/us-central1-a\/clusters\/c1$/);
    // Nothing lands before DONE.
    expect((await h.get(CLUSTER)).body.resourceLabels).toBeUndefined();
    const after = await settle(op.body);
    // As the recorded UPDATE_CLUSTER of clusters.update: no progress.
    expect((await h.get(`${OPS}/${op.body.name}`)).body.progress).toBeUndefined();
    expect(after.resourceLabels).toEqual({ team: 'a', env: 'dev' });
    expect(after.labelFingerprint).toMatch(/^[0-9a-f]{8}$/);
    expect(after.labelFingerprint).not.toBe(before.labelFingerprint);
  });

  it('refuses a stale or missing fingerprint with GKE text, starting nothing', async () => {
    const res = await h.post(`${CLUSTER}:setResourceLabels`, { resourceLabels: { a: 'b' } });
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('FAILED_PRECONDITION');
    expect(res.body.error.message).toBe(
      'Labels could not be set due to fingerprint mismatch; try again with the proper fingerprint: incorrect fingerprint supplied was "", the expected one is "a9dc16a7".',
    );
    expect(res.body.error.errors[0].reason).toBe('failedPrecondition');
    expect((await h.get(OPS)).body.operations).toBeUndefined();
  });

  it('validates the request: unknown fields, types and ids that contradict the path', async () => {
    const unknown = await h.post(`${CLUSTER}:setResourceLabels`, {
      labels: {},
      labelFingerprint: 'a9dc16a7',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('Unknown name "labels"');
    const wrongType = await h.post(`${CLUSTER}:setLegacyAbac`, { enabled: 'yes' });
    expect(wrongType.status).toBe(400);
    const otherCluster = await h.post(`${CLUSTER}:setLegacyAbac`, {
      enabled: true,
      name: 'projects/p1/locations/us-central1-a/clusters/c9',
    });
    expect(otherCluster.status).toBe(400);
    expect(otherCluster.body.error.message).toContain("Invalid value for field 'name'");
    const missing = await h.post(`${LOC}/clusters/c9:setLegacyAbac`, { enabled: true });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe('Not found: projects/p1/zones/us-central1-a/clusters/c9.');
    expect((await h.get(OPS)).body.operations).toBeUndefined();
  });

  it('is reached through the legacy zonal path too', async () => {
    const op = await h.post(`${ZONAL_CLUSTER}/resourceLabels`, {
      resourceLabels: { z: '1' },
      labelFingerprint: 'a9dc16a7',
    });
    expect(op.status, op.text).toBe(200);
    expect((await settle(op.body)).resourceLabels).toEqual({ z: '1' });
  });
});

describe('the other setters', () => {
  it('setLegacyAbac turns ABAC on and off', async () => {
    const on = await h.post(`${CLUSTER}:setLegacyAbac`, { enabled: true });
    expect(on.status, on.text).toBe(200);
    expect((await settle(on.body)).legacyAbac).toEqual({ enabled: true });
    const off = await h.post(`${ZONAL_CLUSTER}/legacyAbac`, { enabled: false });
    expect((await settle(off.body)).legacyAbac).toEqual({});
  });

  it('setMaintenancePolicy replaces the policy and checks its resourceVersion', async () => {
    const current = (await h.get(CLUSTER)).body.maintenancePolicy.resourceVersion;
    const policy = { window: { dailyMaintenanceWindow: { startTime: '03:00' } }, resourceVersion: current };
    const op = await h.post(`${CLUSTER}:setMaintenancePolicy`, { maintenancePolicy: policy });
    expect(op.status, op.text).toBe(200);
    const after = await settle(op.body);
    expect(after.maintenancePolicy.window.dailyMaintenanceWindow.startTime).toBe('03:00');
    expect(after.maintenancePolicy.resourceVersion).not.toBe(current);
    const stale = await h.post(`${ZONAL_CLUSTER}:setMaintenancePolicy`, { maintenancePolicy: policy });
    expect(stale.status).toBe(400);
    expect(stale.body.error.status).toBe('FAILED_PRECONDITION');
  });

  it('setNetworkPolicy, setLogging, setMonitoring and setAddons land when DONE', async () => {
    let op = await h.post(`${CLUSTER}:setAddons`, {
      addonsConfig: { networkPolicyConfig: { disabled: false } },
    });
    expect((await settle(op.body)).addonsConfig.networkPolicyConfig).toEqual({});
    op = await h.post(`${CLUSTER}:setNetworkPolicy`, {
      networkPolicy: { enabled: true, provider: 'CALICO' },
    });
    expect((await settle(op.body)).networkPolicy).toEqual({ enabled: true, provider: 'CALICO' });
    op = await h.post(`${CLUSTER}:setLogging`, { loggingService: 'none' });
    expect((await settle(op.body)).loggingService).toBe('none');
    op = await h.post(`${ZONAL_CLUSTER}/monitoring`, { monitoringService: 'none' });
    expect((await settle(op.body)).monitoringService).toBe('none');
    const addonsBefore = (await h.get(CLUSTER)).body.addonsConfig;
    op = await h.post(`${CLUSTER}:setAddons`, { addonsConfig: { httpLoadBalancing: { disabled: true } } });
    const addons = (await settle(op.body)).addonsConfig;
    expect(addons.httpLoadBalancing).toEqual({ disabled: true });
    // The addons not sent are as they were.
    for (const [name, config] of Object.entries(addonsBefore)) expect(addons[name]).toEqual(config);
  });

  it('network policy: the addon first, the nodes recreated, the addon kept while enforced', async () => {
    // Enforcement without the control plane's addon: GKE's refusal, nothing started.
    const refused = await h.post(`${CLUSTER}:setNetworkPolicy`, {
      networkPolicy: { enabled: true, provider: 'CALICO' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'The network policy addon must be enabled before updating the nodes.',
    });
    expect((await h.get(`${LOC}/operations`)).body.operations ?? []).toEqual([]);
    await settle((await h.post(`${CLUSTER}:setAddons`, { addonsConfig: { networkPolicyConfig: {} } })).body);
    const pools = async () =>
      Object.fromEntries(
        ((await h.get(CLUSTER)).body.nodePools as { name: string; etag: string }[]).map((p) => [
          p.name,
          p.etag,
        ]),
      );
    const before = await pools();
    // Turning enforcement on recreates every node: each pool's etag moves when DONE.
    const on = await h.post(`${ZONAL_CLUSTER}:setNetworkPolicy`, { networkPolicy: { enabled: true } });
    expect(on.status, on.text).toBe(200);
    expect(await pools()).toEqual(before);
    await settle(on.body);
    const after = await pools();
    for (const name of Object.keys(before)) expect(after[name]).not.toBe(before[name]);
    // The same setting again changes no node.
    await settle((await h.post(`${CLUSTER}:setNetworkPolicy`, { networkPolicy: { enabled: true } })).body);
    expect(await pools()).toEqual(after);
    // The addon cannot go while the nodes enforce network policy, by setAddons or clusters.update.
    const message =
      'Network policy addon cannot be removed until network policy has been disabled on the nodes.';
    const viaSetter = await h.post(`${CLUSTER}:setAddons`, {
      addonsConfig: { networkPolicyConfig: { disabled: true } },
    });
    expect(viaSetter.status).toBe(400);
    expect(viaSetter.body.error.message).toBe(message);
    const viaUpdate = await h.put(CLUSTER, {
      update: { desiredAddonsConfig: { networkPolicyConfig: { disabled: true } } },
    });
    expect(viaUpdate.status).toBe(400);
    expect(viaUpdate.body.error.message).toBe(message);
    // Enforcement off first (the nodes recreated again), then the addon may go.
    await settle((await h.post(`${CLUSTER}:setNetworkPolicy`, { networkPolicy: { enabled: false } })).body);
    expect(await pools()).not.toEqual(after);
    const removed = await h.post(`${CLUSTER}:setAddons`, {
      addonsConfig: { networkPolicyConfig: { disabled: true } },
    });
    expect(removed.status, removed.text).toBe(200);
    expect((await settle(removed.body)).addonsConfig.networkPolicyConfig).toEqual({ disabled: true });
  });

  it('refuses Calico network policy on a Dataplane V2 cluster, on create and by setNetworkPolicy', async () => {
    const message =
      'Enabling NetworkPolicy for clusters with DatapathProvider=ADVANCED_DATAPATH is not allowed.';
    const created = await h.post(`${LOC}/clusters`, {
      cluster: {
        name: 'dpv2',
        initialNodeCount: 1,
        networkConfig: { datapathProvider: 'ADVANCED_DATAPATH' },
        networkPolicy: { enabled: true },
      },
    });
    expect(created.status).toBe(400);
    expect(created.body.error.message).toBe(message);
    const ok = await h.post(`${LOC}/clusters`, {
      cluster: {
        name: 'dpv2',
        initialNodeCount: 1,
        networkConfig: { datapathProvider: 'ADVANCED_DATAPATH' },
      },
    });
    expect(ok.status, ok.text).toBe(200);
    await h.advance('5m');
    const set = await h.post(`${LOC}/clusters/dpv2:setNetworkPolicy`, { networkPolicy: { enabled: true } });
    expect(set.status).toBe(400);
    expect(set.body.error.message).toBe(message);
  });

  it('network policy on create: the addon comes with it unless refused; seeds keep the same rules', async () => {
    const created = await h.post(`${LOC}/clusters`, {
      cluster: { name: 'np-on', initialNodeCount: 1, networkPolicy: { enabled: true, provider: 'CALICO' } },
    });
    expect(created.status, created.text).toBe(200);
    await h.advance('5m');
    const cluster = (await h.get(`${LOC}/clusters/np-on`)).body;
    expect(cluster.networkPolicy).toEqual({ enabled: true, provider: 'CALICO' });
    expect(cluster.addonsConfig.networkPolicyConfig).toEqual({});
    // A client sending back the addons it read (Terraform re-applying) removes nothing: accepted.
    const again = await h.put(`${LOC}/clusters/np-on`, {
      update: { desiredAddonsConfig: cluster.addonsConfig },
    });
    expect(again.status, again.text).toBe(200);
    const contradictory = await h.post(`${LOC}/clusters`, {
      cluster: {
        name: 'np-off',
        initialNodeCount: 1,
        networkPolicy: { enabled: true },
        addonsConfig: { networkPolicyConfig: { disabled: true } },
      },
    });
    expect(contradictory.status).toBe(400);
    expect(contradictory.body.error.message).toBe(
      'The network policy addon must be enabled before updating the nodes.',
    );
    const seeded = await h.request('POST', '/_sim/seed', {
      token: null,
      body: {
        clusters: [
          {
            ...aCluster('dp').build(),
            networkConfig: { datapathProvider: 'ADVANCED_DATAPATH' },
            networkPolicy: { enabled: true },
          },
        ],
      },
    });
    expect(seeded.status).toBe(400);
    expect(seeded.body.error.message).toContain(
      'clusters[0].networkPolicy: Enabling NetworkPolicy for clusters with DatapathProvider=ADVANCED_DATAPATH is not allowed.',
    );
    const badWindow = await h.request('POST', '/_sim/seed', {
      token: null,
      body: {
        clusters: [
          {
            ...aCluster('mw').build(),
            maintenancePolicy: {
              window: {
                recurringWindow: {
                  window: { startTime: '2026-03-07T01:00:00Z', endTime: '2026-03-07T05:00:00Z' },
                  recurrence: 'FREQ=WEEKLY;BYDAY=SA,SU',
                },
              },
            },
          },
        ],
      },
    });
    expect(badWindow.status).toBe(400);
    expect(badWindow.body.error.message).toContain(
      'clusters[0].maintenancePolicy: maintenance policy would go longer than 32d without 48h maintenance availability',
    );
  });

  it('refuses a logging service GKE no longer offers', async () => {
    const res = await h.post(`${CLUSTER}:setLogging`, { loggingService: 'logging.googleapis.com' });
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
  });

  it('holds the cluster: a second setter while one runs is the busy-cluster error', async () => {
    const first = await h.post(`${CLUSTER}:setLegacyAbac`, { enabled: true });
    expect(first.status).toBe(200);
    const second = await h.post(`${CLUSTER}:setLogging`, { loggingService: 'none' });
    expect(second.status).toBe(400);
    expect(second.body.error.message).toBe(`Cluster is running incompatible operation ${first.body.name}.`);
    const pool = await h.post(`${CLUSTER}/nodePools/np1:setSize`, { nodeCount: 1 });
    expect(pool.status).toBe(400);
  });

  it('a failed setter changes nothing (fault rules match it by name)', async () => {
    await h.addFault({
      match: { operation: 'clusters.setLegacyAbac' },
      effect: { operationFails: { status: 'INTERNAL', message: 'boom' } },
    });
    const op = await h.post(`${CLUSTER}:setLegacyAbac`, { enabled: true });
    await h.advance('5s');
    const done = (await h.get(`${OPS}/${op.body.name}`)).body;
    expect(done.error).toEqual({ code: 13, message: 'boom' });
    expect((await h.get(CLUSTER)).body.legacyAbac).toEqual({});
  });

  it('setLocations and updateMaster are clusters.update with desiredLocations / desiredMasterVersion', async () => {
    const master = await h.post(`${ZONAL_CLUSTER}/master`, { masterVersion: '1.34' });
    expect(master.status, master.text).toBe(200);
    expect(master.body.operationType).toBe('UPGRADE_MASTER');
    expect((await settle(master.body)).currentMasterVersion).toMatch(/^1\.34\./);
    const locations = await h.post(`${CLUSTER}:setLocations`, {
      locations: ['us-central1-a', 'us-central1-b'],
    });
    expect(locations.status, locations.text).toBe(200);
    expect((await settle(locations.body)).locations).toEqual(['us-central1-a', 'us-central1-b']);
  });
});

describe('getJwks, the OIDC document and locations.list', () => {
  it('answers a key set that is stable and parses as an RSA key', async () => {
    const a = await h.get(`${CLUSTER}/jwks`);
    expect(a.status, a.text).toBe(200);
    expect(a.body.keys).toHaveLength(1);
    expect((await h.get(`${CLUSTER}/jwks`)).body).toEqual(a.body);
    const key = createPublicKey({ key: a.body.keys[0], format: 'jwk' });
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const oidc = await h.get(`${CLUSTER}/.well-known/openid-configuration`);
    expect(oidc.body.jwks_uri).toBe(
      'https://container.googleapis.com/v1/projects/p1/locations/us-central1-a/clusters/c1/jwks',
    );
  });

  it('lists regions and zones (v1beta1 only)', async () => {
    const res = await h.get('/v1beta1/projects/p1/locations');
    expect(res.status, res.text).toBe(200);
    expect(res.body.locations).toContainEqual({
      type: 'ZONE',
      name: 'projects/p1/locations/us-central1-a',
    });
    expect(res.body.locations).toContainEqual({ type: 'REGION', name: 'projects/p1/locations/us-central1' });
    expect((await h.get('/v1/projects/p1/locations')).status).toBe(404);
  });
});
