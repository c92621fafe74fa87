import type { UpdateClusterRequestShape } from '@sims/cluster-schema';
import type { FieldUpdate } from './cluster-field-update';
import { AUTOSCALING_FIELD_UPDATES } from './cluster-update-autoscaling';
import { CONTROL_PLANE_FIELD_UPDATES } from './cluster-update-control-plane';
import { ENDPOINT_FIELD_UPDATES } from './cluster-update-endpoints';
import { NETWORK_FIELD_UPDATES } from './cluster-update-network';
import { POOL_DEFAULT_FIELD_UPDATES } from './cluster-update-pool-defaults';
import { SECURITY_FIELD_UPDATES } from './cluster-update-security';
import { isPlainObject, type Loose } from './defaults';
import { fail, ok, type Result } from './errors';
import { checkNetworkPolicyAddon } from './network-policy';
import type { ClusterRecord, ClusterShape } from './state';

type ClusterUpdateShape = NonNullable<UpdateClusterRequestShape['update']>;

/**
 * The `loggingService` and `monitoringService` values ClusterUpdate's reference lists as available: the
 * legacy `logging.googleapis.com` / `monitoring.googleapis.com` are "no longer available as of GKE 1.15".
 */
const SERVICES = {
  logging: ['logging.googleapis.com/kubernetes', 'none'],
  monitoring: ['monitoring.googleapis.com/kubernetes', 'none'],
} as const;

/** The same text as the setLogging / setMonitoring setters answer. */
function serviceCheck(kind: keyof typeof SERVICES): FieldUpdate['check'] {
  const allowed: readonly string[] = SERVICES[kind];
  return (value) => {
    if (typeof value === 'string' && allowed.includes(value)) return ok(undefined);
    return fail({
      code: 'INVALID_REQUEST',
      message: `${kind === 'logging' ? 'Logging' : 'Monitoring'} service ${JSON.stringify(value)} is not supported; use "${allowed[0]}" or "none".`,
      field: `update.desired_${kind}_service`,
    });
  };
}

/**
 * A release channel keeps its pools' auto-upgrade and auto-repair on: the texts GKE answers on create
 * and setManagement (terraform-google-kubernetes-engine#682, binderhub-deploy-gke#29), here for the pool
 * that would break the rule.
 */
function releaseChannelCheck(value: unknown, record: ClusterRecord): Result<void> {
  const channel = isPlainObject(value) ? value.channel : undefined;
  if (typeof channel !== 'string' || channel === 'UNSPECIFIED') return ok(undefined);
  for (const p of record.pools.values()) {
    const autoUpgrade = p.pool.management?.autoUpgrade === true;
    const autoRepair = p.pool.management?.autoRepair === true;
    if (autoUpgrade && autoRepair) continue;
    const what =
      !autoUpgrade && !autoRepair
        ? 'Auto_upgrade and auto_repair'
        : autoUpgrade
          ? 'Auto_repair'
          : 'Auto_upgrade';
    return fail({
      code: 'INVALID_REQUEST',
      message: `${what} cannot be false when release_channel ${channel} is set.`,
    });
  }
  return ok(undefined);
}

