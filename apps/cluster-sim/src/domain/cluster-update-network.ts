import type { FieldUpdate } from './cluster-field-update';
import { isPlainObject, type Loose } from './defaults';
import { fail, ok, type Result } from './errors';
import type { ClusterRecord } from './state';

/**
 * A message as GKE keeps it (proto3): its `false`, `0` and `""` fields, and the enum fields named whose
 * value is the zero one (`…UNSPECIFIED`), are not kept, so `{enabled: false}` comes back as `{}`.
 * Fields with presence (`optional` in the proto) are not listed and keep what was sent.
 *
 * @example withoutZeros(['channel'])({ channel: 'CHANNEL_UNSPECIFIED' }) // {}
 */
export function withoutZeros(enumFields: readonly string[] = []): (value: unknown) => unknown {
  return (value) => {
    if (!isPlainObject(value)) return value;
    const out: Loose = {};
    for (const [key, v] of Object.entries(value)) {
      if (v === false || v === 0 || v === '') continue;
      if (enumFields.includes(key) && typeof v === 'string' && v.endsWith('UNSPECIFIED')) continue;
      out[key] = v;
    }
    return out;
  };
}

/** A plain proto3 enum or bool field: its zero value (`…UNSPECIFIED`, `false`) unsets it. */
function zeroUnsets(value: unknown): unknown {
  if (value === false || (typeof value === 'string' && value.endsWith('UNSPECIFIED'))) return undefined;
  return value;
}

/** `{enabled}` of a wrapper message onto a plain bool field of the cluster (false: unset). */
function enabledFlag(value: unknown): unknown {
  return isPlainObject(value) && value.enabled === true ? true : undefined;
}

/** Whether the cluster runs GKE Dataplane V2 (`networkConfig.datapathProvider` ADVANCED_DATAPATH). */
function hasDataplaneV2(record: ClusterRecord): boolean {
  const network = (record.cluster as Loose).networkConfig;
  return isPlainObject(network) && network.datapathProvider === 'ADVANCED_DATAPATH';
}

/**
 * A feature GKE documents as available only with GKE Dataplane V2 (FQDN network policies, inter-node
 * transparent encryption, CiliumClusterwideNetworkPolicy): refused while the cluster does not run it,
 * unless the value turns the feature off. The text is the simulator's (FIDELITY.md).
 */
function needsDataplaneV2(feature: string, field: string, turnsOn: (value: unknown) => boolean) {
  return (value: unknown, record: ClusterRecord): Result<void> => {
    if (!turnsOn(value) || hasDataplaneV2(record)) return ok(undefined);
    return fail({
      code: 'INVALID_REQUEST',
      message: `${feature} requires GKE Dataplane V2; the cluster's datapath provider is not ADVANCED_DATAPATH.`,
      field,
    });
  };
}

/**
 * "After you enable GKE subsetting in a cluster, you cannot disable it" (GKE's internal load balancer
 * guide): turning it off on a cluster that has it is refused (the text is the simulator's).
 */
function l4ilbSubsettingCheck(value: unknown, record: ClusterRecord): Result<void> {
  const network = (record.cluster as Loose).networkConfig;
  const enabled = isPlainObject(network) && network.enableL4ilbSubsetting === true;
  if (!enabled || enabledFlag(value) === true) return ok(undefined);
  return fail({
    code: 'INVALID_REQUEST',
    message: 'L4 ILB subsetting cannot be disabled once it is enabled.',
    field: 'update.desired_l4ilb_subsetting_config.enabled',
  });
}

/**
 * The ClusterUpdate fields that land in the cluster's `networkConfig` (where each one's proto comment
 * and the Cluster message put it), with an UPDATE_CLUSTER on the cluster like the other field updates.
 */
export const NETWORK_FIELD_UPDATES: Readonly<Record<string, FieldUpdate>> = {
  desiredDefaultSnatStatus: {
    path: 'networkConfig.defaultSnatStatus',
    apply: 'replace',
    stored: withoutZeros(),
  },
  desiredPrivateIpv6GoogleAccess: {
    path: 'networkConfig.privateIpv6GoogleAccess',
    apply: 'replace',
    stored: zeroUnsets,
  },
  desiredL4ilbSubsettingConfig: {
    path: 'networkConfig.enableL4ilbSubsetting',
    apply: 'replace',
    check: l4ilbSubsettingCheck,
    stored: enabledFlag,
  },
  desiredGatewayApiConfig: {
    path: 'networkConfig.gatewayApiConfig',
    apply: 'replace',
    stored: withoutZeros(['channel']),
  },
  desiredServiceExternalIpsConfig: {
    path: 'networkConfig.serviceExternalIpsConfig',
    apply: 'replace',
    stored: withoutZeros(),
  },
  // `optional bool` / `optional` enum in NetworkConfig: a false or UNSPECIFIED value sent is kept.
  desiredEnableFqdnNetworkPolicy: {
    path: 'networkConfig.enableFqdnNetworkPolicy',
    apply: 'replace',
    check: needsDataplaneV2(
      'FQDN network policy',
      'update.desired_enable_fqdn_network_policy',
      (v) => v === true,
    ),
  },
  desiredEnableCiliumClusterwideNetworkPolicy: {
    path: 'networkConfig.enableCiliumClusterwideNetworkPolicy',
    apply: 'replace',
    check: needsDataplaneV2(
      'CiliumClusterwideNetworkPolicy',
      'update.desired_enable_cilium_clusterwide_network_policy',
      (v) => v === true,
    ),
  },
  desiredInTransitEncryptionConfig: {
    path: 'networkConfig.inTransitEncryptionConfig',
    apply: 'replace',
    check: needsDataplaneV2(
      'Inter-node transparent encryption',
      'update.desired_in_transit_encryption_config',
      (v) => v === 'IN_TRANSIT_ENCRYPTION_INTER_NODE_TRANSPARENT',
    ),
  },
};
