import type { UpdateClusterRequestShape } from '@sims/cluster-schema';
import { isPlainObject, type Loose } from './defaults';
import { fail, ok, type Result } from './errors';
import type { ClusterRecord, ClusterShape } from './state';

type ClusterUpdateShape = NonNullable<UpdateClusterRequestShape['update']>;

/**
 * How a ClusterUpdate field lands on the cluster: `replace` puts the message (or string) sent in place
 * of the cluster's; `perMessage` replaces each sub-message sent and keeps the ones not sent (gcloud
 * sends one addon, one monitoring or logging part at a time, e.g. `--update-addons`,
 * `--enable-managed-prometheus`, and the others stay as they were).
 */
interface FieldUpdate {
  field: keyof ClusterShape & string;
  apply: 'replace' | 'perMessage';
  /** GKE's checks of the value against the cluster, before any operation starts. */
  check?: (value: unknown, record: ClusterRecord) => Result<void>;
  /** The value as stored, when it differs from the one sent. */
  stored?: (value: unknown) => unknown;
}

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
  desiredLoggingService: { field: 'loggingService', apply: 'replace', check: serviceCheck('logging') },
  desiredMonitoringService: {
    field: 'monitoringService',
    apply: 'replace',
    check: serviceCheck('monitoring'),
  },
  desiredAddonsConfig: { field: 'addonsConfig', apply: 'perMessage' },
  desiredLoggingConfig: { field: 'loggingConfig', apply: 'perMessage' },
  desiredMonitoringConfig: { field: 'monitoringConfig', apply: 'perMessage' },
  desiredVerticalPodAutoscaling: { field: 'verticalPodAutoscaling', apply: 'replace' },
  desiredReleaseChannel: {
    field: 'releaseChannel',
    apply: 'replace',
    check: releaseChannelCheck,
    // `channel` is a plain proto3 enum: its zero value, UNSPECIFIED (no channel), is not kept.
    stored: (value) => (isPlainObject(value) && value.channel === 'UNSPECIFIED' ? {} : value),
  },
  desiredBinaryAuthorization: { field: 'binaryAuthorization', apply: 'replace' },
  desiredNotificationConfig: { field: 'notificationConfig', apply: 'replace' },
  desiredResourceUsageExportConfig: { field: 'resourceUsageExportConfig', apply: 'replace' },
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
 * they replace the cluster's when the operation is DONE.
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
    const value = rule.stored ? rule.stored(sent) : sent;
    const checked = rule.check?.(sent, record);
    if (checked && !checked.ok) return checked;
    if (rule.apply === 'replace' || !isPlainObject(value)) {
      out[rule.field] = structuredClone(value);
    } else {
      const before = isPlainObject(current[rule.field]) ? (current[rule.field] as Loose) : {};
      out[rule.field] = { ...structuredClone(before), ...structuredClone(value) };
    }
  }
  return ok(out as Partial<ClusterShape>);
}
