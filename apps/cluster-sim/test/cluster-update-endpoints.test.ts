import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster } from './support/fixtures';
import { createHarness, type Harness } from './support/harness';

/**
 * ClusterUpdate fields for the control plane's access: the authorized networks (kept in both
 * `masterAuthorizedNetworksConfig` and `controlPlaneEndpointsConfig.ipEndpointsConfig`) and the beta APIs,
 * each an UPDATE_CLUSTER operation aimed at the cluster, the change landing when it is DONE.
 */
let h: Harness;
const ZONE = '/v1beta1/projects/p1/locations/us-central1-a';
const CLUSTER = `${ZONE}/clusters/c1`;
const V1_CLUSTER = '/v1/projects/p1/locations/us-central1-a/clusters/c1';

beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

async function operations() {
  return (await h.get(`${ZONE}/operations`)).body.operations ?? [];
}

/** Sends the update, checks its operation and that nothing lands before DONE; the cluster before and after. */
async function applyUpdate(update: Record<string, unknown>, cluster = CLUSTER) {
  const before = (await h.get(cluster)).body;
  const res = await h.put(cluster, { update });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ operationType: 'UPDATE_CLUSTER', status: 'PENDING' });
  expect(res.body.targetLink).toMatch(/\/zones\/us-central1-a\/clusters\/c[12]$/);
  const during = (await h.get(cluster)).body;
  expect(during.status).toBe('RECONCILING');
  const { status: _s, ...duringRest } = during;
  const { status: _b, ...beforeRest } = before;
  expect(duringRest).toEqual(beforeRest);
  await h.advance('2s');
  const op = (await h.get(`${ZONE}/operations/${res.body.name}`)).body;
  expect(op.status).toBe('DONE');
  const after = (await h.get(cluster)).body;
  expect(after.status).toBe('RUNNING');
  return { before, after };
}

/** Sends the update and expects the refusal, nothing started and the cluster unchanged. */
async function refused(update: Record<string, unknown>, status: number, cluster = CLUSTER) {
  const before = (await h.get(cluster)).body;
  const ops = (await operations()).length;
  const res = await h.put(cluster, { update });
  expect(res.status, res.text).toBe(status);
  expect((await operations()).length).toBe(ops);
  expect((await h.get(cluster)).body).toEqual(before);
  return res.body.error;
}

/** The authorized networks in both places GKE keeps them. */
interface Networks {
  masterAuthorizedNetworksConfig: Record<string, unknown>;
  controlPlaneEndpointsConfig: { ipEndpointsConfig: { authorizedNetworksConfig: Record<string, unknown> } };
}
function networks(cluster: Networks): Record<string, unknown>[] {
  return [
    cluster.masterAuthorizedNetworksConfig,
    cluster.controlPlaneEndpointsConfig.ipEndpointsConfig.authorizedNetworksConfig,
  ];
}

const OFFICE = { displayName: 'office', cidrBlock: '35.190.0.0/24' };
const HOME = { cidrBlock: '35.247.165.143/32' };

/** The field of a refusal's BadRequest. */
function violation(error: { details: { fieldViolations?: { field: string }[] }[] }): string | undefined {
  return error.details.find((d) => d.fieldViolations)?.fieldViolations?.[0]?.field;
}

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
    // `enabled` and `cidrBlocks` are plain proto3 fields: not kept. (The two `optional` bools are kept false
    // in the cluster; clusters.get omits a false bool outside node-pools.ts's KEEP_FALSE, as for create.)
    for (const config of networks(after)) {
      expect(config).not.toHaveProperty('enabled');
      expect(config).not.toHaveProperty('cidrBlocks');
      expect(config.gcpPublicCidrsAccessEnabled).not.toBe(true);
    }
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
    const created = await h.post(`${ZONE}/clusters`, {
      cluster: { name: 'c2', initialNodeCount: 1, masterAuthorizedNetworksConfig: config },
    });
    expect(created.status, created.text).toBe(200);
    await h.advance('10s');
    const c2 = (await h.get(`${ZONE}/clusters/c2`)).body;
    const { after } = await applyUpdate({ desiredMasterAuthorizedNetworksConfig: config });
    expect(after.masterAuthorizedNetworksConfig).toEqual(c2.masterAuthorizedNetworksConfig);
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
    const c2 = `${ZONE}/clusters/c2`;
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
    const c2 = `${ZONE}/clusters/c2`;
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

