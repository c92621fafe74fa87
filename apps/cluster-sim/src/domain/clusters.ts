import type { CreateClusterRequestShape } from '@sims/cluster-schema';
import { admit, type DomainContext } from './context';
import { defaultCluster } from './defaults';
import { fail, ok, type Result } from './errors';
import { computeEtag } from './etag';
import { type ApiVersion, clusterSelfLink, isZone } from './names';
import { nodeCount, omitDefaults, refreshCluster, renderNodePool, writePool } from './node-pools';
import { createOperation } from './operations';
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

/** Creates a cluster record (and its pools) directly: used by clusters.create and by seeding. */
export function buildCluster(
  state: ClusterState,
  projectId: string,
  location: string,
  input: ClusterShape & { name: string },
  ctx: DomainContext,
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
    location,
    masterVersion,
    now: timestamp(ctx.now),
    id: ctx.ids.hex(32),
    endpoint: ip,
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
  delete record.cluster.initialNodeCount;
  refreshCluster(state, record);
  return ok(record);
}

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
  if (state.clusters.has(clusterKey(projectId, location, input.name))) {
    return fail({ code: 'CLUSTER_ALREADY_EXISTS', project: projectId, location, cluster: input.name });
  }
  const built = buildCluster(
    state,
    projectId,
    location,
    { ...input, name: input.name, currentMasterVersion: undefined },
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

export function renderCluster(record: ClusterRecord, version: ApiVersion): ClusterShape {
  const pools = [...record.pools.values()].map((p) => renderNodePool(record, p, version));
  const etag = computeEtag({ cluster: record.cluster, pools: pools.map((p) => p.etag) }, record.generation);
  return omitDefaults({
    ...record.cluster,
    nodePools: pools,
    selfLink: clusterSelfLink(version, record.projectId, record.location, record.name),
    etag,
  });
}

/** A zonal legacy path cannot address a regional cluster. */
export function checkZonalAccess(location: string, viaZonesPath: boolean): Result<void> {
  return viaZonesPath && !isZone(location) ? fail({ code: 'REGIONAL_CLUSTER_VIA_ZONE' }) : ok(undefined);
}
