import type { UpdateNodePoolRequestShape } from '@sims/cluster-schema';
import { withKubeletDefaults } from './defaults';
import { computeEtag } from './etag';
import { deepFreeze } from './freeze';
import { type ApiVersion, nodePoolSelfLink } from './names';
import { liveOperationsOf } from './operations-live';
import type { ClusterRecord, ClusterState, NodePoolShape, PoolDerived, PoolRecord } from './state';
import { compareVersions } from './versions';

/** The request fields that count as "something to update", with their proto names (for the real message). */
const UPDATABLE_FIELDS: readonly (keyof UpdateNodePoolRequestShape)[] = [
  'nodeVersion',
  'imageType',
  'locations',
  'workloadMetadataConfig',
  'upgradeSettings',
  'kubeletConfig',
  'linuxNodeConfig',
  'tags',
  'taints',
  'labels',
  'nodeNetworkConfig',
  'gcfsConfig',
  'gvnic',
  'confidentialNodes',
  'loggingConfig',
  'fastSocket',
  'resourceLabels',
  'accelerators',
  'windowsNodeConfig',
  'machineType',
  'diskType',
  'diskSizeGb',
  'storagePools',
  'containerdConfig',
  'resourceManagerTags',
  'queuedProvisioning',
  'maxRunDuration',
  'flexStart',
  'bootDisk',
  'nodeDrainConfig',
  'consolidationDelay',
  'taintConfig',
  'maintenancePolicy',
];

/** The real text of the empty-update error (GKE, late 2024; terraform-provider-google#19225). */
export const EMPTY_UPDATE_MESSAGE =
  "At least one of ['node_version', 'image_type', 'updated_node_pool', 'locations', 'workload_metadata_config', 'upgrade_settings', 'kubelet_config', 'linux_node_config', 'tags', 'taints', 'labels', 'node_network_config', 'gcfs_config', 'gvnic', 'confidential_nodes', 'logging_config', 'fast_socket', 'resource_labels', 'accelerators', 'windows_node_config', 'machine_type', 'disk_type', 'disk_size_gb', 'storage_pools', 'containerd_config', 'resource_manager_tags', 'performance_monitoring_unit', 'queued_provisioning', 'max_run_duration'] must be specified.";

/** proto3: an empty string or "0" is the default value, i.e. not set. */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && value !== '0';
}

export function hasUpdatableField(req: UpdateNodePoolRequestShape): boolean {
  return UPDATABLE_FIELDS.some((field) => isSet(req[field]));
}

/**
 * Applies an update to a pool: absent fields stay; the wrapper messages (tags, taints, labels,
 * resourceLabels, resourceManagerTags) and storagePools replace the whole set; each field lands where
 * GKE puts it (most under `config`, upgradeSettings/locations/queuedProvisioning/nodeDrainConfig at the
 * top, nodeNetworkConfig in `networkConfig`).
 *
 * @example applyNodePoolUpdate(pool, { taints: { taints: [] } }, pool.version) // clears config.taints
 */
export function applyNodePoolUpdate(
  pool: NodePoolShape,
  req: UpdateNodePoolRequestShape,
  resolvedVersion: string | undefined,
): NodePoolShape {
  const next: NodePoolShape = structuredClone(pool);
  const config = { ...(next.config ?? {}) };
  if (resolvedVersion !== undefined) next.version = resolvedVersion;
  if (isSet(req.imageType)) config.imageType = req.imageType;
  if (isSet(req.machineType)) config.machineType = req.machineType;
  if (isSet(req.diskType)) config.diskType = req.diskType;
  if (isSet(req.diskSizeGb)) config.diskSizeGb = Number(req.diskSizeGb);
  const direct = [
    'workloadMetadataConfig',
    'kubeletConfig',
    'linuxNodeConfig',
    'gcfsConfig',
    'gvnic',
    'fastSocket',
    'loggingConfig',
    'windowsNodeConfig',
    'accelerators',
    'containerdConfig',
    'confidentialNodes',
    'bootDisk',
    'storagePools',
    'maxRunDuration',
    'flexStart',
    'taintConfig',
    'consolidationDelay',
  ] as const;
  for (const field of direct) {
    if (req[field] !== undefined) (config as Record<string, unknown>)[field] = structuredClone(req[field]);
  }
  // The kubelet config is replaced as a whole, then GKE's defaults are applied again (recorded).
  if (req.kubeletConfig !== undefined) config.kubeletConfig = withKubeletDefaults(config.kubeletConfig);
  if (req.tags !== undefined) config.tags = [...(req.tags.tags ?? [])];
  if (req.taints !== undefined) config.taints = structuredClone(req.taints.taints ?? []);
  if (req.labels !== undefined) config.labels = { ...(req.labels.labels ?? {}) };
  // NodeConfig.resourceLabels is a plain map; the request wraps it in {labels}.
  if (req.resourceLabels !== undefined) config.resourceLabels = { ...(req.resourceLabels.labels ?? {}) };
  if (req.resourceManagerTags !== undefined)
    config.resourceManagerTags = { tags: { ...(req.resourceManagerTags.tags ?? {}) } };
  next.config = config;
  if (req.upgradeSettings !== undefined) next.upgradeSettings = structuredClone(req.upgradeSettings);
  if (req.locations !== undefined && req.locations.length > 0) next.locations = [...req.locations];
  if (req.queuedProvisioning !== undefined) next.queuedProvisioning = { ...req.queuedProvisioning };
  if (req.nodeDrainConfig !== undefined) next.nodeDrainConfig = { ...req.nodeDrainConfig };
  if (req.maintenancePolicy !== undefined) next.maintenancePolicy = structuredClone(req.maintenancePolicy);
  if (req.nodeNetworkConfig !== undefined)
    next.networkConfig = { ...(next.networkConfig ?? {}), ...req.nodeNetworkConfig };
  return next;
}

