import type { NodeConfig, NodePoolAutoscaling } from '@sims/cluster-schema';
import { isPlainObject } from '@sims/sim-core';
import type { z } from 'zod';
import { isZone } from './names';
import type { NodePoolShape } from './state';
import { poolVersionDefaults } from './version-defaults';

type NodeConfigShape = z.infer<typeof NodeConfig>;
type Autoscaling = z.infer<typeof NodePoolAutoscaling>;
/** A message as stored: the schema may not (yet) name every field GKE returns. */
export type Loose = Record<string, unknown>;

/**
 * GKE's defaults for clusters and node pools, from real recordings (docs/research/gke-recordings.md:
 * the clusters.get/nodePools.get of gcloud's node pool crud log at GKE 1.33, of Config Connector's
 * containernodepool-swap and -kubeletconfig logs at 1.34 and 1.35, the raw 2024 Terraform cassette);
 * those that depend on the GKE version are in version-defaults.ts.
 */

/** The six scopes GKE gives nodes by default. */
export const DEFAULT_OAUTH_SCOPES = [
  'https://www.googleapis.com/auth/devstorage.read_only',
  'https://www.googleapis.com/auth/logging.write',
  'https://www.googleapis.com/auth/monitoring',
  'https://www.googleapis.com/auth/service.management.readonly',
  'https://www.googleapis.com/auth/servicecontrol',
  'https://www.googleapis.com/auth/trace.append',
];

/** Zones of a location: a zone is itself; a region gets its `-a`, `-b`, `-c` zones. */
export function zonesOf(location: string): string[] {
  return isZone(location) ? [location] : ['a', 'b', 'c'].map((z) => `${location}-${z}`);
}

export function regionOf(location: string): string {
  return isZone(location) ? location.split('-').slice(0, 2).join('-') : location;
}

// One definition for both apps (sim-core); the domain's loose-record helpers are read from here.
export { isPlainObject };

/**
 * `over` merged into `base`: messages field by field (deeply), anything else (scalars, lists, maps
 * given as a whole) replaced; undefined leaves the base value.
 */
export function mergeDeep<T>(base: T, over: unknown): T {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return structuredClone(over) as T;
  const out: Loose = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    out[k] = k in base ? mergeDeep(base[k], v) : structuredClone(v);
  }
  return out as T;
}

/** The kubelet settings GKE adds to every node config (merged under the caller's). */
const KUBELET_DEFAULTS = { insecureKubeletReadonlyPortEnabled: false, maxParallelImagePulls: 2 };

/** A kubeletConfig as GKE stores it: the caller's fields over GKE's defaults (recorded, 1.35). */
export function withKubeletDefaults<T extends object>(given: T | undefined): T {
  return { ...KUBELET_DEFAULTS, ...(given ?? {}) } as T;
}

/**
 * The config a node pool gets: the caller's fields over the real defaults recorded from GKE (e2-medium,
 * 100 GB pd-balanced, COS_CONTAINERD, the six scopes, …; hyperdisk-balanced for n4). Maps GKE adds to
 * (metadata, resourceLabels, kubeletConfig) keep the caller's entries beside GKE's.
 */
function defaultNodeConfig(given: NodeConfigShape = {}): NodeConfigShape {
  const machineType = given.machineType || 'e2-medium';
  const diskType = given.diskType || (machineType.startsWith('n4-') ? 'hyperdisk-balanced' : 'pd-balanced');
  const diskSizeGb = given.diskSizeGb || 100;
  // The provisioning model label: recorded "on-demand"; the spot/preemptible values are inferred.
  const model = given.spot ? 'spot' : given.preemptible ? 'preemptible' : 'on-demand';
  return {
    machineType,
    diskSizeGb,
    oauthScopes: DEFAULT_OAUTH_SCOPES,
    serviceAccount: 'default',
    imageType: 'COS_CONTAINERD',
    shieldedInstanceConfig: { enableIntegrityMonitoring: true },
    windowsNodeConfig: {},
    effectiveCgroupMode: 'EFFECTIVE_CGROUP_MODE_V2',
    ...given,
    diskType,
    metadata: { 'disable-legacy-endpoints': 'true', ...(given.metadata ?? {}) },
    kubeletConfig: withKubeletDefaults(given.kubeletConfig),
    resourceLabels: { ...(given.resourceLabels ?? {}), 'goog-gke-node-pool-provisioning-model': model },
    bootDisk: { diskType, sizeGb: String(diskSizeGb), ...(given.bootDisk ?? {}) },
  };
}

/**
 * A NodePoolAutoscaling as a pool stores it: undefined when autoscaling is off (GKE leaves the field
 * out), else the non-zero counts given, with `locationPolicy` BALANCED unless set (recorded).
 */
