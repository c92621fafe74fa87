import type { NodeConfig } from '@sims/cluster-schema';
import type { z } from 'zod';
import { isZone } from './names';
import type { ClusterShape, NodePoolShape } from './state';

type NodeConfigShape = z.infer<typeof NodeConfig>;

/** The six scopes GKE gives nodes by default. */
const DEFAULT_OAUTH_SCOPES = [
  'https://www.googleapis.com/auth/devstorage.read_only',
  'https://www.googleapis.com/auth/logging.write',
  'https://www.googleapis.com/auth/monitoring',
  'https://www.googleapis.com/auth/service.management.readonly',
  'https://www.googleapis.com/auth/servicecontrol',
  'https://www.googleapis.com/auth/trace.append',
];

/** Zones of a location: a zone is itself; a region gets its `-a`, `-b`, `-c` zones. */
function zonesOf(location: string): string[] {
  return isZone(location) ? [location] : ['a', 'b', 'c'].map((z) => `${location}-${z}`);
}

export function regionOf(location: string): string {
  return isZone(location) ? location.split('-').slice(0, 2).join('-') : location;
}

/**
 * The config a node pool gets when the caller leaves fields out: the real defaults recorded from GKE
 * (e2-medium, 100 GB pd-balanced, COS_CONTAINERD, the six scopes, …; hyperdisk-balanced for n4).
 */
function defaultNodeConfig(given: NodeConfigShape = {}): NodeConfigShape {
  const machineType = given.machineType ?? 'e2-medium';
  const diskType = given.diskType ?? (machineType.startsWith('n4-') ? 'hyperdisk-balanced' : 'pd-balanced');
  const diskSizeGb = given.diskSizeGb ?? 100;
  return {
    machineType,
    diskSizeGb,
    oauthScopes: DEFAULT_OAUTH_SCOPES,
    serviceAccount: 'default',
    metadata: { 'disable-legacy-endpoints': 'true' },
    imageType: 'COS_CONTAINERD',
    diskType,
    shieldedInstanceConfig: { enableIntegrityMonitoring: true },
    kubeletConfig: { insecureKubeletReadonlyPortEnabled: false, maxParallelImagePulls: 2 },
    resourceLabels: { 'goog-gke-node-pool-provisioning-model': 'on-demand' },
    windowsNodeConfig: {},
    effectiveCgroupMode: 'EFFECTIVE_CGROUP_MODE_V2',
    bootDisk: { diskType, sizeGb: String(diskSizeGb) },
    ...given,
  };
}

export interface PoolContext {
  projectId: string;
  location: string;
  cluster: string;
  clusterLocations: string[];
  version: string;
  /** 8 hex digits for the generated instance group and pod range names. */
  hash: string;
}

/** The Compute instance group managers of a pool's nodes, one per zone (a blue-green upgrade makes new ones). */
export function instanceGroupUrls(
  projectId: string,
  cluster: string,
  pool: string,
  zones: readonly string[],
  hash: string,
): string[] {
  return zones.map(
    (zone) =>
      `https://www.googleapis.com/compute/v1/projects/${projectId}/zones/${zone}/instanceGroupManagers/gke-${cluster}-${pool}-${hash}-grp`,
  );
}

/** A node pool as GKE creates it from a (partial) NodePool input. */
export function defaultNodePool(input: NodePoolShape & { name: string }, ctx: PoolContext): NodePoolShape {
  const locations = input.locations && input.locations.length > 0 ? input.locations : ctx.clusterLocations;
  return {
    autoscaling: {},
    initialNodeCount: 1,
    management: { autoUpgrade: true, autoRepair: true },
    maxPodsConstraint: { maxPodsPerNode: '110' },
    podIpv4CidrSize: 24,
    upgradeSettings: { maxSurge: 1, strategy: 'SURGE' },
    networkConfig: {
      podRange: `gke-${ctx.cluster}-pods-${ctx.hash}`,
      podIpv4CidrBlock: '10.4.0.0/14',
      subnetwork: `projects/${ctx.projectId}/regions/${regionOf(ctx.location)}/subnetworks/default`,
    },
    instanceGroupUrls: instanceGroupUrls(ctx.projectId, ctx.cluster, input.name, locations, ctx.hash),
    status: 'RUNNING',
    ...input,
    version: input.version ?? ctx.version,
    locations,
    config: defaultNodeConfig(input.config),
  };
}

/** A cluster as GKE creates it, without its pools. */
export function defaultCluster(
  input: ClusterShape & { name: string },
  ctx: {
    projectId: string;
    location: string;
    masterVersion: string;
    now: string;
    id: string;
    endpoint: string;
  },
): ClusterShape {
  const { nodePools: _pools, ...rest } = input;
  return {
    network: 'default',
    subnetwork: 'default',
    clusterIpv4Cidr: '10.4.0.0/14',
    servicesIpv4Cidr: '34.118.224.0/20',
    nodeIpv4CidrSize: 24,
    releaseChannel: { channel: 'REGULAR' },
    endpoint: ctx.endpoint,
    status: 'RUNNING',
    ...rest,
    id: ctx.id,
    location: ctx.location,
    zone: ctx.location,
    locations: input.locations && input.locations.length > 0 ? input.locations : zonesOf(ctx.location),
    initialClusterVersion: ctx.masterVersion,
    currentMasterVersion: ctx.masterVersion,
    createTime: ctx.now,
  };
}
