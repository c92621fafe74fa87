import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterUpdates, HOME, networks, OFFICE, V1_CLUSTER, violation } from './support/cluster-update';
import { aCluster } from './support/fixtures';
import { createHarness, type Harness, LOC } from './support/harness';

/**
 * ClusterUpdate fields for the control plane's endpoints: `desiredControlPlaneEndpointsConfig`,
 * `desiredEnablePrivateEndpoint` (`desiredPrivateClusterConfig`: cluster-update-endpoints.test.ts), each an
 * UPDATE_CLUSTER operation aimed at the cluster, landing when it is DONE in both `privateClusterConfig` and
 * `controlPlaneEndpointsConfig`.
 */
let h: Harness;
const C2 = `${LOC}/clusters/c2`;

beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const { applyUpdate, refused } = clusterUpdates(() => h);

/**
 * The private endpoint on: `enablePrivateEndpoint` true and `enablePublicEndpoint` false, which clusters.get
 * leaves out (not in node-pools.ts's KEEP_FALSE, like `globalAccess`, recorded left out when false).
 */
const PRIVATE = [true, undefined];

/** The private endpoint in both places: `privateClusterConfig`'s, and the public one reversed. */
function endpoints(cluster: {
  privateClusterConfig: { enablePrivateEndpoint?: boolean };
  controlPlaneEndpointsConfig: { ipEndpointsConfig: { enablePublicEndpoint?: boolean } };
}) {
  return [
    cluster.privateClusterConfig.enablePrivateEndpoint,
    cluster.controlPlaneEndpointsConfig.ipEndpointsConfig.enablePublicEndpoint,
  ];
}

const INTERNAL = { enabled: true, cidrBlocks: [{ cidrBlock: '10.0.0.0/8' }] };

const PRIVATE_ENDPOINT_NEEDS_NETWORKS =
  'Master authorized networks must be enabled if private endpoint is enabled.';
const VPC_PEERING = 'Updating private endpoint on vpc peering private clusters is not supported.';