/**
 * The etag of a pool: a checksum of everything stored about it (or the etag a seed pinned). Kept on the
 * record until the pool or its generation changes: hashing the canonical JSON on every read and every etag
 * check was a quarter of the CPU of `PUT` with a stale etag (bench/).
 */
export function nodePoolEtag(record: PoolRecord): string {
  if (record.pinnedEtag !== undefined) return record.pinnedEtag;
  return derivedOf(record).etag;
}

function derivedOf(record: PoolRecord): PoolDerived {
  const d = record.derived;
  if (d !== undefined && d.pool === record.pool && d.generation === record.generation) return d;
  const fresh: PoolDerived = {
    pool: record.pool,
    generation: record.generation,
    etag: computeEtag(record.pool, record.generation),
  };
  record.derived = fresh;
  return fresh;
}

/**
 * Every write to a stored pool goes through here: a pinned etag is dropped and, for writes that may
 * leave the content as it was (a same-version recreate, a concurrent writer), the generation moves so
 * the etag changes anyway.
 */
export function writePool(record: PoolRecord, pool: NodePoolShape, options: { bump?: boolean } = {}): void {
  record.pool = pool;
  delete record.pinnedEtag;
  if (options.bump) record.generation++;
}

/** Nodes an operation on the pool works through: per-zone count times zones. */
export function nodeCount(pool: NodePoolShape): number {
  return (pool.initialNodeCount ?? 0) * Math.max(1, pool.locations?.length ?? 1);
}

const KEEP_FALSE = new Set([
  'insecureKubeletReadonlyPortEnabled',
  'flexStart',
  'enablePrivateNodes',
  'cpuCfsQuota',
  // DNSEndpointConfig's proto3 optional booleans (recorded false in clusters.get).
  'allowExternalTraffic',
  'enableK8sTokensViaDns',
  'enableK8sCertsViaDns',
  // NetworkConfig's `optional bool`s and MeshCertificates' BoolValue: a false set is answered.
  'enableFqdnNetworkPolicy',
  'enableCiliumClusterwideNetworkPolicy',
  'enableCertificates',
  'defaultEnablePrivateNodes',
  // MasterAuthorizedNetworksConfig's `optional bool`s: a false set is answered false.
  'gcpPublicCidrsAccessEnabled',
  'privateEndpointEnforcementEnabled',
]);

/**
 * The `map<string, string>` fields of the container API's messages (protos.json: `labels`, `metadata`,
 * `resourceLabels`, `sysctls`, ResourceManagerTags' `tags`): proto3 JSON writes every entry of a map,
 * an empty value too (a Kubernetes label may be empty). NodeConfig's `tags` is a list, told apart by its
 * shape.
 */
const STRING_MAPS = new Set(['labels', 'metadata', 'resourceLabels', 'sysctls', 'tags']);

/**
 * proto3 JSON output: default-valued scalars and empty lists are omitted, but not the entries of a
 * map; empty messages stay (the recordings show `"legacyAbac": {}`); proto3 `optional` booleans keep an
 * explicit false.
 */
