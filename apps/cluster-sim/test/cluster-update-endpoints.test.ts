import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterUpdates, HOME, networks, OFFICE, V1_CLUSTER, violation } from './support/cluster-update';
import { aCluster } from './support/fixtures';
import { createHarness, type Harness, LOC } from './support/harness';

/**
 * ClusterUpdate fields for the control plane's access: the authorized networks (kept in both
 * `masterAuthorizedNetworksConfig` and `controlPlaneEndpointsConfig.ipEndpointsConfig`) and the beta APIs,
 * each an UPDATE_CLUSTER operation aimed at the cluster, the change landing when it is DONE (the
 * endpoints themselves: cluster-update-control-plane.test.ts), and `desiredPrivateClusterConfig`'s global access.
 */
let h: Harness;

beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const { applyUpdate, refused } = clusterUpdates(() => h);

describe('clusters.update: desiredMasterAuthorizedNetworksConfig', () => {
  it('lands in masterAuthorizedNetworksConfig and controlPlaneEndpointsConfig alike', async () => {
    const { before, after } = await applyUpdate({
      desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [OFFICE, HOME] },
    });
    expect(networks(before)).toEqual([
      { gcpPublicCidrsAccessEnabled: true },
      { gcpPublicCidrsAccessEnabled: true },
    ]);
    const expected = { enabled: true, cidrBlocks: [OFFICE, HOME], gcpPublicCidrsAccessEnabled: true };
    expect(networks(after)).toEqual([expected, expected]);
    // Only the authorized networks change in controlPlaneEndpointsConfig.
    expect(after.controlPlaneEndpointsConfig).toEqual({
      ...before.controlPlaneEndpointsConfig,
      ipEndpointsConfig: {
        ...before.controlPlaneEndpointsConfig.ipEndpointsConfig,
        authorizedNetworksConfig: expected,
      },
    });
    expect(after.etag).not.toBe(before.etag);
  });

  it('keeps proto3 zeros out and the optional bools as sent', async () => {
    const { after } = await applyUpdate({
      desiredMasterAuthorizedNetworksConfig: {
        enabled: false,
        cidrBlocks: [],
        gcpPublicCidrsAccessEnabled: false,
        privateEndpointEnforcementEnabled: false,
      },
    });
    // `enabled` and `cidrBlocks` are plain proto3 fields: not kept; the two `optional` bools are answered false.
    expect(networks(after)).toEqual([
      { gcpPublicCidrsAccessEnabled: false, privateEndpointEnforcementEnabled: false },
      { gcpPublicCidrsAccessEnabled: false, privateEndpointEnforcementEnabled: false },
    ]);
    const blank = await applyUpdate({
      desiredMasterAuthorizedNetworksConfig: {
        enabled: true,
        cidrBlocks: [{ displayName: '', cidrBlock: '10.0.0.0/8' }],
      },
    });
    const kept = {
      enabled: true,
      cidrBlocks: [{ cidrBlock: '10.0.0.0/8' }],
      gcpPublicCidrsAccessEnabled: true,
    };
    expect(networks(blank.after)).toEqual([kept, kept]);
  });

  it('answers what clusters.create answers for the same authorized networks', async () => {
    const config = { enabled: true, cidrBlocks: [OFFICE] };
    const created = await h.post(`${LOC}/clusters`, {
      cluster: { name: 'c2', initialNodeCount: 1, masterAuthorizedNetworksConfig: config },
    });
    expect(created.status, created.text).toBe(200);
    await h.advance('10s');
    const c2 = (await h.get(`${LOC}/clusters/c2`)).body;
    const { after } = await applyUpdate({ desiredMasterAuthorizedNetworksConfig: config });
    expect(after.masterAuthorizedNetworksConfig).toEqual(c2.masterAuthorizedNetworksConfig);
  });

  it('clusters.create keeps the authorized networks given in both places, as a later update does', async () => {
    const created = await h.post(`${LOC}/clusters`, {
      cluster: {
        name: 'c2',
        initialNodeCount: 1,
        masterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [OFFICE] },
      },
    });
    expect(created.status, created.text).toBe(200);
    // The endpoints' form wins over the deprecated one when both are given (an empty one is not given).
    const both = await h.post(`${LOC}/clusters`, {
      cluster: {
        name: 'c3',
        initialNodeCount: 1,
        masterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [OFFICE] },
        controlPlaneEndpointsConfig: {
          ipEndpointsConfig: {
            authorizedNetworksConfig: {
              enabled: true,
              cidrBlocks: [HOME],
              gcpPublicCidrsAccessEnabled: false,
            },
          },
        },
      },
    });
    expect(both.status, both.text).toBe(200);
    const empty = await h.post(`${V1_CLUSTER.replace(/\/c1$/, '')}`, {
      cluster: {
        name: 'c4',
        initialNodeCount: 1,
        masterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [HOME] },
        controlPlaneEndpointsConfig: { ipEndpointsConfig: { authorizedNetworksConfig: {} } },
      },
    });
    expect(empty.status, empty.text).toBe(200);
    await h.advance('10s');
    const office = { enabled: true, cidrBlocks: [OFFICE], gcpPublicCidrsAccessEnabled: true };
    const home = { enabled: true, cidrBlocks: [HOME], gcpPublicCidrsAccessEnabled: false };
    expect(networks((await h.get(`${LOC}/clusters/c2`)).body)).toEqual([office, office]);
    expect(networks((await h.get(`${LOC}/clusters/c3`)).body)).toEqual([home, home]);
    const c4 = (await h.get(V1_CLUSTER.replace(/c1$/, 'c4'))).body;
    expect(networks(c4)).toEqual([
      { ...home, gcpPublicCidrsAccessEnabled: true },
      { ...home, gcpPublicCidrsAccessEnabled: true },
    ]);
    const { before, after } = await applyUpdate(
      {
        desiredControlPlaneEndpointsConfig: {
          ipEndpointsConfig: { authorizedNetworksConfig: { enabled: true, cidrBlocks: [OFFICE] } },
        },
      },
      `${LOC}/clusters/c2`,
    );
    expect(networks(after)).toEqual(networks(before));
  });

  it('refuses a block not in CIDR notation and more blocks than a public cluster may have', async () => {
    for (const cidrBlock of ['203.0.113.0', '300.1.2.3/32', '10.0.0.0/33', 'office']) {
      const error = await refused(
        { desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [OFFICE, { cidrBlock }] } },
        400,
      );
      expect(error.status).toBe('INVALID_ARGUMENT');
      expect(error.message).toBe(`Invalid master authorized networks: "${cidrBlock}" is not a CIDR block.`);
      expect(violation(error)).toBe('update.desired_master_authorized_networks_config.cidr_blocks');
    }
    const many = Array.from({ length: 51 }, (_, i) => ({ cidrBlock: `198.51.100.${i}/32` }));
    const error = await refused(
      { desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: many } },
      400,
    );
    expect(error.message).toBe(
      'Invalid master authorized networks: 51 CIDR blocks, more than the 50 a public cluster can have.',
    );
    const fifty = await applyUpdate({
      desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: many.slice(0, 50) },
    });
    expect(fifty.after.masterAuthorizedNetworksConfig.cidrBlocks).toHaveLength(50);
    // IPv6 blocks are CIDR blocks too.
    const v6 = await applyUpdate({
      desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [{ cidrBlock: '2001:db8::/32' }] },
    });
    expect(v6.after.masterAuthorizedNetworksConfig.cidrBlocks).toEqual([{ cidrBlock: '2001:db8::/32' }]);
  });

  it('allows 100 blocks on a private cluster', async () => {
    await h.seed({
      clusters: [{ ...aCluster('c2').build(), privateClusterConfig: { enablePrivateNodes: true } }],
    });
    const c2 = `${LOC}/clusters/c2`;
    const many = Array.from({ length: 101 }, (_, i) => ({ cidrBlock: `10.0.${i}.0/24` }));
    const error = await refused(
      { desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: many } },
      400,
      c2,
    );
    expect(error.message).toBe(
      'Invalid master authorized networks: 101 CIDR blocks, more than the 100 a private cluster can have.',
    );
    const { after } = await applyUpdate(
      { desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: many.slice(0, 100) } },
      c2,
    );
    expect(
      after.controlPlaneEndpointsConfig.ipEndpointsConfig.authorizedNetworksConfig.cidrBlocks,
    ).toHaveLength(100);
  });

  it('with the private endpoint on, needs authorized networks enabled and internal blocks (GKE texts)', async () => {
    await h.seed({
      clusters: [
        {
          ...aCluster('c2').build(),
          privateClusterConfig: { enablePrivateNodes: true, enablePrivateEndpoint: true },
          masterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [{ cidrBlock: '10.1.0.0/16' }] },
        },
      ],
    });
    const c2 = `${LOC}/clusters/c2`;
    const outside = await refused(
      {
        desiredMasterAuthorizedNetworksConfig: {
          enabled: true,
          cidrBlocks: [{ cidrBlock: '10.2.0.0/16' }, HOME],
        },
      },
      400,
      c2,
    );
    expect(outside.message).toBe(
      'Invalid master authorized networks: network "35.247.165.143/32" is not a reserved network, which is required for private endpoints.',
    );
    // A block reaching beyond an internal range is not internal.
    const wide = await refused(
      { desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [{ cidrBlock: '10.0.0.0/7' }] } },
      400,
      c2,
    );
    expect(wide.message).toMatch(/network "10\.0\.0\.0\/7" is not a reserved network/);
    const disabled = await refused({ desiredMasterAuthorizedNetworksConfig: { enabled: false } }, 400, c2);
    expect(disabled.message).toBe(
      'Master authorized networks must be enabled if private endpoint is enabled.',
    );
    expect(violation(disabled)).toBe('update.desired_master_authorized_networks_config.enabled');
    const { after } = await applyUpdate(
      {
        desiredMasterAuthorizedNetworksConfig: {
          enabled: true,
          cidrBlocks: [
            { cidrBlock: '10.2.0.0/16' },
            { cidrBlock: '172.16.4.0/22' },
            { cidrBlock: '100.64.1.0/24' },
          ],
          privateEndpointEnforcementEnabled: true,
        },
      },
      c2,
    );
    expect(after.masterAuthorizedNetworksConfig).toEqual({
      enabled: true,
      cidrBlocks: [
        { cidrBlock: '10.2.0.0/16' },
        { cidrBlock: '172.16.4.0/22' },
        { cidrBlock: '100.64.1.0/24' },
      ],
      gcpPublicCidrsAccessEnabled: true,
      privateEndpointEnforcementEnabled: true,
    });
    expect(after.privateClusterConfig).toMatchObject({ enablePrivateEndpoint: true });
  });

  it('applies under v1 too', async () => {
    const { after } = await applyUpdate(
      { desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [OFFICE] } },
      V1_CLUSTER,
    );
    const expected = { enabled: true, cidrBlocks: [OFFICE], gcpPublicCidrsAccessEnabled: true };
    expect(networks(after)).toEqual([expected, expected]);
    const error = await refused(
      { desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [{ cidrBlock: 'x' }] } },
      400,
      V1_CLUSTER,
    );
    expect(error.message).toBe('Invalid master authorized networks: "x" is not a CIDR block.');
  });
});

