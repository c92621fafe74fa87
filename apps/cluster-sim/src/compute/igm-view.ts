import { COMPUTE_ROOT, type ManagedGroup } from './managed-groups';

/** Compute's resources for the node pools' managed instance groups, as its v1 API renders them. */

/** 64-bit FNV-1a of a text: stable ids and fingerprints from what a resource is (no stored counter). */
function fnv64(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

/** Compute's numeric resource id (a uint64 in decimal), stable for a resource's URL. */
export function resourceId(selfLink: string): string {
  return fnv64(selfLink).toString();
}

/** Compute's fingerprint: 8 bytes in base64 that change when the resource does. */
function fingerprint(content: string): string {
  const h = fnv64(content);
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(h);
  return bytes.toString('base64');
}

/** Compute's timestamps are RFC 3339 in Pacific time with milliseconds (`2026-01-01T00:00:00.000-08:00`). */
export function computeTimestamp(iso: string | undefined): string {
  const t = iso ? Date.parse(iso) : 0;
  const pacific = new Date((Number.isFinite(t) ? t : 0) - 8 * 3600_000).toISOString();
  return `${pacific.slice(0, 23)}-08:00`;
}

export function zoneUrl(project: string, zone: string): string {
  return `${COMPUTE_ROOT}/projects/${project}/zones/${zone}`;
}

/** The managers' base instance name: the group's name without `-grp` (GKE's node names start with it). */
export function baseInstanceName(name: string): string {
  return name.replace(/-grp$/, '');
}

const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The name of the group's `i`-th node, as GKE names nodes: `{baseInstanceName}-{4 characters}`. */
export function instanceName(group: ManagedGroup, i: number): string {
  let h = fnv64(`${group.project}/${group.zone}/${group.name}/${i}`);
  let suffix = '';
  for (let k = 0; k < 4; k++) {
    suffix += NAME_CHARS[Number(h % 36n)];
    h /= 36n;
  }
  return `${baseInstanceName(group.name)}-${suffix}`;
}

/** The actions Compute counts on a manager's instances (every field, zero when nothing does it). */
function currentActions(g: ManagedGroup) {
  return {
    abandoning: 0,
    creating: g.creating,
    creatingWithoutRetries: 0,
    deleting: 0,
    none: Math.max(0, g.targetSize - g.recreating),
    recreating: g.recreating,
    refreshing: 0,
    restarting: 0,
    resuming: 0,
    starting: 0,
    stopping: 0,
    suspending: 0,
    verifying: 0,
  };
}

/** An InstanceGroupManager (`kind: compute#instanceGroupManager`) of a node pool's zone. */
export function renderManager(g: ManagedGroup) {
  const zone = zoneUrl(g.project, g.zone);
  const selfLink = `${zone}/instanceGroupManagers/${g.name}`;
  const template = `${COMPUTE_ROOT}/projects/${g.project}/global/instanceTemplates/${baseInstanceName(g.name)}`;
  const stable = g.creating === 0 && g.recreating === 0;
  const content = JSON.stringify([g.targetSize, g.creating, g.recreating, g.pool.version, template]);
  return {
    kind: 'compute#instanceGroupManager',
    id: resourceId(selfLink),
    creationTimestamp: computeTimestamp(g.cluster.cluster.createTime),
    name: g.name,
    zone,
    instanceTemplate: template,
    versions: [{ instanceTemplate: template, targetSize: { calculated: g.targetSize } }],
    instanceGroup: `${zone}/instanceGroups/${g.name}`,
    baseInstanceName: baseInstanceName(g.name),
    fingerprint: fingerprint(content),
    currentActions: currentActions(g),
    status: {
      isStable: stable,
      versionTarget: { isReached: stable },
      stateful: { hasStatefulConfig: false, perInstanceConfigs: { allEffective: true } },
    },
    targetSize: g.targetSize,
    listManagedInstancesResults: 'PAGELESS',
    selfLink,
    updatePolicy: {
      type: 'OPPORTUNISTIC',
      instanceRedistributionType: 'NONE',
      minimalAction: 'REPLACE',
      maxSurge: { fixed: 1, calculated: 1 },
      maxUnavailable: { fixed: 0, calculated: 0 },
      replacementMethod: 'SUBSTITUTE',
    },
  };
}
