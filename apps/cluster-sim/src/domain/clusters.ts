import { betaOnlyFields, Cluster, type CreateClusterRequestShape } from '@sims/cluster-schema';
import { type ChangeApplier, type ChangeEnd, type ChangeOf, showPoolFailure } from './change-applier';
import { clusterNetworkPath, defaultCluster } from './cluster-defaults';
import { checkCreateRequest } from './cluster-request-rules';
import { admit, type DomainContext } from './context';
import { fail, ok, type Result } from './errors';
import { computeEtag, labelFingerprint } from './etag';
import { checkMaintenancePolicy, renderPolicy } from './maintenance-policy';
import { type ApiVersion, clusterSelfLink, isZone, projectNumber } from './names';
import { nodeCount, omitDefaults, refreshCluster, renderNodePool, writePool } from './node-pools';
import { createOperation } from './operations';
import { type PodRanges, podRangesOf } from './pod-ranges';
import { seededPool } from './pool-requests';
import type { ClusterRecord, ClusterShape, ClusterState, OperationRecord } from './state';
import { clusterKey } from './state';
import { timestamp } from './timestamp';
import { resolveMasterVersion } from './versions';

/** Where a request points: the project as given (id or number), the location, the cluster. */
export interface ClusterRef {
  project: string;
  location: string;
  cluster: string;
}

export function findCluster(state: ClusterState, projectId: string, ref: ClusterRef): Result<ClusterRecord> {
  const record = state.clusters.get(clusterKey(projectId, ref.location, ref.cluster));
  if (!record) {
    return fail({
      code: 'CLUSTER_NOT_FOUND',
      project: ref.project,
      location: ref.location,
      cluster: ref.cluster,
    });
  }
  return ok(record);
}

/**
 * Creates a cluster record (and its pools) directly: used by clusters.create and by seeding. `podRanges`:
 * the ranges the world's clusters hold, kept by a seed across the clusters it makes; without it, those of
 * the cluster's network are found (one pass over the clusters).
 */
export function buildCluster(
  state: ClusterState,
  projectId: string,
  location: string,
  input: ClusterShape & { name: string },
  ctx: DomainContext,
  podRanges: PodRanges = podRangesOf(state.clusters.values(), clusterNetworkPath(input, projectId)),
): Result<ClusterRecord> {
  const master = resolveMasterVersion(
    input.currentMasterVersion ?? input.initialClusterVersion,
    state.serverConfig.validMasterVersions ?? [],
    state.serverConfig.defaultClusterVersion ?? '',
  );
  if (!master.ok) {
    // Seeds may name any explicit version; only aliases must resolve.
    if (!input.currentMasterVersion) return master;
  }
  const masterVersion = master.ok ? master.value : (input.currentMasterVersion as string);
  const ip = `34.${ctx.ids.int(0, 256)}.${ctx.ids.int(0, 256)}.${ctx.ids.int(1, 255)}`;
  const cluster = defaultCluster(input, {
    projectId,
    projectNumber: projectNumber(state, projectId),
    location,
    masterVersion,
    now: timestamp(ctx.now),
    // 64 hex digits, as recorded; the pod range, the DNS endpoint and the pod CIDR derive from it.
    id: ctx.ids.hex(64),
    endpoint: ip,
    podRanges,
  });
  const record: ClusterRecord = {
    projectId,
    location,
    name: input.name,
    cluster,
    pools: new Map(),
    generation: 0,
  };
  const pools =
    input.nodePools && input.nodePools.length > 0
      ? input.nodePools
      : [{ name: 'default-pool', initialNodeCount: input.initialNodeCount ?? 3, config: input.nodeConfig }];
  for (const p of pools) {
    const name = p.name ?? 'default-pool';
    record.pools.set(name, seededPool(record, { ...p, name }, masterVersion, ctx));
  }
  // GKE returns a top-level initialNodeCount only when the request sent one (recorded).
  if (!input.initialNodeCount) delete record.cluster.initialNodeCount;
  refreshCluster(state, record);
  return ok(record);
}

/** Cluster fields that are output only (the Cluster reference): a create request's values are ignored. */
const OUTPUT_ONLY_FIELDS = [
  'selfLink',
  'zone',
  'endpoint',
  'currentMasterVersion',
  'currentNodeVersion',
  'createTime',
  'status',
  'statusMessage',
  'servicesIpv4Cidr',
  'instanceGroupUrls',
  'currentNodeCount',
  'expireTime',
  'location',
  'conditions',
  'etag',
  'id',
  'labelFingerprint',
  'master',
];

