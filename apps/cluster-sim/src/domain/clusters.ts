import type {
  CreateClusterRequestShape,
  CreateNodePoolRequestShape,
  UpdateClusterRequestShape,
  UpdateNodePoolRequestShape,
} from '@sims/cluster-schema';
import { admit, type DomainContext, findPool, withEffects } from './context';
import { defaultCluster, defaultNodePool, instanceGroupUrls, regionOf } from './defaults';
import { fail, ok, type Result } from './errors';
import { computeEtag } from './etag';
import { type ApiVersion, clusterSelfLink, isZone } from './names';
import {
  applyNodePoolUpdate,
  hasUpdatableField,
  nodeCount,
  nodePoolEtag,
  omitDefaults,
  refreshCluster,
  renderNodePool,
  writePool,
} from './node-pools';
import { createOperation, timestamp } from './operations';
import { setNodePoolAutoscaling } from './pool-methods';
import { planUpgrade, recreatesNodes } from './rollouts';
import type {
  ClusterRecord,
  ClusterShape,
  ClusterState,
  NodePoolShape,
  OperationRecord,
  PendingChange,
  PoolRecord,
} from './state';
import { clusterKey } from './state';
import { resolveMasterVersion, resolveNodeVersion } from './versions';

/** Where a request points: the project as given (id or number), the location, the cluster. */
export type { DomainContext } from './context';
export { findPool } from './context';

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

function versionRules(state: ClusterState, record: ClusterRecord) {
  return {
    validNodeVersions: state.serverConfig.validNodeVersions ?? [],
    masterVersion: record.cluster.currentMasterVersion ?? state.serverConfig.defaultClusterVersion ?? '',
    maxNodeSkewMinors: state.settings.maxNodeSkewMinors,
  };
}

/**
 * nodePools.update: validates, checks the etag (ABORTED on a stale one, before anything else can
 * happen), resolves the version, checks the cluster's running operations, then starts an
 * UPGRADE_NODES operation. The pool is RECONCILING (so its etag changes) until the operation is DONE,
 * when the changes land.
 */
export function updateNodePool(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  req: UpdateNodePoolRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const found = findPool(record, poolName);
  if (!found.ok) return found;
  const poolRecord = found.value;
  if (!hasUpdatableField(req)) return fail({ code: 'EMPTY_UPDATE' });
  // Custom images (`image`, `imageProject`): GKE would boot the nodes from them; refused, not ignored.
  const custom = (['image', 'imageProject'] as const).filter((f) => req[f] !== undefined && req[f] !== '');
  if (custom.length > 0) {
    return fail({
      code: 'NOT_SIMULATED',
      what: `UpdateNodePoolRequest ${custom.length === 1 ? 'field' : 'fields'} ${custom.map((f) => `"${f}"`).join(', ')}`,
    });
  }
  if (req.etag !== undefined && req.etag !== '' && req.etag !== nodePoolEtag(poolRecord)) {
    return fail({
      code: 'ETAG_MISMATCH',
      nodePool: poolName,
      given: req.etag,
      current: nodePoolEtag(poolRecord),
    });
  }
  let version: string | undefined;
  if (req.nodeVersion !== undefined && req.nodeVersion !== '') {
    const resolved = resolveNodeVersion(req.nodeVersion, versionRules(state, record));
    if (!resolved.ok) return resolved;
    version = resolved.value;
  }
  const busy = admit(state, record, { type: 'UPGRADE_NODES', nodePool: poolName }, ctx);
  if (!busy.ok) return busy;
  const from = poolRecord.pool;
  const desired = applyNodePoolUpdate(from, req, version);
  if (desired.upgradeSettings?.strategy === 'SHORT_LIVED' && recreatesNodes(req)) {
    // Short-lived (flex-start) pools replace nodes their own way; not a surge, and not simulated.
    return fail({
      code: 'NOT_SIMULATED',
      what: 'A node upgrade of a pool with upgradeSettings.strategy SHORT_LIVED',
    });
  }
  // Changes that recreate nodes unfold batch by batch (surge) or phase by phase (blue-green); the
  // others are applied in place when the operation is DONE.
  const rollout = recreatesNodes(req)
    ? planUpgrade(
        from,
        desired,
        state.settings,
        ctx.now,
        instanceGroupUrls(
          record.projectId,
          record.name,
          poolName,
          desired.locations ?? [record.location],
          ctx.ids.hex(8),
        ),
      )
    : undefined;
  const op = createOperation(
    state,
    {
      projectId: record.projectId,
      location: record.location,
      type: 'UPGRADE_NODES',
      cluster: record.name,
      nodePool: poolName,
      nodesTotal: rollout ? nodeCount(desired) : 0,
      change: { kind: 'updatePool', desired },
      ...withEffects(ctx.operationEffects?.(), rollout),
    },
    ctx.now,
    ctx.ids,
  );
  const next: NodePoolShape = { ...from, status: 'RECONCILING' };
  if (rollout?.strategy === 'BLUE_GREEN') {
    next.updateInfo = {
      blueGreenInfo: {
        phase: 'UPDATE_STARTED',
        blueInstanceGroupUrls: from.instanceGroupUrls ?? [],
        greenPoolVersion: desired.version,
      },
    };
  }
  writePool(poolRecord, next);
  if (rollout && desired.version !== undefined && desired.version !== from.version) {
    poolRecord.upgrades = [
      ...(poolRecord.upgrades ?? []).slice(-19),
      {
        state: 'RUNNING',
        startTime: timestamp(op.startTime),
        initialVersion: from.version,
        targetVersion: desired.version,
        startType: 'MANUAL',
      },
    ];
  }
  refreshCluster(state, record);
  return ok(op);
}

