import type {
  SetAddonsConfigRequestShape,
  SetLabelsRequestShape,
  SetMaintenancePolicyRequestShape,
  SetNetworkPolicyRequestShape,
} from '@sims/cluster-schema';
import type { ChangeApplier, ChangeOf } from './change-applier';
import { startClusterOperation } from './cluster-operation';
import { markNodesRecreated } from './cluster-rotation';
import type { DomainContext } from './context';
import { fail, type Result } from './errors';
import { labelFingerprint } from './etag';
import { checkMaintenancePolicy, policyVersion, storedPolicy } from './maintenance-policy';
import {
  checkDataplaneNetworkPolicy,
  checkNetworkPolicyAddon,
  networkPolicyAddonOn,
  networkPolicyOn,
} from './network-policy';
import { writePool } from './node-pools';
import type { ClusterRecord, ClusterShape, ClusterState, OperationRecord } from './state';

/**
 * The cluster setters (`setResourceLabels`, `setLegacyAbac`, `setMaintenancePolicy`, `setNetworkPolicy`,
 * `setLogging`, `setMonitoring`, `setAddons`). Each starts one UPDATE_CLUSTER operation on the cluster, the
 * type the proto gives them ("Unused. Updating labels uses UPDATE_CLUSTER", and so for master auth,
 * network and maintenance policy); it holds the whole cluster like clusters.update, and its fields land on
 * the cluster when the operation is DONE (nothing changes if it fails or is cancelled).
 */

/**
 * A `setCluster` change is DONE (these setters, clusters.update's field updates, setMasterAuth): its fields
 * replace the cluster's; a change that recreates every pool's nodes (network policy on or off) moves their
 * etags and counts as their recreation for an IP rotation.
 */
export const SET_CLUSTER_CHANGE: ChangeApplier<ChangeOf<'setCluster'>> = {
  apply({ change, record }) {
    Object.assign(record.cluster, change.fields);
    if (!change.recreatesNodes) return;
    for (const [name, p] of record.pools) {
      writePool(p, { ...p.pool }, { bump: true });
      markNodesRecreated(record, name);
    }
  },
};

/** Starts the setter's operation: the fields replace the cluster's top-level ones when DONE. */
function setFields(
  state: ClusterState,
  record: ClusterRecord,
  fields: Partial<ClusterShape>,
  ctx: DomainContext,
): Result<OperationRecord> {
  return startClusterOperation(state, record, 'UPDATE_CLUSTER', { kind: 'setCluster', fields }, ctx);
}

/**
 * setResourceLabels: the labels replace the cluster's; `labelFingerprint` must be the current one (an
 * absent one too: GKE's answer to a request without it is the same refusal, quoting `""`).
 */
export function setResourceLabels(
  state: ClusterState,
  record: ClusterRecord,
  body: SetLabelsRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const expected = labelFingerprint(record.cluster.resourceLabels);
  const given = body.labelFingerprint ?? '';
  if (given !== expected) {
    return fail({
      code: 'FAILED_PRECONDITION',
      message: `Labels could not be set due to fingerprint mismatch; try again with the proper fingerprint: incorrect fingerprint supplied was "${given}", the expected one is "${expected}".`,
    });
  }
  return setFields(state, record, { resourceLabels: { ...(body.resourceLabels ?? {}) } }, ctx);
}

/** setLegacyAbac: `{enabled: true}` is kept as such, off as the empty message GKE answers. */
export function setLegacyAbac(
  state: ClusterState,
  record: ClusterRecord,
  enabled: boolean | undefined,
  ctx: DomainContext,
): Result<OperationRecord> {
  return setFields(state, record, { legacyAbac: enabled ? { enabled: true } : {} }, ctx);
}

/**
 * setMaintenancePolicy: the policy replaces the cluster's ("An empty field clears the existing maintenance
 * policy"); a `resourceVersion` that is not the current one is refused, none is accepted; GKE's rules on
 * windows and exclusions (maintenance-policy.ts) refuse a policy before anything starts. The daily
 * window's output-only `duration` a client echoes is not kept (reads derive it).
 */