/** clusters.create: PROVISIONING (pools too) until the CREATE_CLUSTER operation is DONE. */
export function createCluster(
  state: ClusterState,
  projectId: string,
  location: string,
  req: CreateClusterRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const input = req.cluster;
  if (!input?.name)
    return fail({
      code: 'INVALID_REQUEST',
      message: "'cluster.name' must be specified.",
      field: 'cluster.name',
    });
  // An Autopilot cluster has other defaults, manages its own pools and refuses pool changes: none of
  // that is simulated, so it is refused rather than created as a standard cluster that says Autopilot.
  if (input.autopilot?.enabled === true)
    return fail({ code: 'NOT_SIMULATED', what: 'An Autopilot cluster (cluster.autopilot.enabled)' });
  const valid = checkCreateRequest({ ...(input as ClusterShape), name: input.name });
  if (!valid.ok) return valid;
  const policy = checkMaintenancePolicy(input.maintenancePolicy, 'cluster.maintenance_policy', ctx.now);
  if (!policy.ok) return policy;
  if (state.clusters.has(clusterKey(projectId, location, input.name))) {
    return fail({ code: 'CLUSTER_ALREADY_EXISTS', project: projectId, location, cluster: input.name });
  }
  // Output-only fields a client may echo back are GKE's to set (seeds, unlike requests, may set some).
  const given: Record<string, unknown> = { ...input };
  for (const field of OUTPUT_ONLY_FIELDS) delete given[field];
  const built = buildCluster(
    state,
    projectId,
    location,
    { ...(given as ClusterShape), name: input.name },
    ctx,
  );
  if (!built.ok) return built;
  const record = built.value;
  record.cluster.status = 'PROVISIONING';
  for (const p of record.pools.values()) writePool(p, { ...p.pool, status: 'PROVISIONING' });
  state.clusters.set(clusterKey(projectId, location, input.name), record);
  const op = createOperation(
    state,
    {
      projectId,
      location,
      type: 'CREATE_CLUSTER',
      cluster: input.name,
      nodesTotal: [...record.pools.values()].reduce((s, p) => s + nodeCount(p.pool), 0),
      change: { kind: 'createCluster' },
      ...ctx.operationEffects?.(),
    },
    ctx.now,
    ctx.ids,
  );
  return ok(op);
}

/** A cluster whose create or delete failed shows ERROR. */
function clusterFailed(end: ChangeEnd): void {
  showPoolFailure(end);
  end.record.cluster.status = 'ERROR';
}

/** CREATE_CLUSTER is DONE: the cluster and its pools run. */
export const CREATE_CLUSTER_CHANGE: ChangeApplier<ChangeOf<'createCluster'>> = {
  apply({ record }) {
    record.cluster.status = 'RUNNING';
    for (const p of record.pools.values()) writePool(p, { ...p.pool, status: 'RUNNING' });
  },
  fail: clusterFailed,
};

/** DELETE_CLUSTER is DONE: the cluster is gone. */
export const DELETE_CLUSTER_CHANGE: ChangeApplier<ChangeOf<'deleteCluster'>> = {
  apply({ state, op }) {
    state.clusters.delete(clusterKey(op.projectId, op.location, op.cluster));
  },
  fail: clusterFailed,
};

/** clusters.delete: STOPPING until DONE, then gone. */
export function deleteCluster(
  state: ClusterState,
  record: ClusterRecord,
  ctx: DomainContext,
): Result<OperationRecord> {
  const busy = admit(state, record, { type: 'DELETE_CLUSTER' }, ctx);
  if (!busy.ok) return busy;
  record.cluster.status = 'STOPPING';
  return ok(
    createOperation(
      state,
      {
        projectId: record.projectId,
        location: record.location,
        type: 'DELETE_CLUSTER',
        cluster: record.name,
        nodesTotal: 0,
        change: { kind: 'deleteCluster' },
        ...ctx.operationEffects?.(),
      },
      ctx.now,
      ctx.ids,
    ),
  );
}

/** Cluster fields that follow its pools: they do not move the cluster's etag (recorded). */
const POOL_DERIVED_FIELDS = [
  'currentNodeCount',
  'currentNodeVersion',
  'nodeConfig',
  'status',
  'instanceGroupUrls',
];

/**
 * The cluster as the API answers it: its pools, their instance groups, the label fingerprint and the
 * maintenance policy's version (8 hex digits of a SHA-256 of what they cover), its self link and etag
 * (a UUID that pool changes leave as it is, as recorded). v1 leaves out the fields only v1beta1 has.
 */
export function renderCluster(record: ClusterRecord, version: ApiVersion): ClusterShape {
  const pools = [...record.pools.values()].map((p) => renderNodePool(record, p, version));
  const stored = record.cluster as ClusterShape & Record<string, unknown>;
  const own: Record<string, unknown> = { ...stored };
  for (const field of POOL_DERIVED_FIELDS) delete own[field];
  const etag = computeEtag(own, record.generation);
  const out: Record<string, unknown> = {
    ...stored,
    nodePools: pools,
    instanceGroupUrls: pools.flatMap((p) => p.instanceGroupUrls ?? []),
    labelFingerprint: labelFingerprint(stored.resourceLabels),
    maintenancePolicy: renderPolicy(stored.maintenancePolicy),
    selfLink: clusterSelfLink(version, record.projectId, record.location, record.name),
    etag,
  };
  // The deprecated nodeConfig mirrors the default pool as rendered (its node image in v1beta1).
  const defaultPool = pools.find((p) => p.name === 'default-pool');
  if (out.nodeConfig !== undefined && defaultPool?.config) out.nodeConfig = defaultPool.config;
  // The fields the v1 proto's Cluster lacks, as the generated schema records them.
  if (version === 'v1') for (const field of betaOnlyFields(Cluster) ?? []) delete out[field];
  return omitDefaults(out as ClusterShape);
}

/** A zonal legacy path cannot address a regional cluster. */
export function checkZonalAccess(location: string, viaZonesPath: boolean): Result<void> {
  return viaZonesPath && !isZone(location) ? fail({ code: 'REGIONAL_CLUSTER_VIA_ZONE' }) : ok(undefined);
}