/** Builds a stored pool from a NodePool input with GKE's defaults. */
function buildPool(
  record: ClusterRecord,
  input: NodePoolShape & { name: string },
  version: string,
  hash: string,
) {
  return defaultNodePool(input, {
    projectId: record.projectId,
    location: record.location,
    cluster: record.name,
    clusterLocations: record.cluster.locations ?? [record.location],
    version,
    hash,
  });
}

/**
 * A pool record from a NodePool input with GKE's defaults. An `etag` in the input is pinned: it is
 * what clients read until the pool's next write (provider states name exact etags).
 */
export function seededPool(
  record: ClusterRecord,
  input: NodePoolShape & { name: string },
  masterVersion: string,
  ctx: DomainContext,
): PoolRecord {
  const { etag, ...rest } = input;
  const pool = buildPool(record, rest, rest.version ?? masterVersion, ctx.ids.hex(8));
  return { pool, generation: 0, ...(etag ? { pinnedEtag: etag } : {}) };
}

/** nodePools.create: ALREADY_EXISTS for a taken name; the pool is PROVISIONING until DONE. */
export function createNodePool(
  state: ClusterState,
  record: ClusterRecord,
  req: CreateNodePoolRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const input = req.nodePool;
  if (!input?.name)
    return fail({
      code: 'INVALID_REQUEST',
      message: 'Node pool name must be specified.',
      field: 'node_pool.name',
    });
  if (record.pools.has(input.name)) {
    return fail({
      code: 'NODE_POOL_ALREADY_EXISTS',
      project: record.projectId,
      location: record.location,
      cluster: record.name,
      nodePool: input.name,
    });
  }
  const rules = versionRules(state, record);
  let version = rules.masterVersion;
  if (input.version) {
    const resolved = resolveNodeVersion(input.version, rules);
    if (!resolved.ok) return resolved;
    version = resolved.value;
  }
  const busy = admit(state, record, { type: 'CREATE_NODE_POOL', nodePool: input.name }, ctx);
  if (!busy.ok) return busy;
  const pool = buildPool(record, { ...input, name: input.name }, version, ctx.ids.hex(8));
  pool.status = 'PROVISIONING';
  record.pools.set(input.name, { pool, generation: 0 });
  const op = createOperation(
    state,
    {
      projectId: record.projectId,
      location: record.location,
      type: 'CREATE_NODE_POOL',
      cluster: record.name,
      nodePool: input.name,
      nodesTotal: nodeCount(pool),
      change: { kind: 'createPool' },
      ...ctx.operationEffects?.(),
    },
    ctx.now,
    ctx.ids,
  );
  refreshCluster(state, record);
  return ok(op);
}