describe('clusters.update: desiredK8sBetaApis', () => {
  const CAPACITIES = 'storage.k8s.io/v1beta1/csistoragecapacities';
  const CIDRS = 'networking.k8s.io/v1beta1/servicecidrs';

  it('sets enableK8sBetaApis, adding to the APIs enabled', async () => {
    const first = await applyUpdate({ desiredK8sBetaApis: { enabledApis: [CAPACITIES] } });
    expect(first.before.enableK8sBetaApis).toBeUndefined();
    expect(first.after.enableK8sBetaApis).toEqual({ enabledApis: [CAPACITIES] });
    const second = await applyUpdate(
      { desiredK8sBetaApis: { enabledApis: [CAPACITIES, CIDRS] } },
      V1_CLUSTER,
    );
    expect(second.after.enableK8sBetaApis).toEqual({ enabledApis: [CAPACITIES, CIDRS] });
  });

  it('refuses to disable an enabled beta API, starting nothing', async () => {
    await applyUpdate({ desiredK8sBetaApis: { enabledApis: [CAPACITIES, CIDRS] } });
    for (const enabledApis of [[CAPACITIES], []]) {
      const error = await refused({ desiredK8sBetaApis: { enabledApis } }, 400);
      expect(error.status).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/^Beta API "[^"]+" is enabled on the cluster and cannot be disabled\.$/);
      expect(violation(error)).toBe('update.desired_k8s_beta_apis.enabled_apis');
    }
  });
});