/** The ClusterUpdate fields that change one field of the cluster, with an UPDATE_CLUSTER on the cluster. */
export const CLUSTER_FIELD_UPDATES: Readonly<Record<string, FieldUpdate>> = {
  desiredLoggingService: { path: 'loggingService', apply: 'replace', check: serviceCheck('logging') },
  desiredMonitoringService: {
    path: 'monitoringService',
    apply: 'replace',
    check: serviceCheck('monitoring'),
  },
  desiredAddonsConfig: {
    path: 'addonsConfig',
    apply: 'perMessage',
    check: (value, record) =>
      checkNetworkPolicyAddon(record.cluster, (value ?? {}) as Record<string, unknown>),
  },
  desiredLoggingConfig: { path: 'loggingConfig', apply: 'perMessage' },
  desiredMonitoringConfig: { path: 'monitoringConfig', apply: 'perMessage' },
  desiredVerticalPodAutoscaling: { path: 'verticalPodAutoscaling', apply: 'replace' },
  desiredReleaseChannel: {
    path: 'releaseChannel',
    apply: 'replace',
    check: releaseChannelCheck,
    // `channel` is a plain proto3 enum: its zero value, UNSPECIFIED (no channel), is not kept.
    stored: (value) => (isPlainObject(value) && value.channel === 'UNSPECIFIED' ? {} : value),
  },
  desiredBinaryAuthorization: { path: 'binaryAuthorization', apply: 'replace' },
  desiredNotificationConfig: { path: 'notificationConfig', apply: 'replace' },
  desiredResourceUsageExportConfig: { path: 'resourceUsageExportConfig', apply: 'replace' },
  // `hpaProfile` is an `optional` enum: kept as sent.
  desiredPodAutoscaling: { path: 'podAutoscaling', apply: 'replace' },
  ...NETWORK_FIELD_UPDATES,
  ...SECURITY_FIELD_UPDATES,
  ...POOL_DEFAULT_FIELD_UPDATES,
  ...ENDPOINT_FIELD_UPDATES,
  ...CONTROL_PLANE_FIELD_UPDATES,
  ...AUTOSCALING_FIELD_UPDATES,
};

/** Fields GKE takes together in one ClusterUpdate (recorded: Terraform sends both services at once). */
const TOGETHER: readonly (readonly string[])[] = [['desiredLoggingService', 'desiredMonitoringService']];

/** Whether these field-replacing ClusterUpdate fields may come in one request. */
export function fieldsGoTogether(fields: readonly string[]): boolean {
  if (fields.length <= 1) return true;
  return TOGETHER.some((group) => fields.every((f) => group.includes(f)));
}

/**
 * The cluster's new top-level fields for the given ClusterUpdate fields, checked as GKE checks them;
 * they replace the cluster's when the operation is DONE (a nested path changes a copy of its top-level
 * field, the rest of which stays as it is now: nothing else can change the cluster while the operation
 * runs).
 */
export function clusterFieldChanges(
  record: ClusterRecord,
  update: ClusterUpdateShape,
  fields: readonly string[],
): Result<Partial<ClusterShape>> {
  const out: Loose = {};
  const current = record.cluster as Loose;
  for (const name of fields) {
    const rule = CLUSTER_FIELD_UPDATES[name];
    if (!rule) continue;
    const sent = (update as Loose)[name];
    const checked = rule.check?.(sent, record);
    if (checked && !checked.ok) return checked;
    const stored = rule.stored ? rule.stored(sent) : sent;
    const writes: [string, unknown][] = rule.perPath
      ? Object.entries(rule.perPath(sent, record))
      : (typeof rule.path === 'string' ? [rule.path] : rule.path).map((p) => [p, stored]);
    for (const [path, value] of writes) {
      const [top = '', ...rest] = path.split('.');
      if (rest.length === 0) {
        out[top] = landed(current[top], value, rule.apply);
        continue;
      }
      const source = top in out ? out[top] : current[top];
      const root: Loose = isPlainObject(source) ? structuredClone(source) : {};
      let parent = root;
      for (const key of rest.slice(0, -1)) {
        if (!isPlainObject(parent[key])) parent[key] = {};
        parent = parent[key] as Loose;
      }
      const leaf = rest[rest.length - 1] as string;
      if (value === undefined) delete parent[leaf];
      else parent[leaf] = landed(parent[leaf], value, rule.apply);
      out[top] = root;
    }
  }
  return ok(out as Partial<ClusterShape>);
}

/** The value a field takes: the one sent, or (per message) the current one with the parts sent replaced. */
function landed(before: unknown, value: unknown, apply: FieldUpdate['apply']): unknown {
  if (apply === 'replace' || !isPlainObject(value)) return structuredClone(value);
  return { ...(isPlainObject(before) ? structuredClone(before) : {}), ...structuredClone(value) };
}
