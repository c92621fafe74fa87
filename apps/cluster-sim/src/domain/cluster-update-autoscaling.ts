import type { FieldUpdate } from './cluster-field-update';
import { DEFAULT_OAUTH_SCOPES, isPlainObject, type Loose, mergeDeep } from './defaults';
import { fail, ok, type Result } from './errors';

/**
 * `desiredClusterAutoscaling`: the cluster's `autoscaling` (ClusterAutoscaling) replaced whole, as
 * Terraform's `cluster_autoscaling` block sends it. Node auto-provisioning creates node pools only for
 * pods that cannot be scheduled; the simulator runs no pods, so turning it on stores its settings and
 * creates nothing, as GKE does for a cluster without pending pods.
 *
 * What GKE answers for an auto-provisioning cluster (gcloud's describe of real clusters, public test
 * fixtures): `autoprovisioningNodePoolDefaults` filled in with the cluster's default OAuth scopes,
 * `serviceAccount: default`, surge upgrades of one node, auto-upgrade and auto-repair, 100 GB
 * `pd-balanced` disks, integrity monitoring and `COS_CONTAINERD`; resource limits as int64 strings
 * without a zero minimum; `autoscalingProfile` BALANCED unless another is set; a
 * `defaultComputeClassConfig` turned off as `{}`.
 */

/** The auto-provisioned pools' defaults GKE fills in (the ones sent win). */
const NAP_POOL_DEFAULTS: Loose = {
  oauthScopes: DEFAULT_OAUTH_SCOPES,
  serviceAccount: 'default',
  upgradeSettings: { maxSurge: 1, strategy: 'SURGE' },
  management: { autoUpgrade: true, autoRepair: true },
  diskSizeGb: 100,
  diskType: 'pd-balanced',
  shieldedInstanceConfig: { enableIntegrityMonitoring: true },
  imageType: 'COS_CONTAINERD',
};

/** Resource types GKE takes: CPU, memory, and accelerators by their Compute Engine type name. */
const RESOURCE_TYPE = /^(cpu|memory|nvidia-[a-z0-9-]+|tpu-[a-z0-9-]+|ct[0-9][a-z0-9-]*)$/;

function limitsOf(value: Loose): Loose[] {
  return Array.isArray(value.resourceLimits) ? value.resourceLimits.filter(isPlainObject) : [];
}

const invalid = (message: string): Result<void> =>
  fail({ code: 'INVALID_REQUEST', message, field: 'update.desired_cluster_autoscaling' });

/**
 * GKE's checks, with its texts: limits without auto-provisioning ("Resource limits are supported only
 * with node autoprovisioning.", aptos-labs/aptos-core#5645, 2022), an unknown resource ("Invalid
 * resource: accelerator.", hashicorp/terraform-provider-google#11589, 2022), auto-provisioning without
 * CPU and memory limits ("Resource limits for cpu, memory must be specified when enabling node
 * autoprovisioning.", hashicorp/terraform-provider-google#24232, 2025; with one of them given, the other
 * alone is named). A minimum above its maximum: the simulator's text (FIDELITY.md).
 */
function autoscalingCheck(value: unknown): Result<void> {
  if (!isPlainObject(value)) return ok(undefined);
  const limits = limitsOf(value);
  const provisioning = value.enableNodeAutoprovisioning === true;
  if (!provisioning && limits.length > 0)
    return invalid('Resource limits are supported only with node autoprovisioning.');
  for (const limit of limits) {
    const type = typeof limit.resourceType === 'string' ? limit.resourceType : '';
    if (!RESOURCE_TYPE.test(type)) return invalid(`Invalid resource: ${type}.`);
    const min = BigInt(String(limit.minimum ?? '0'));
    const max = BigInt(String(limit.maximum ?? '0'));
    if (min > max)
      return invalid(`Resource limit for ${type}: minimum ${min} is greater than maximum ${max}.`);
  }
  if (provisioning) {
    const given = new Set(limits.map((l) => l.resourceType));
    const missing = ['cpu', 'memory'].filter((t) => !given.has(t));
    if (missing.length > 0)
      return invalid(
        `Resource limits for ${missing.join(', ')} must be specified when enabling node autoprovisioning.`,
      );
  }
  return ok(undefined);
}

/** The fields of ClusterAutoscaling given their GKE form below; the others are kept as sent. */
const HANDLED = new Set([
  'enableNodeAutoprovisioning',
  'resourceLimits',
  'autoscalingProfile',
  'autoprovisioningNodePoolDefaults',
  'autoprovisioningLocations',
  'defaultComputeClassConfig',
]);

/** The ClusterAutoscaling GKE keeps for the one sent. */
function storedAutoscaling(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out: Loose = {};
  const provisioning = value.enableNodeAutoprovisioning === true;
  if (provisioning) out.enableNodeAutoprovisioning = true;
  const limits = limitsOf(value).map((limit) => {
    const kept: Loose = { resourceType: limit.resourceType };
    // int64 in JSON is a string; a zero is not kept (proto3).
    for (const key of ['minimum', 'maximum'] as const) {
      const n = BigInt(String(limit[key] ?? '0')).toString();
      if (n !== '0') kept[key] = n;
    }
    return kept;
  });
  if (limits.length > 0) out.resourceLimits = limits;
  const profile = value.autoscalingProfile;
  out.autoscalingProfile =
    typeof profile === 'string' && profile !== 'PROFILE_UNSPECIFIED' ? profile : 'BALANCED';
  if (provisioning) {
    const sent = isPlainObject(value.autoprovisioningNodePoolDefaults)
      ? value.autoprovisioningNodePoolDefaults
      : {};
    out.autoprovisioningNodePoolDefaults = mergeDeep(structuredClone(NAP_POOL_DEFAULTS), sent);
  }
  if (Array.isArray(value.autoprovisioningLocations) && value.autoprovisioningLocations.length > 0)
    out.autoprovisioningLocations = [...value.autoprovisioningLocations];
  if (isPlainObject(value.defaultComputeClassConfig))
    out.defaultComputeClassConfig = value.defaultComputeClassConfig.enabled === true ? { enabled: true } : {};
  // The message's other fields (`autopilotGeneralProfile`, …) are kept as sent, their zero values not.
  for (const [key, v] of Object.entries(value)) {
    if (HANDLED.has(key) || v === false || v === 0 || v === '') continue;
    if (typeof v === 'string' && v.endsWith('_UNSPECIFIED')) continue;
    out[key] = structuredClone(v);
  }
  return out;
}

export const AUTOSCALING_FIELD_UPDATES: Readonly<Record<string, FieldUpdate>> = {
  desiredClusterAutoscaling: {
    path: 'autoscaling',
    apply: 'replace',
    check: autoscalingCheck,
    stored: storedAutoscaling,
  },
};