export function omitDefaults<T>(value: T, key?: string): T {
  if (Array.isArray(value)) return value.map((v) => omitDefaults(v)) as T;
  if (key !== undefined && STRING_MAPS.has(key) && value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      if (typeof v === 'string') out[k] = v;
    return out as T;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined || v === null || v === '') continue;
      if (Array.isArray(v) && v.length === 0) continue;
      if ((v === 0 || v === false) && !KEEP_FALSE.has(k)) continue;
      out[k] = omitDefaults(v, k);
    }
    return out as T;
  }
  void key;
  return value;
}

/**
 * The COS image GKE boots a pool's nodes from (v1beta1's `config.nodeImageConfig`), named after the
 * node version (recorded: 1.35.5-gke.1241004 → "gke-1355-gke1241004-cos-125-19216-395-7-c-pre"; the
 * COS build part is the recorded one for every version). None for other image types or a custom image.
 */
function nodeImageConfig(pool: NodePoolShape): { image: string; imageProject: string } | undefined {
  const config = pool.config as (NodePoolShape['config'] & { nodeImageConfig?: unknown }) | undefined;
  if (config?.nodeImageConfig !== undefined) return undefined;
  const imageType = config?.imageType ?? 'COS_CONTAINERD';
  const m = /^(\d+)\.(\d+)\.(\d+)-gke\.(\d+)$/.exec(pool.version ?? '');
  if (!m || (imageType !== 'COS_CONTAINERD' && imageType !== 'COS')) return undefined;
  return {
    image: `gke-${m[1]}${m[2]}${m[3]}-gke${m[4]}-cos-125-19216-395-7-c-pre`,
    imageProject: 'gke-node-images',
  };
}

/** The pool as the API answers it (deep-frozen and shared: copy it to change it). */
export function renderNodePool(
  record: ClusterRecord,
  poolRecord: PoolRecord,
  version: ApiVersion,
): NodePoolShape {
  const pool = poolRecord.pool;
  const selfLink = nodePoolSelfLink(version, record.projectId, record.location, record.name, pool.name ?? '');
  const etag = nodePoolEtag(poolRecord);
  // The last rendering stays right while the pool, its etag and its self link are the same: rendering a
  // pool per GET was a fifth of the request's cost (bench/).
  const derived = derivedOf(poolRecord);
  const last = derived.rendered;
  if (last !== undefined && last.selfLink === selfLink && last.etag === etag) return last.value;
  // NodeConfig.nodeImageConfig is v1beta1's only: v1 leaves it out, v1beta1 names the node image.
  let config = pool.config as (NodePoolShape['config'] & { nodeImageConfig?: unknown }) | undefined;
  if (version === 'v1' && config?.nodeImageConfig !== undefined) {
    const { nodeImageConfig: _, ...rest } = config;
    config = rest;
  }
  const image = version === 'v1beta1' ? nodeImageConfig(pool) : undefined;
  if (image) config = { ...config, nodeImageConfig: image };
  const value = deepFreeze(omitDefaults({ ...pool, ...(config ? { config } : {}), selfLink, etag }));
  derived.rendered = { selfLink, etag, value };
  return value;
}

/**
 * Keeps the cluster consistent with its pools: `currentNodeVersion` is the lowest pool version, the
 * deprecated `nodeConfig` mirrors the default pool, and the status is RECONCILING while work runs.
 */
export function refreshCluster(state: ClusterState, record: ClusterRecord): void {
  const versions = [...record.pools.values()]
    .map((p) => p.pool.version)
    .filter((v): v is string => Boolean(v));
  if (versions.length > 0) record.cluster.currentNodeVersion = versions.sort(compareVersions)[0];
  else delete record.cluster.currentNodeVersion;
  const defaultPool = record.pools.get('default-pool');
  if (defaultPool?.pool.config) record.cluster.nodeConfig = defaultPool.pool.config;
  else delete record.cluster.nodeConfig;
  // The cluster's own running operations (operations-live.ts): a scan of the world's (up to 10,000) per
  // pool change was most of its cost in a busy world.
  const live = liveOperationsOf(state, record);
  // Nodes a rollout adds for a while: surge nodes, the green pool beside the blue one.
  const extra = live.reduce((sum, op) => sum + (op.rollout?.steps[op.rollout.reached]?.extraNodes ?? 0), 0);
  record.cluster.currentNodeCount =
    [...record.pools.values()].reduce((sum, p) => sum + nodeCount(p.pool), 0) + extra;
  const status = record.cluster.status;
  if (status === 'RUNNING' || status === 'RECONCILING') {
    record.cluster.status = live.length > 0 ? 'RECONCILING' : 'RUNNING';
  }
}
