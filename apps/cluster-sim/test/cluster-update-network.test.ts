import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterUpdates, V1_CLUSTER } from './support/cluster-update';
import { aCluster } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, LOC } from './support/harness';

/**
 * ClusterUpdate fields that land in nested or identity fields of the cluster (`networkConfig.*`,
 * Workload Identity, security posture, …): each an UPDATE_CLUSTER operation aimed at the cluster, the
 * change landing when it is DONE, as the other cluster field updates.
 */
let h: Harness;

beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const { applyUpdate, refused } = clusterUpdates(() => h, { noProgress: true });

describe('clusters.update: fields kept in networkConfig', () => {
  it('desiredDefaultSnatStatus lands in networkConfig.defaultSnatStatus; disabled false is {}', async () => {
    const on = await applyUpdate({ desiredDefaultSnatStatus: { disabled: true } });
    expect(on.before.networkConfig.defaultSnatStatus).toEqual({});
    expect(on.after.networkConfig).toEqual({
      ...on.before.networkConfig,
      defaultSnatStatus: { disabled: true },
    });
    expect(on.after.etag).not.toBe(on.before.etag);
    const off = await applyUpdate({ desiredDefaultSnatStatus: { disabled: false } });
    expect(off.after.networkConfig.defaultSnatStatus).toEqual({});
  });

  it('desiredPrivateIpv6GoogleAccess sets networkConfig.privateIpv6GoogleAccess (a number too); UNSPECIFIED unsets it', async () => {
    const set = await applyUpdate({ desiredPrivateIpv6GoogleAccess: 3 });
    expect(set.before.networkConfig.privateIpv6GoogleAccess).toBeUndefined();
    expect(set.after.networkConfig.privateIpv6GoogleAccess).toBe('PRIVATE_IPV6_GOOGLE_ACCESS_BIDIRECTIONAL');
    const unset = await applyUpdate({
      desiredPrivateIpv6GoogleAccess: 'PRIVATE_IPV6_GOOGLE_ACCESS_UNSPECIFIED',
    });
    expect(unset.after.networkConfig).not.toHaveProperty('privateIpv6GoogleAccess');
    expect(unset.after.networkConfig.network).toBe(set.before.networkConfig.network);
  });

  it('desiredL4ilbSubsettingConfig sets networkConfig.enableL4ilbSubsetting, which cannot be turned off again', async () => {
    const { after } = await applyUpdate({ desiredL4ilbSubsettingConfig: { enabled: true } });
    expect(after.networkConfig.enableL4ilbSubsetting).toBe(true);
    const error = await refused({ desiredL4ilbSubsettingConfig: { enabled: false } }, 400);
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe('L4 ILB subsetting cannot be disabled once it is enabled.');
    expect(JSON.stringify(error.details)).toContain('"update.desired_l4ilb_subsetting_config.enabled"');
  });

  it('desiredGatewayApiConfig and desiredServiceExternalIpsConfig replace their messages', async () => {
    const gateway = await applyUpdate({ desiredGatewayApiConfig: { channel: 'CHANNEL_STANDARD' } });
    expect(gateway.after.networkConfig.gatewayApiConfig).toEqual({ channel: 'CHANNEL_STANDARD' });
    const cleared = await applyUpdate({ desiredGatewayApiConfig: { channel: 'CHANNEL_UNSPECIFIED' } });
    expect(cleared.after.networkConfig.gatewayApiConfig).toEqual({});
    const external = await applyUpdate({ desiredServiceExternalIpsConfig: { enabled: true } });
    expect(external.before.networkConfig.serviceExternalIpsConfig).toEqual({});
    expect(external.after.networkConfig.serviceExternalIpsConfig).toEqual({ enabled: true });
    // Each lands beside the others: the gateway channel stays.
    expect(external.after.networkConfig.gatewayApiConfig).toEqual({});
    const off = await applyUpdate({ desiredServiceExternalIpsConfig: { enabled: false } });
    expect(off.after.networkConfig.serviceExternalIpsConfig).toEqual({});
  });

  it('refuses FQDN network policy, Cilium cluster-wide policy and inter-node encryption without Dataplane V2', async () => {
    for (const [update, field] of [
      [{ desiredEnableFqdnNetworkPolicy: true }, 'FQDN network policy'],
      [{ desiredEnableCiliumClusterwideNetworkPolicy: true }, 'CiliumClusterwideNetworkPolicy'],
      [
        { desiredInTransitEncryptionConfig: 'IN_TRANSIT_ENCRYPTION_INTER_NODE_TRANSPARENT' },
        'Inter-node transparent encryption',
      ],
    ] as const) {
      const error = await refused(update, 400);
      expect(error.status).toBe('INVALID_ARGUMENT');
      expect(error.message).toBe(
        `${field} requires GKE Dataplane V2; the cluster's datapath provider is not ADVANCED_DATAPATH.`,
      );
    }
    // Turning them off needs no Dataplane V2; an `optional bool` set false is answered false.
    const { after } = await applyUpdate({ desiredEnableFqdnNetworkPolicy: false });
    expect(after.networkConfig.enableFqdnNetworkPolicy).toBe(false);
  });

  it('applies them on a Dataplane V2 cluster', async () => {
    await h.seed({
      clusters: [{ ...aCluster('c2').build(), networkConfig: { datapathProvider: 'ADVANCED_DATAPATH' } }],
    });
    const c2 = `${LOC}/clusters/c2`;
    const fqdn = await applyUpdate({ desiredEnableFqdnNetworkPolicy: true }, c2);
    expect(fqdn.after.networkConfig).toMatchObject({
      datapathProvider: 'ADVANCED_DATAPATH',
      enableFqdnNetworkPolicy: true,
    });
    const encryption = await applyUpdate(
      { desiredInTransitEncryptionConfig: 'IN_TRANSIT_ENCRYPTION_INTER_NODE_TRANSPARENT' },
      c2,
    );
    expect(encryption.after.networkConfig.inTransitEncryptionConfig).toBe(
      'IN_TRANSIT_ENCRYPTION_INTER_NODE_TRANSPARENT',
    );
    expect(encryption.after.networkConfig.enableFqdnNetworkPolicy).toBe(true);
  });
});