export function setMaintenancePolicy(
  state: ClusterState,
  record: ClusterRecord,
  body: SetMaintenancePolicyRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const given = (body.maintenancePolicy as Record<string, unknown> | undefined)?.resourceVersion;
  const expected = policyVersion(record.cluster.maintenancePolicy);
  if (typeof given === 'string' && given !== '' && given !== expected) {
    return fail({
      code: 'FAILED_PRECONDITION',
      message: `Maintenance policy resource version "${given}" does not match the current one "${expected}"; get the cluster and try again.`,
    });
  }
  const valid = checkMaintenancePolicy(body.maintenancePolicy, 'maintenance_policy', ctx.now);
  if (!valid.ok) return valid;
  const policy = storedPolicy(body.maintenancePolicy);
  return setFields(state, record, { maintenancePolicy: policy as ClusterShape['maintenancePolicy'] }, ctx);
}

/**
 * setNetworkPolicy: the policy replaces the cluster's. Turning enforcement on needs the NetworkPolicy addon
 * first (GKE's 400 `The network policy addon must be enabled before updating the nodes.`, quoted in
 * hashicorp/terraform-provider-google#860 and gke-labs/kube-agents#932; gcloud puts the addon and the
 * enforcement in separate calls for this reason). Turning it on or off recreates every node ("Enabling/
 * Disabling Network Policy causes a rolling update of all cluster nodes, similar to performing a cluster
 * upgrade", gcloud's `--enable-network-policy`): the pools' nodes count as recreated when DONE.
 */
export function setNetworkPolicy(
  state: ClusterState,
  record: ClusterRecord,
  body: SetNetworkPolicyRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const networkPolicy = { ...(body.networkPolicy ?? {}) };
  const enable = (networkPolicy as { enabled?: boolean }).enabled === true;
  const dataplane = checkDataplaneNetworkPolicy(record.cluster, enable);
  if (!dataplane.ok) return dataplane;
  if (enable && !networkPolicyAddonOn(record.cluster)) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'The network policy addon must be enabled before updating the nodes.',
    });
  }
  return startClusterOperation(
    state,
    record,
    'UPDATE_CLUSTER',
    {
      kind: 'setCluster',
      fields: { networkPolicy },
      recreatesNodes: enable !== networkPolicyOn(record.cluster),
    },
    ctx,
  );
}

/** The services a cluster may write logs or metrics to (the proto's list); empty means the first. */
const SERVICES = {
  logging: ['logging.googleapis.com/kubernetes', 'logging.googleapis.com', 'none'],
  monitoring: ['monitoring.googleapis.com/kubernetes', 'monitoring.googleapis.com', 'none'],
} as const;

/**
 * setLogging / setMonitoring: one of the proto's services; `logging.googleapis.com` /
 * `monitoring.googleapis.com` ("no longer available as of GKE 1.15") and other values are refused.
 */
export function setService(
  state: ClusterState,
  record: ClusterRecord,
  kind: 'logging' | 'monitoring',
  service: string | undefined,
  ctx: DomainContext,
): Result<OperationRecord> {
  const [current, legacy] = SERVICES[kind];
  const value = service === undefined || service === '' ? current : service;
  if (!(SERVICES[kind] as readonly string[]).includes(value) || value === legacy) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `${kind === 'logging' ? 'Logging' : 'Monitoring'} service "${value}" is not supported; use "${current}" or "none".`,
      field: `${kind}_service`,
    });
  }
  return setFields(
    state,
    record,
    kind === 'logging' ? { loggingService: value } : { monitoringService: value },
    ctx,
  );
}

/** setAddons: each addon sent replaces that addon's configuration; the others stay as they are. */
export function setAddons(
  state: ClusterState,
  record: ClusterRecord,
  body: SetAddonsConfigRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const sent = Object.entries(body.addonsConfig ?? {}).filter(([, v]) => v !== undefined);
  if (sent.length === 0) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'addons_config must set at least one addon.',
      field: 'addons_config',
    });
  }
  const addonsConfig = { ...(record.cluster.addonsConfig ?? {}), ...Object.fromEntries(sent) };
  const addon = checkNetworkPolicyAddon(record.cluster, Object.fromEntries(sent));
  if (!addon.ok) return addon;
  return setFields(state, record, { addonsConfig }, ctx);
}