describe('clusters.update: desiredControlPlaneEndpointsConfig', () => {
  it('applies the IP endpoints authorized networks in both places', async () => {
    const { before, after } = await applyUpdate({
      desiredControlPlaneEndpointsConfig: {
        ipEndpointsConfig: { authorizedNetworksConfig: { enabled: true, cidrBlocks: [OFFICE] } },
      },
    });
    const expected = { enabled: true, cidrBlocks: [OFFICE], gcpPublicCidrsAccessEnabled: true };
    expect(networks(after)).toEqual([expected, expected]);
    expect(after.controlPlaneEndpointsConfig.dnsEndpointConfig).toEqual(
      before.controlPlaneEndpointsConfig.dnsEndpointConfig,
    );
    expect(after.privateClusterConfig).toEqual(before.privateClusterConfig);
  });

  it('accepts the other fields at the values the cluster has, and output-only fields, beside them', async () => {
    const { before, after } = await applyUpdate(
      {
        desiredControlPlaneEndpointsConfig: {
          dnsEndpointConfig: { allowExternalTraffic: false, endpoint: 'elsewhere.gke.goog' },
          ipEndpointsConfig: {
            enabled: true,
            enablePublicEndpoint: true,
            globalAccess: false,
            privateEndpointSubnetwork: '',
            publicEndpoint: '1.2.3.4',
            authorizedNetworksConfig: { enabled: true, cidrBlocks: [HOME] },
          },
        },
      },
      V1_CLUSTER,
    );
    const expected = { enabled: true, cidrBlocks: [HOME], gcpPublicCidrsAccessEnabled: true };
    expect(networks(after)).toEqual([expected, expected]);
    expect(after.controlPlaneEndpointsConfig.dnsEndpointConfig).toEqual(
      before.controlPlaneEndpointsConfig.dnsEndpointConfig,
    );
    expect(after.controlPlaneEndpointsConfig.ipEndpointsConfig.publicEndpoint).toBe(before.endpoint);
  });

  it('refuses a change of the DNS or IP endpoints themselves with the 501, starting nothing', async () => {
    for (const [update, what] of [
      [{ dnsEndpointConfig: { allowExternalTraffic: true } }, 'dnsEndpointConfig.allowExternalTraffic'],
      [
        { ipEndpointsConfig: { enablePublicEndpoint: false, authorizedNetworksConfig: { enabled: true } } },
        'ipEndpointsConfig.enablePublicEndpoint',
      ],
      [{ ipEndpointsConfig: { globalAccess: true } }, 'ipEndpointsConfig.globalAccess'],
      [{ ipEndpointsConfig: { enabled: false } }, 'ipEndpointsConfig.enabled'],
    ] as const) {
      const error = await refused({ desiredControlPlaneEndpointsConfig: update }, 501);
      expect(error.status).toBe('UNIMPLEMENTED');
      expect(error.message).toMatch(
        new RegExp(
          `^ClusterUpdate field "desiredControlPlaneEndpointsConfig" changing ${what.replace('.', '\\.')}: not simulated`,
        ),
      );
    }
    const none = await refused(
      { desiredControlPlaneEndpointsConfig: { dnsEndpointConfig: { allowExternalTraffic: false } } },
      501,
    );
    expect(none.message).toMatch(/without ipEndpointsConfig\.authorizedNetworksConfig: not simulated/);
  });

  it('checks the authorized networks as desiredMasterAuthorizedNetworksConfig does', async () => {
    const error = await refused(
      {
        desiredControlPlaneEndpointsConfig: {
          ipEndpointsConfig: {
            authorizedNetworksConfig: { enabled: true, cidrBlocks: [{ cidrBlock: '1.2.3/8' }] },
          },
        },
      },
      400,
    );
    expect(error.message).toBe('Invalid master authorized networks: "1.2.3/8" is not a CIDR block.');
    expect(violation(error)).toBe(
      'update.desired_control_plane_endpoints_config.ip_endpoints_config.authorized_networks_config.cidr_blocks',
    );
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

describe('clusters.update: the endpoint fields still refused', () => {
  it('refuses desiredEnablePrivateEndpoint, desiredDefaultEnablePrivateNodes and the private cluster configs with the 501', async () => {
    for (const [update, name] of [
      [{ desiredEnablePrivateEndpoint: true }, 'desiredEnablePrivateEndpoint'],
      [{ desiredDefaultEnablePrivateNodes: true }, 'desiredDefaultEnablePrivateNodes'],
      [
        { desiredPrivateClusterConfig: { masterGlobalAccessConfig: { enabled: true } } },
        'desiredPrivateClusterConfig',
      ],
      [{ privateClusterConfig: { enablePrivateNodes: true } }, 'privateClusterConfig'],
      [{ enableK8sBetaApis: { enabledApis: ['x/v1beta1/y'] } }, 'enableK8sBetaApis'],
    ] as const) {
      const error = await refused(update, 501);
      expect(error.status).toBe('UNIMPLEMENTED');
      expect(error.message).toMatch(new RegExp(`^ClusterUpdate field "${name}": not simulated`));
    }
  });
});