describe('clusters.update: identity, security and cost fields', () => {
  it('desiredWorkloadIdentityConfig sets the project pool; another pool is refused; empty turns it off', async () => {
    const on = await applyUpdate({ desiredWorkloadIdentityConfig: { workloadPool: 'p1.svc.id.goog' } });
    expect(on.before.workloadIdentityConfig).toBeUndefined();
    expect(on.after.workloadIdentityConfig).toEqual({ workloadPool: 'p1.svc.id.goog' });
    const error = await refused(
      { desiredWorkloadIdentityConfig: { workloadPool: 'other.svc.id.goog' } },
      400,
    );
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(
      'Workload pool "other.svc.id.goog" is invalid: the workload pool of a cluster in project "p1" is "p1.svc.id.goog".',
    );
    const off = await applyUpdate({ desiredWorkloadIdentityConfig: { workloadPool: '' } });
    expect(off.after.workloadIdentityConfig).toEqual({});
  });

  it('desiredMeshCertificates needs Workload Identity, which then cannot be turned off', async () => {
    const error = await refused({ desiredMeshCertificates: { enableCertificates: true } }, 400);
    expect(error.message).toBe(
      'Mesh certificates require Workload Identity: the cluster has no workload pool.',
    );
    await applyUpdate({ desiredWorkloadIdentityConfig: { workloadPool: 'p1.svc.id.goog' } });
    const { after } = await applyUpdate({ desiredMeshCertificates: { enableCertificates: true } });
    expect(after.meshCertificates).toEqual({ enableCertificates: true });
    const locked = await refused({ desiredWorkloadIdentityConfig: {} }, 400);
    expect(locked.message).toBe('Workload Identity cannot be disabled while mesh certificates are enabled.');
    // Turned off (a BoolValue: false is kept and answered).
    const off = await applyUpdate({ desiredMeshCertificates: { enableCertificates: false } });
    expect(off.after.meshCertificates).toEqual({ enableCertificates: false });
    expect((await applyUpdate({ desiredWorkloadIdentityConfig: {} })).after.workloadIdentityConfig).toEqual(
      {},
    );
  });

  it("desiredAuthenticatorGroupsConfig needs a gke-security-groups group, with GKE's text", async () => {
    const error = await refused(
      { desiredAuthenticatorGroupsConfig: { enabled: true, securityGroup: 'admins@example.com' } },
      400,
    );
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(
      'Security group name must start with gke-security-groups but got: admins@example.com',
    );
    const group = 'gke-security-groups@example.com';
    const { after } = await applyUpdate({
      desiredAuthenticatorGroupsConfig: { enabled: true, securityGroup: group },
    });
    expect(after.authenticatorGroupsConfig).toEqual({ enabled: true, securityGroup: group });
  });

  it('desiredSecurityPostureConfig replaces the modes sent and keeps the other', async () => {
    const { before, after } = await applyUpdate({
      desiredSecurityPostureConfig: { vulnerabilityMode: 'VULNERABILITY_ENTERPRISE' },
    });
    expect(before.securityPostureConfig).toEqual({
      mode: 'BASIC',
      vulnerabilityMode: 'VULNERABILITY_MODE_UNSPECIFIED',
    });
    expect(after.securityPostureConfig).toEqual({
      mode: 'BASIC',
      vulnerabilityMode: 'VULNERABILITY_ENTERPRISE',
    });
    const disabled = await applyUpdate({ desiredSecurityPostureConfig: { mode: 'DISABLED' } });
    expect(disabled.after.securityPostureConfig).toEqual({
      mode: 'DISABLED',
      vulnerabilityMode: 'VULNERABILITY_ENTERPRISE',
    });
  });

  it('desiredCostManagementConfig, desiredIdentityServiceConfig, desiredPodAutoscaling and desiredClusterTelemetry replace their messages', async () => {
    const cost = await applyUpdate({ desiredCostManagementConfig: { enabled: true } });
    expect(cost.after.costManagementConfig).toEqual({ enabled: true });
    expect(
      (await applyUpdate({ desiredCostManagementConfig: { enabled: false } })).after.costManagementConfig,
    ).toEqual({});
    const identity = await applyUpdate({ desiredIdentityServiceConfig: { enabled: true } });
    expect(identity.after.identityServiceConfig).toEqual({ enabled: true });
    const hpa = await applyUpdate({ desiredPodAutoscaling: { hpaProfile: 'NONE' } });
    expect(hpa.before.podAutoscaling).toEqual({ hpaProfile: 'PERFORMANCE' });
    expect(hpa.after.podAutoscaling).toEqual({ hpaProfile: 'NONE' });
    const telemetry = await applyUpdate({ desiredClusterTelemetry: { type: 'SYSTEM_ONLY' } });
    expect(telemetry.before.clusterTelemetry).toEqual({ type: 'ENABLED' });
    expect(telemetry.after.clusterTelemetry).toEqual({ type: 'SYSTEM_ONLY' });
  });

  it('fails or cancels without changing anything', async () => {
    const before = (await h.get(CLUSTER)).body;
    const res = await h.put(CLUSTER, { update: { desiredCostManagementConfig: { enabled: true } } });
    expect(res.status, res.text).toBe(200);
    const cancel = await h.post(`${LOC}/operations/${res.body.name}:cancel`, {});
    expect(cancel.status, cancel.text).toBe(200);
    await h.advance('2s');
    const after = (await h.get(CLUSTER)).body;
    expect(after.costManagementConfig).toBeUndefined();
    expect(after.etag).toBe(before.etag);
    await h.addFault({
      match: { operation: 'clusters.update' },
      effect: { operationFails: { status: 'INTERNAL', message: 'boom' } },
    });
    const failing = await h.put(CLUSTER, { update: { desiredDefaultSnatStatus: { disabled: true } } });
    expect(failing.status, failing.text).toBe(200);
    await h.advance('5s');
    const done = (await h.get(`${LOC}/operations/${failing.body.name}`)).body;
    expect(done.error).toEqual({ code: 13, message: 'boom' });
    expect((await h.get(CLUSTER)).body.networkConfig.defaultSnatStatus).toEqual({});
  });

  it('blocks other operations on the cluster while it runs', async () => {
    const res = await h.put(CLUSTER, {
      update: { desiredGatewayApiConfig: { channel: 'CHANNEL_STANDARD' } },
    });
    expect(res.status, res.text).toBe(200);
    const busy = await h.put(CLUSTER, { update: { desiredCostManagementConfig: { enabled: true } } });
    expect(busy.status, busy.text).toBe(400);
    expect(busy.body.error.message).toBe(`Cluster is running incompatible operation ${res.body.name}.`);
  });
});

