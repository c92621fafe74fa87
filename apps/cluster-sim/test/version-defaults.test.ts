import { afterEach, describe, expect, it } from 'vitest';
import { type AnyJson, createHarness, type Harness } from './support/harness';

/**
 * The defaults that depend on the GKE version a cluster or pool is created at (src/domain/version-defaults.ts),
 * against the real recordings replayed in replay.test.ts: gcloud at 1.33.4, Config Connector at 1.34.9 and
 * 1.35.5. Two harnesses with the same seed and the same requests answer the same ids, addresses and names,
 * so what differs between them is what the version changes.
 */

const LOC = '/v1beta1/projects/p1/locations/us-central1-a';
const V133 = '1.33.4-gke.1036000';
const V134 = '1.34.9-gke.1131000';
const V135 = '1.35.5-gke.1241004';

const harnesses: Harness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.close();
});

async function world(): Promise<Harness> {
  const h = createHarness();
  harnesses.push(h);
  const versions = [V135, V134, V133];
  const res = await h.request('PUT', '/_sim/server-config', {
    body: { defaultClusterVersion: V133, validMasterVersions: versions, validNodeVersions: versions },
    token: null,
  });
  expect(res.status, res.text).toBe(200);
  return h;
}

async function createCluster(h: Harness, cluster: AnyJson): Promise<AnyJson> {
  const res = await h.post(`${LOC}/clusters`, { cluster });
  expect(res.status, res.text).toBe(200);
  await h.advance('30m');
  const got = await h.get(`${LOC}/clusters/${cluster.name}`);
  expect(got.status, got.text).toBe(200);
  return got.body;
}

function leaves(value: unknown, path = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) out.set(path, value);
    for (const [k, v] of entries)
      leaves(v, Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k, out);
  } else {
    out.set(path, value);
  }
  return out;
}

/** The paths whose presence or value differs, autoprovisioning's leaves counted as one. */
function differingPaths(a: unknown, b: unknown): string[] {
  const la = leaves(a);
  const lb = leaves(b);
  const paths = new Set<string>();
  for (const path of new Set([...la.keys(), ...lb.keys()])) {
    if (JSON.stringify(la.get(path)) !== JSON.stringify(lb.get(path)))
      paths.add(path.replace(/^(autoscaling\.autoprovisioningNodePoolDefaults)\..*$/, '$1'));
  }
  return [...paths].sort();
}

/** Named after the version: the versions, the node image, and the etags that checksum them. */
const VERSION_NAMED = [
  'currentMasterVersion',
  'currentNodeVersion',
  'etag',
  'initialClusterVersion',
  'nodeConfig.nodeImageConfig.image',
  'nodePools[0].config.nodeImageConfig.image',
  'nodePools[0].etag',
  'nodePools[0].version',
];

const KCC_REQUEST = {
  name: 'c1',
  initialNodeCount: 1,
  autoscaling: { enableNodeAutoprovisioning: false },
  controlPlaneEndpointsConfig: {
    dnsEndpointConfig: { allowExternalTraffic: false, enableK8sTokensViaDns: false },
  },
};