/** nodePools.delete: the pool is STOPPING until DONE, then gone. */
export function deleteNodePool(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  ctx: DomainContext,
) {
  const found = findPool(record, poolName);
  if (!found.ok) return found;
  const busy = admit(state, record, { type: 'DELETE_NODE_POOL', nodePool: poolName }, ctx);
  if (!busy.ok) return busy;
  writePool(found.value, { ...found.value.pool, status: 'STOPPING' });
  const op = createOperation(
    state,
    {
      projectId: record.projectId,
      location: record.location,
      type: 'DELETE_NODE_POOL',
      cluster: record.name,
      nodePool: poolName,
      nodesTotal: nodeCount(found.value.pool),
      change: { kind: 'deletePool' },
      ...ctx.operationEffects?.(),
    },
    ctx.now,
    ctx.ids,
  );
  refreshCluster(state, record);
  return ok(op);
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

/**
 * clusters.update: `desiredMasterVersion` starts an UPGRADE_MASTER operation (cluster-wide: nothing
 * else may run beside it); `desiredNodeVersion` upgrades a pool (`desiredNodePoolId`, or the only
 * one) with UPGRADE_NODES; any other field gives an UPDATE_CLUSTER operation that changes nothing here.
 */
/** The ClusterUpdate fields the simulator applies; the others are refused (NOT_SIMULATED). */
const APPLIED_CLUSTER_UPDATE_FIELDS: ReadonlySet<string> = new Set([
  'desiredMasterVersion',
  'desiredNodeVersion',
  'desiredImageType',
  'desiredNodePoolId',
  'desiredNodePoolAutoscaling',
  'desiredLocations',
]);

export function updateCluster(
  state: ClusterState,
  record: ClusterRecord,
  update: UpdateClusterRequestShape['update'],
  ctx: DomainContext,
): Result<OperationRecord> {
  const u = update ?? {};
  const given = Object.entries(u)
    .filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0))
    .map(([field]) => field);
  if (given.length === 0) return fail({ code: 'CLUSTER_UPDATE_EMPTY' });
  // Every other ClusterUpdate field would change the cluster on GKE: refused until it is simulated, so
  // that no client is told DONE for a change that never happened (issue 16).
  const refused = given.filter((field) => !APPLIED_CLUSTER_UPDATE_FIELDS.has(field)).sort();
  if (refused.length > 0) {
    return fail({
      code: 'NOT_SIMULATED',
      what: `ClusterUpdate ${refused.length === 1 ? 'field' : 'fields'} ${refused.map((f) => `"${f}"`).join(', ')}`,
    });
  }
  if (u.desiredLocations && u.desiredLocations.length > 0) {
    if (given.length > 1) {
      return fail({
        code: 'NOT_SIMULATED',
        what: 'A ClusterUpdate with desiredLocations and another field together',
      });
    }
    return setClusterLocations(state, record, u.desiredLocations, ctx);
  }
  const nodeFields = [u.desiredNodeVersion, u.desiredImageType, u.desiredNodePoolAutoscaling].filter(
    (v) => v !== undefined && v !== '',
  ).length;
  if ((u.desiredMasterVersion && nodeFields > 0) || nodeFields > 1) {
    return fail({
      code: 'NOT_SIMULATED',
      what: u.desiredMasterVersion
        ? 'A ClusterUpdate with desiredMasterVersion and a node pool field together'
        : 'A ClusterUpdate with desiredNodePoolAutoscaling and desiredNodeVersion or desiredImageType together',
    });
  }
  if (u.desiredMasterVersion) {
    const master = resolveMasterVersion(
      u.desiredMasterVersion,
      state.serverConfig.validMasterVersions ?? [],
      record.cluster.currentMasterVersion ?? '',
    );
    if (!master.ok) return master;
    return startClusterOperation(
      state,
      record,
      'UPGRADE_MASTER',
      { kind: 'upgradeMaster', version: master.value },
      ctx,
    );
  }
  if (u.desiredNodeVersion || u.desiredImageType || u.desiredNodePoolAutoscaling) {
    // "If there is only one pool in the cluster and desired_node_pool_id is not provided then the change
    // applies to that single node pool" (ClusterUpdate's reference).
    const pool = u.desiredNodePoolId || (record.pools.size === 1 ? [...record.pools.keys()][0] : undefined);
    if (!pool) return fail({ code: 'NODE_POOL_ID_REQUIRED' });
    if (u.desiredNodePoolAutoscaling)
      return setNodePoolAutoscaling(state, record, pool, u.desiredNodePoolAutoscaling, ctx);
    return updateNodePool(
      state,
      record,
      pool,
      { nodeVersion: u.desiredNodeVersion, imageType: u.desiredImageType },
      ctx,
    );
  }
  // Only desiredNodePoolId: it names the pool a node field applies to, and there is none.
  return fail({ code: 'CLUSTER_UPDATE_EMPTY' });
}

/**
 * ClusterUpdate `desiredLocations`: the zones of the cluster's nodes, which "must always include the
 * cluster's primary zone"; every pool moves to them when the UPDATE_CLUSTER operation is DONE. Texts of
 * the refusals are the simulator's (FIDELITY.md).
 */
function setClusterLocations(
  state: ClusterState,
  record: ClusterRecord,
  locations: string[],
  ctx: DomainContext,
): Result<OperationRecord> {
  const region = regionOf(record.location);
  for (const zone of locations) {
    if (!isZone(zone) || regionOf(zone) !== region) {
      return fail({
        code: 'INVALID_REQUEST',
        message: `Location "${zone}" is not a zone of the cluster's region "${region}".`,
        field: 'update.desired_locations',
      });
    }
  }
  if (new Set(locations).size !== locations.length) {
    return fail({
      code: 'INVALID_REQUEST',
      message: 'Locations must not contain duplicates.',
      field: 'update.desired_locations',
    });
  }
  if (isZone(record.location) && !locations.includes(record.location)) {
    return fail({
      code: 'INVALID_REQUEST',
      message: `Locations must include the cluster's primary zone "${record.location}".`,
      field: 'update.desired_locations',
    });
  }
  const change = { kind: 'setLocations' as const, locations: [...locations], hash: ctx.ids.hex(8) };
  return startClusterOperation(state, record, 'UPDATE_CLUSTER', change, ctx);
}

/** An operation on the whole cluster (no pool): admitted, created, the cluster refreshed. */
function startClusterOperation(
  state: ClusterState,
  record: ClusterRecord,
  type: 'UPGRADE_MASTER' | 'UPDATE_CLUSTER',
  change: PendingChange,
  ctx: DomainContext,
): Result<OperationRecord> {
  const busy = admit(state, record, { type }, ctx);
  if (!busy.ok) return busy;
  const op = createOperation(
    state,
    {
      projectId: record.projectId,
      location: record.location,
      type,
      cluster: record.name,
      nodesTotal: 0,
      change,
      ...ctx.operationEffects?.(),
    },
    ctx.now,
    ctx.ids,
  );
  refreshCluster(state, record);
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