describe('clusters.update: the fields still refused and the API versions', () => {
  it('refuses fields that would recreate nodes or need other resources with the 501, starting nothing', async () => {
    for (const [update, name] of [
      [{ desiredIntraNodeVisibilityConfig: { enabled: true } }, 'desiredIntraNodeVisibilityConfig'],
      [{ desiredDnsConfig: { clusterDns: 'CLOUD_DNS' } }, 'desiredDnsConfig'],
      [{ desiredStackType: 'IPV4_IPV6' }, 'desiredStackType'],
      [{ desiredDatabaseEncryption: { state: 'ENCRYPTED', keyName: 'k' } }, 'desiredDatabaseEncryption'],
      [{ desiredShieldedNodes: { enabled: false } }, 'desiredShieldedNodes'],
      [{ desiredFleet: { project: 'p1' } }, 'desiredFleet'],
    ] as const) {
      const error = await refused(update, 501);
      expect(error.status).toBe('UNIMPLEMENTED');
      expect(error.message).toMatch(new RegExp(`^ClusterUpdate field "${name}": not simulated`));
    }
  });

  it('refuses two of the new fields together as not simulated', async () => {
    const error = await refused(
      { desiredCostManagementConfig: { enabled: true }, desiredDefaultSnatStatus: { disabled: true } },
      501,
    );
    expect(error.message).toMatch(
      /^A ClusterUpdate with "desiredCostManagementConfig", "desiredDefaultSnatStatus" together/,
    );
  });

  it('answers a name ClusterUpdate does not have as an unknown one', async () => {
    const error = await refused({ desiredNothing: true }, 400);
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/Unknown name "desiredNothing" at 'update': Cannot find field\./);
  });

  it('refuses a value of the wrong type in an applied field, starting nothing', async () => {
    for (const update of [
      { desiredEnablePrivateEndpoint: 'true' },
      { desiredDefaultEnablePrivateNodes: { nested: 1 } },
      { desiredPrivateClusterConfig: { masterGlobalAccessConfig: { enabled: 'true' } } },
    ]) {
      const error = await refused(update, 400);
      expect(error.status, JSON.stringify(update)).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/^Invalid value at 'update\./);
    }
  });

  it('v1 refuses the v1beta1-only desiredClusterTelemetry as an unknown name and applies the others', async () => {
    const error = await refused({ desiredClusterTelemetry: { type: 'DISABLED' } }, 400, V1_CLUSTER);
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/Unknown name "desiredClusterTelemetry" at 'update': Cannot find field\./);
    // v1's WorkloadIdentityConfig has no identityProvider (a v1beta1 field).
    const nested = await refused(
      { desiredWorkloadIdentityConfig: { workloadPool: 'p1.svc.id.goog', identityProvider: 'x' } },
      400,
      V1_CLUSTER,
    );
    expect(nested.message).toMatch(
      /Unknown name "identityProvider" at 'update.desired_workload_identity_config'/,
    );
    const { after } = await applyUpdate({ desiredDefaultSnatStatus: { disabled: true } }, V1_CLUSTER);
    expect(after.networkConfig.defaultSnatStatus).toEqual({ disabled: true });
  });
});