/** A VPC-peering private cluster (private nodes, a master CIDR) with internal authorized networks. */
async function seedPeering() {
  await h.seed({
    clusters: [
      {
        ...aCluster('c2').build(),
        privateClusterConfig: { enablePrivateNodes: true, masterIpv4CidrBlock: '172.16.0.0/28' },
        masterAuthorizedNetworksConfig: INTERNAL,
      },
    ],
  });
}

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

  it('accepts the fields not applied at the values the cluster has, and output-only fields', async () => {
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
    expect(after.privateClusterConfig).toEqual(before.privateClusterConfig);
    expect(after.controlPlaneEndpointsConfig.ipEndpointsConfig.publicEndpoint).toBe(before.endpoint);
  });

  it('applies the DNS endpoint settings sent, keeping the others and the authorized networks', async () => {
    const first = await applyUpdate({
      desiredControlPlaneEndpointsConfig: {
        dnsEndpointConfig: { allowExternalTraffic: true, enableK8sTokensViaDns: true },
      },
    });
    const dns = first.before.controlPlaneEndpointsConfig.dnsEndpointConfig;
    expect(dns).toMatchObject({ allowExternalTraffic: false });
    expect(first.after.controlPlaneEndpointsConfig.dnsEndpointConfig).toEqual({
      ...dns,
      allowExternalTraffic: true,
      enableK8sTokensViaDns: true,
    });
    expect(networks(first.after)).toEqual(networks(first.before));
    const { etag: _e, controlPlaneEndpointsConfig: _c, ...rest } = first.after;
    const { etag: _f, controlPlaneEndpointsConfig: _d, ...restBefore } = first.before;
    expect(rest).toEqual(restBefore);
    // The three are `optional bool`s: false is answered.
    const second = await applyUpdate(
      { desiredControlPlaneEndpointsConfig: { dnsEndpointConfig: { enableK8sCertsViaDns: false } } },
      V1_CLUSTER,
    );
    expect(second.after.controlPlaneEndpointsConfig.dnsEndpointConfig).toEqual({
      ...dns,
      allowExternalTraffic: true,
      enableK8sTokensViaDns: true,
      enableK8sCertsViaDns: false,
    });
  });

  it('turns the public endpoint off (the private one on, in privateClusterConfig) and on again', async () => {
    const off = { ipEndpointsConfig: { enablePublicEndpoint: false } };
    const closed = await refused({ desiredControlPlaneEndpointsConfig: off }, 400);
    expect(closed.status).toBe('INVALID_ARGUMENT');
    expect(closed.message).toBe(PRIVATE_ENDPOINT_NEEDS_NETWORKS);
    expect(violation(closed)).toBe(
      'update.desired_control_plane_endpoints_config.ip_endpoints_config.enable_public_endpoint',
    );
    // The authorized networks sent beside it are checked for the private endpoint.
    const outside = await refused(
      {
        desiredControlPlaneEndpointsConfig: {
          ipEndpointsConfig: {
            enablePublicEndpoint: false,
            authorizedNetworksConfig: { enabled: true, cidrBlocks: [HOME] },
          },
        },
      },
      400,
    );
    expect(outside.message).toBe(
      'Invalid master authorized networks: network "35.247.165.143/32" is not a reserved network, which is required for private endpoints.',
    );
    expect(violation(outside)).toBe(
      'update.desired_control_plane_endpoints_config.ip_endpoints_config.authorized_networks_config.cidr_blocks',
    );
    const { before, after } = await applyUpdate({
      desiredControlPlaneEndpointsConfig: {
        ipEndpointsConfig: { enablePublicEndpoint: false, authorizedNetworksConfig: INTERNAL },
      },
    });
    expect(endpoints(before)).toEqual([undefined, true]);
    expect(endpoints(after)).toEqual(PRIVATE);
    const internal = { ...INTERNAL, gcpPublicCidrsAccessEnabled: true };
    expect(networks(after)).toEqual([internal, internal]);
    const back = await applyUpdate(
      { desiredControlPlaneEndpointsConfig: { ipEndpointsConfig: { enablePublicEndpoint: true } } },
      V1_CLUSTER,
    );
    expect(endpoints(back.after)).toEqual([undefined, true]);
    expect(back.after.privateClusterConfig).toEqual(before.privateClusterConfig);
    expect(networks(back.after)).toEqual([internal, internal]);
  });

  it('sets global access in both places', async () => {
    const on = await applyUpdate({
      desiredControlPlaneEndpointsConfig: { ipEndpointsConfig: { globalAccess: true } },
    });
    expect(on.before.privateClusterConfig.masterGlobalAccessConfig).toBeUndefined();
    expect(on.before.controlPlaneEndpointsConfig.ipEndpointsConfig.globalAccess).toBeUndefined();
    expect(on.after.privateClusterConfig.masterGlobalAccessConfig).toEqual({ enabled: true });
    expect(on.after.controlPlaneEndpointsConfig.ipEndpointsConfig.globalAccess).toBe(true);
    const off = await applyUpdate(
      { desiredControlPlaneEndpointsConfig: { ipEndpointsConfig: { globalAccess: false } } },
      V1_CLUSTER,
    );
    // As clusters.create answers `globalAccess: false` (recorded): neither is there.
    expect(off.after.privateClusterConfig).toEqual(on.before.privateClusterConfig);
    expect(off.after.controlPlaneEndpointsConfig).toEqual(on.before.controlPlaneEndpointsConfig);
  });

  it('refuses a change of the public endpoint on a VPC-peering private cluster (GKE text)', async () => {
    await seedPeering();
    const error = await refused(
      { desiredControlPlaneEndpointsConfig: { ipEndpointsConfig: { enablePublicEndpoint: false } } },
      400,
      C2,
    );
    expect(error.message).toBe(VPC_PEERING);
    expect(violation(error)).toBe(
      'update.desired_control_plane_endpoints_config.ip_endpoints_config.enable_public_endpoint',
    );
    // The value it has is no change.
    const { after } = await applyUpdate(
      {
        desiredControlPlaneEndpointsConfig: {
          ipEndpointsConfig: { enablePublicEndpoint: true, globalAccess: true },
        },
      },
      C2,
    );
    expect(after.controlPlaneEndpointsConfig.ipEndpointsConfig.globalAccess).toBe(true);
  });

  it('keeps the DNS endpoint open to external traffic while the IP endpoints are off (chosen text)', async () => {
    await h.seed({
      clusters: [
        {
          ...aCluster('c2').build(),
          controlPlaneEndpointsConfig: {
            dnsEndpointConfig: { allowExternalTraffic: true },
            ipEndpointsConfig: { enabled: false },
          },
        },
      ],
    });
    const error = await refused(
      { desiredControlPlaneEndpointsConfig: { dnsEndpointConfig: { allowExternalTraffic: false } } },
      400,
      C2,
    );
    expect(error.message).toBe(
      'The DNS endpoint must allow external traffic while the IP endpoints are disabled.',
    );
    expect(violation(error)).toBe(
      'update.desired_control_plane_endpoints_config.dns_endpoint_config.allow_external_traffic',
    );
    const { after } = await applyUpdate(
      { desiredControlPlaneEndpointsConfig: { dnsEndpointConfig: { enableK8sTokensViaDns: true } } },
      C2,
    );
    expect(after.controlPlaneEndpointsConfig.dnsEndpointConfig).toMatchObject({
      allowExternalTraffic: true,
      enableK8sTokensViaDns: true,
    });
  });

  it('refuses turning the IP endpoints off or on, or another private endpoint subnetwork, with the 501', async () => {
    for (const [update, what] of [
      [{ ipEndpointsConfig: { enabled: false } }, 'ipEndpointsConfig.enabled'],
      [
        {
          dnsEndpointConfig: { allowExternalTraffic: true },
          ipEndpointsConfig: { privateEndpointSubnetwork: 'projects/p1/regions/us-central1/subnetworks/s' },
        },
        'ipEndpointsConfig.privateEndpointSubnetwork',
      ],
    ] as const) {
      const error = await refused({ desiredControlPlaneEndpointsConfig: update }, 501);
      expect(error.status).toBe('UNIMPLEMENTED');
      expect(error.message).toMatch(
        new RegExp(
          `^ClusterUpdate field "desiredControlPlaneEndpointsConfig" changing ${what.replace('.', '\\.')}: not simulated`,
        ),
      );
    }
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

describe('clusters.update: desiredEnablePrivateEndpoint', () => {
  it('sets the private endpoint and, reversed, the public one; needs internal authorized networks', async () => {
    const closed = await refused({ desiredEnablePrivateEndpoint: true }, 400);
    expect(closed.status).toBe('INVALID_ARGUMENT');
    expect(closed.message).toBe(PRIVATE_ENDPOINT_NEEDS_NETWORKS);
    expect(violation(closed)).toBe('update.desired_enable_private_endpoint');
    await applyUpdate({ desiredMasterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [HOME] } });
    const outside = await refused({ desiredEnablePrivateEndpoint: true }, 400);
    expect(outside.message).toBe(
      'Invalid master authorized networks: network "35.247.165.143/32" is not a reserved network, which is required for private endpoints.',
    );
    expect(violation(outside)).toBe('update.desired_enable_private_endpoint');
    await applyUpdate({ desiredMasterAuthorizedNetworksConfig: INTERNAL });
    const { before, after } = await applyUpdate({ desiredEnablePrivateEndpoint: true });
    expect(endpoints(before)).toEqual([undefined, true]);
    expect(endpoints(after)).toEqual(PRIVATE);
    const { etag: _e, privateClusterConfig: _p, controlPlaneEndpointsConfig: _c, ...rest } = after;
    const { etag: _f, privateClusterConfig: _q, controlPlaneEndpointsConfig: _d, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
    // With the private endpoint on, authorized networks stay enabled.
    const disabled = await refused({ desiredMasterAuthorizedNetworksConfig: { enabled: false } }, 400);
    expect(disabled.message).toBe(PRIVATE_ENDPOINT_NEEDS_NETWORKS);
    const off = await applyUpdate({ desiredEnablePrivateEndpoint: false }, V1_CLUSTER);
    expect(endpoints(off.after)).toEqual([undefined, true]);
  });

  it('is refused on a VPC-peering private cluster (GKE text), not on a Private Service Connect one', async () => {
    await seedPeering();
    for (const desiredEnablePrivateEndpoint of [true, false]) {
      const error = await refused({ desiredEnablePrivateEndpoint }, 400, C2);
      expect(error.message).toBe(VPC_PEERING);
      expect(violation(error)).toBe('update.desired_enable_private_endpoint');
    }
    await h.seed({
      clusters: [
        {
          ...aCluster('c3').build(),
          privateClusterConfig: { enablePrivateNodes: true },
          masterAuthorizedNetworksConfig: INTERNAL,
        },
      ],
    });
    const c3 = `${LOC}/clusters/c3`;
    const res = await h.put(c3, { update: { desiredEnablePrivateEndpoint: true } });
    expect(res.status, res.text).toBe(200);
    await h.advance('2s');
    expect(endpoints((await h.get(c3)).body)).toEqual(PRIVATE);
  });
});