export function storedAutoscaling(a: Autoscaling | undefined): Autoscaling | undefined {
  if (!a?.enabled) return undefined;
  const stored: Autoscaling = { enabled: true };
  for (const field of ['minNodeCount', 'maxNodeCount', 'totalMinNodeCount', 'totalMaxNodeCount'] as const) {
    const v = a[field];
    if (v !== undefined && v !== 0) stored[field] = v;
  }
  if (a.autoprovisioned) stored.autoprovisioned = true;
  stored.locationPolicy =
    a.locationPolicy && a.locationPolicy !== 'LOCATION_POLICY_UNSPECIFIED' ? a.locationPolicy : 'BALANCED';
  return stored;
}

export interface PoolContext {
  projectId: string;
  location: string;
  cluster: string;
  clusterLocations: string[];
  /** The pool's explicit version (an alias already resolved); its version-keyed defaults follow it. */
  version: string;
  /** 8 hex digits for the pool's instance group names. */
  hash: string;
  /** The cluster's pod range (its secondary range and CIDR) and subnetwork, which pools inherit. */
  podRange?: string;
  podIpv4CidrBlock?: string;
  subnetwork?: string;
}

/**
 * The name of a pool's instance group manager: "gke-" + cluster + "-" + pool + "-" + 8 hex + "-grp",
 * the names cut to 32 characters together (recorded: a 28-character cluster name with default-pool
 * keeps 20; two long names keep 16 each, a cut may end in "-").
 */
function instanceGroupName(cluster: string, pool: string, hash: string): string {
  let p = pool.length;
  let c = cluster.length;
  if (c + p > 32) {
    p = Math.min(p, Math.max(16, 32 - c));
    c = Math.min(c, 32 - p);
  }
  return `gke-${cluster.slice(0, c)}-${pool.slice(0, p)}-${hash}-grp`;
}

/** The Compute instance group managers of a pool's nodes, one per zone (a blue-green upgrade makes new ones). */
export function instanceGroupUrls(
  projectId: string,
  cluster: string,
  pool: string,
  zones: readonly string[],
  hash: string,
): string[] {
  const name = instanceGroupName(cluster, pool, hash);
  return zones.map(
    (zone) =>
      `https://www.googleapis.com/compute/v1/projects/${projectId}/zones/${zone}/instanceGroupManagers/${name}`,
  );
}

/** The pod CIDR size of a node for its max pods: twice the pods, rounded up to a power of two (110 → /24). */
function podCidrSize(maxPods: number): number {
  return 32 - Math.ceil(Math.log2(Math.max(1, 2 * maxPods)));
}

/** A node pool as GKE creates it from a (partial) NodePool input, at its own version's defaults. */
export function defaultNodePool(input: NodePoolShape & { name: string }, ctx: PoolContext): NodePoolShape {
  const locations = input.locations && input.locations.length > 0 ? input.locations : ctx.clusterLocations;
  const { autoscaling: givenAutoscaling, initialNodeCount: givenCount, ...rest } = input;
  const autoscaling = storedAutoscaling(givenAutoscaling);
  // An autoscaled pool created without a count has none (recorded); other pools get one node per zone.
  const initialNodeCount = givenCount ?? (autoscaling ? undefined : 1);
  const maxPods = Number(input.maxPodsConstraint?.maxPodsPerNode ?? 110) || 110;
  // `ctx.version` is the pool's explicit version: the caller resolves an alias (`1.33`, `latest`) in the input.
  const versioned = poolVersionDefaults(ctx.version);
  const strategy = input.upgradeSettings?.strategy;
  const upgradeSettings =
    strategy === undefined || strategy === 'SURGE' || strategy === 'NODE_POOL_UPDATE_STRATEGY_UNSPECIFIED'
      ? { maxSurge: 1, ...(input.upgradeSettings ?? {}), strategy: 'SURGE' as const }
      : input.upgradeSettings;
  return {
    ...(initialNodeCount !== undefined ? { initialNodeCount } : {}),
    ...(autoscaling ? { autoscaling } : {}),
    management: { autoUpgrade: true, autoRepair: true },
    maxPodsConstraint: { maxPodsPerNode: String(maxPods) },
    podIpv4CidrSize: podCidrSize(maxPods),
    instanceGroupUrls: instanceGroupUrls(ctx.projectId, ctx.cluster, input.name, locations, ctx.hash),
    status: 'RUNNING',
    ...rest,
    upgradeSettings,
    networkConfig: {
      ...(versioned.networkConfig as Loose | undefined),
      podIpv4CidrBlock: ctx.podIpv4CidrBlock ?? '10.4.0.0/14',
      podRange: ctx.podRange ?? `gke-${ctx.cluster}-pods-${ctx.hash}`,
      subnetwork:
        ctx.subnetwork ?? `projects/${ctx.projectId}/regions/${regionOf(ctx.location)}/subnetworks/default`,
      ...(input.networkConfig ?? {}),
    } as NodePoolShape['networkConfig'],
    version: ctx.version,
    locations,
    config: defaultNodeConfig(input.config),
  } as NodePoolShape;
}