describe('defaults keyed by the GKE version', () => {
  it('a 1.35 cluster differs from a 1.33 one exactly where the 1.33 and 1.35 recordings differ', async () => {
    const at133 = await createCluster(await world(), { ...KCC_REQUEST, initialClusterVersion: V133 });
    const at135 = await createCluster(await world(), { ...KCC_REQUEST, initialClusterVersion: V135 });
    expect(differingPaths(at133, at135).filter((p) => !VERSION_NAMED.includes(p))).toEqual([
      'addonsConfig.dnsCacheConfig.enabled',
      'addonsConfig.nodeReadinessConfig',
      'anonymousAuthenticationConfig.mode',
      'autoscaling.autoprovisioningNodePoolDefaults',
      'controlPlaneEgress.mode',
      'controlPlaneEndpointsConfig.dnsEndpointConfig.enableK8sCertsViaDns',
      'ipAllocationPolicy.networkTierConfig.networkTier',
      'nodeCreationConfig.nodeCreationMode',
      'nodePools[0].networkConfig.networkTierConfig.networkTier',
    ]);
    expect(at133.anonymousAuthenticationConfig).toEqual({ mode: 'ENABLED' });
    expect(at135.anonymousAuthenticationConfig).toEqual({ mode: 'LIMITED' });
    expect(at133.autoscaling).toEqual({ autoscalingProfile: 'BALANCED' });
    expect(at135.autoscaling.autoprovisioningNodePoolDefaults).toEqual({
      imageType: 'COS_CONTAINERD',
      management: { autoRepair: true, autoUpgrade: true },
      oauthScopes: at135.nodeConfig.oauthScopes,
      serviceAccount: 'default',
    });
  });

  it("a 1.34 cluster has the 1.34 recording's defaults: the 1.35 ones without LIMITED, node readiness, node creation", async () => {
    const at134 = await createCluster(await world(), { ...KCC_REQUEST, initialClusterVersion: '1.34' });
    const at135 = await createCluster(await world(), { ...KCC_REQUEST, initialClusterVersion: V135 });
    expect(at134.currentMasterVersion).toBe(V134);
    expect(differingPaths(at134, at135).filter((p) => !VERSION_NAMED.includes(p))).toEqual([
      'addonsConfig.nodeReadinessConfig',
      'anonymousAuthenticationConfig.mode',
      'nodeCreationConfig.nodeCreationMode',
    ]);
    expect(at134.addonsConfig.dnsCacheConfig).toEqual({ enabled: true });
    expect(at134.controlPlaneEgress).toEqual({ mode: 'VIA_CONTROL_PLANE' });
    expect(at134.ipAllocationPolicy.networkTierConfig).toEqual({ networkTier: 'NETWORK_TIER_DEFAULT' });
  });

  it("a pool takes the defaults of its own version, not the cluster's", async () => {
    const h = await world();
    await createCluster(h, { ...KCC_REQUEST, initialClusterVersion: V135 });
    for (const [name, version] of [
      ['old', '1.33'],
      ['new', V135],
    ]) {
      const res = await h.post(`${LOC}/clusters/c1/nodePools`, {
        nodePool: { name, version, initialNodeCount: 1 },
      });
      expect(res.status, res.text).toBe(200);
      await h.advance('5m');
    }
    const old = (await h.get(`${LOC}/clusters/c1/nodePools/old`)).body;
    const fresh = (await h.get(`${LOC}/clusters/c1/nodePools/new`)).body;
    expect(old.version).toBe(V133);
    expect(old.networkConfig.networkTierConfig).toBeUndefined();
    expect(fresh.networkConfig.networkTierConfig).toEqual({ networkTier: 'NETWORK_TIER_DEFAULT' });
  });

  it("keeps what the request sets over the version's default, and echoes enableK8sTokensViaDns only when sent", async () => {
    const h = await world();
    const given = await createCluster(h, {
      name: 'given',
      initialNodeCount: 1,
      initialClusterVersion: V135,
      anonymousAuthenticationConfig: { mode: 'ENABLED' },
      addonsConfig: { dnsCacheConfig: { enabled: false } },
    });
    expect(given.anonymousAuthenticationConfig).toEqual({ mode: 'ENABLED' });
    expect(given.addonsConfig.dnsCacheConfig).toEqual({});
    expect(given.controlPlaneEndpointsConfig.dnsEndpointConfig).not.toHaveProperty('enableK8sTokensViaDns');
    const sent = await createCluster(h, { ...KCC_REQUEST, name: 'sent', initialClusterVersion: V135 });
    expect(sent.controlPlaneEndpointsConfig.dnsEndpointConfig.enableK8sTokensViaDns).toBe(false);
  });

  it("keeps a cluster's creation-time defaults when its master is upgraded", async () => {
    const h = await world();
    await createCluster(h, { ...KCC_REQUEST, initialClusterVersion: V133 });
    // One minor version at a time, as GKE upgrades a control plane (FIDELITY.md, "Version aliases").
    for (const version of [V134, V135]) {
      const up = await h.put(`${LOC}/clusters/c1`, { update: { desiredMasterVersion: version } });
      expect(up.status, up.text).toBe(200);
      await h.advance('30m');
    }
    const after = (await h.get(`${LOC}/clusters/c1`)).body;
    expect(after.currentMasterVersion).toBe(V135);
    expect(after.initialClusterVersion).toBe(V133);
    expect(after.anonymousAuthenticationConfig).toEqual({ mode: 'ENABLED' });
  });
});