describe('clusters.update: desiredPrivateClusterConfig', () => {
  it('sets masterGlobalAccessConfig and its mirror, ipEndpointsConfig.globalAccess', async () => {
    const { after } = await applyUpdate({
      desiredPrivateClusterConfig: {
        masterGlobalAccessConfig: { enabled: true },
        privateEndpoint: '10.0.0.9',
      },
    });
    expect(after.privateClusterConfig.masterGlobalAccessConfig).toEqual({ enabled: true });
    expect(after.controlPlaneEndpointsConfig.ipEndpointsConfig.globalAccess).toBe(true);
    const off = await applyUpdate(
      { desiredPrivateClusterConfig: { masterGlobalAccessConfig: {} } },
      V1_CLUSTER,
    );
    expect(off.after.privateClusterConfig.masterGlobalAccessConfig).toBeUndefined();
    expect(off.after.controlPlaneEndpointsConfig.ipEndpointsConfig.globalAccess).toBeUndefined();
  });

  it('refuses a change of another field, or no masterGlobalAccessConfig, with the 501', async () => {
    for (const [update, what] of [
      [
        { enablePrivateNodes: true, masterGlobalAccessConfig: { enabled: true } },
        'changing enablePrivateNodes',
      ],
      [{ enablePrivateEndpoint: false }, 'without masterGlobalAccessConfig'],
    ] as const) {
      const error = await refused({ desiredPrivateClusterConfig: update }, 501);
      expect(error.status).toBe('UNIMPLEMENTED');
      expect(error.message).toMatch(
        new RegExp(`^ClusterUpdate field "desiredPrivateClusterConfig" ${what}: not simulated`),
      );
    }
  });
});

describe('clusters.update: the control plane fields still refused', () => {
  it('refuses privateClusterConfig and enableK8sBetaApis with the 501', async () => {
    for (const [update, name] of [
      [{ privateClusterConfig: { enablePrivateNodes: true } }, 'privateClusterConfig'],
      [{ enableK8sBetaApis: { enabledApis: ['x/v1beta1/y'] } }, 'enableK8sBetaApis'],
    ] as const) {
      const error = await refused(update, 501);
      expect(error.status).toBe('UNIMPLEMENTED');
      expect(error.message).toMatch(new RegExp(`^ClusterUpdate field "${name}": not simulated`));
    }
  });
});
