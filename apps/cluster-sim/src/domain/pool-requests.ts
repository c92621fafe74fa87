import type { CreateNodePoolRequestShape, UpdateNodePoolRequestShape } from '@sims/cluster-schema';
import { type ChangeApplier, type ChangeOf, endUpgrade, showPoolFailure } from './change-applier';
import { markNodesRecreated } from './cluster-rotation';
import { inheritPoolDefaults } from './cluster-update-pool-defaults';
import { admit, type DomainContext, findPool, withEffects } from './context';
import { defaultNodePool, instanceGroupUrls } from './defaults';
import { fail, ok, type Result } from './errors';
import {
  applyNodePoolUpdate,
  hasUpdatableField,
  nodeCount,
  nodePoolEtag,
  refreshCluster,
  writePool,
} from './node-pools';
import { createOperation } from './operations';
import { phaseOf, planUpgrade, recreatesNodes, rolloutNodesDone } from './rollouts';
import type { ClusterRecord, ClusterState, NodePoolShape, OperationRecord, PoolRecord } from './state';
import { timestamp } from './timestamp';
import { resolveNodeVersion } from './versions';

/**
 * nodePools.create, update and delete, and the pool records a cluster is built with. The other node
 * pool methods are in pool-methods.ts.
 */

function versionRules(state: ClusterState, record: ClusterRecord) {
  return {
    validNodeVersions: state.serverConfig.validNodeVersions ?? [],
    masterVersion: record.cluster.currentMasterVersion ?? state.serverConfig.defaultClusterVersion ?? '',
    maxNodeSkewMinors: state.settings.maxNodeSkewMinors,
  };
}

/**
 * GKE's rule for `linuxNodeConfig.swapConfig` (a LinuxNodeConfig replaces the pool's as a whole, so
 * the rule sees exactly what was sent): with swap not enabled, no other swap setting may be given.
 * The text is GKE's, as the issue's replay against real GKE recorded it.
 */
function checkSwapConfig(linux: { swapConfig?: Record<string, unknown> } | undefined): Result<void> {
  const swap = linux?.swapConfig;
  if (!swap || swap.enabled === true) return ok(undefined);
  const others = Object.entries(swap).filter(([k, v]) => k !== 'enabled' && v !== undefined && v !== null);
  if (others.length === 0) return ok(undefined);
  return fail({
    code: 'INVALID_REQUEST',
    message: 'Swap is disabled, no other swapConfig fields can be set.',
  });
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
  const swap = checkSwapConfig(req.linuxNodeConfig);
  if (!swap.ok) return swap;
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
  // Pools take the cluster's pod range and subnetwork (recorded).
  const cluster = record.cluster as {
    clusterIpv4Cidr?: string;
    ipAllocationPolicy?: { clusterSecondaryRangeName?: string };
    networkConfig?: { subnetwork?: string };
  };
  return defaultNodePool(input, {
    projectId: record.projectId,
    location: record.location,
    cluster: record.name,
    clusterLocations: record.cluster.locations ?? [record.location],
    version,
    hash,
    podIpv4CidrBlock: cluster.clusterIpv4Cidr,
    podRange: cluster.ipAllocationPolicy?.clusterSecondaryRangeName,
    subnetwork: cluster.networkConfig?.subnetwork,
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
  const swap = checkSwapConfig(input.config?.linuxNodeConfig);
  if (!swap.ok) return swap;
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
  // A pool takes the cluster's node pool defaults it does not set (cluster-update-pool-defaults.ts).
  const pool = buildPool(
    record,
    { ...inheritPoolDefaults(record, input), name: input.name },
    version,
    ctx.ids.hex(8),
  );
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

/**
 * UPGRADE_NODES of nodePools.update is DONE: the pool is as asked (a blue-green rollout leaves the green
 * pool's instance groups), with a new etag even when nothing changed (the same version); recreated nodes
 * use an IP rotation's new address.
 */
export const UPDATE_POOL_CHANGE: ChangeApplier<ChangeOf<'updatePool'>> = {
  apply({ op, change, record, pool }) {
    if (!pool) return;
    const { updateInfo: _, ...desired } = change.desired;
    const green = op.rollout?.strategy === 'BLUE_GREEN' ? op.rollout.greenInstanceGroupUrls : undefined;
    writePool(
      pool,
      { ...desired, ...(green ? { instanceGroupUrls: green } : {}), status: 'RUNNING' },
      { bump: true },
    );
    if (op.rollout) {
      delete pool.partial;
      markNodesRecreated(record, op.nodePool as string);
    }
    endUpgrade(pool.upgrades, op, 'SUCCEEDED');
  },
  /**
   * A cancelled update leaves the pool running, a failed one shows the error status. Nodes already
   * upgraded stay upgraded (GKE: "Rolls back a previously Aborted or Failed NodePool upgrade"): a mixed
   * pool, kept for nodePools.rollback and shown in fetchNodePoolUpgradeInfo.
   */
  fail(end, cancelled) {
    const { op, change, pool } = end;
    const rollout = op.rollout;
    if (pool && rollout?.kind === 'upgrade') {
      const done = rolloutNodesDone(op);
      const phase = phaseOf(rollout);
      if (done > 0 || phase !== undefined) {
        pool.partial = {
          strategy: rollout.strategy,
          from: rollout.from,
          to: change.desired,
          nodesUpgraded: done,
          ...(phase ? { phase } : {}),
          ...(rollout.greenInstanceGroupUrls
            ? { greenInstanceGroupUrls: rollout.greenInstanceGroupUrls }
            : {}),
        };
      }
      endUpgrade(pool.upgrades, op, cancelled ? 'CANCELED' : 'FAILED');
    }
    showPoolFailure(end, cancelled ? 'RUNNING' : end.state.settings.failedPoolStatus);
  },
};

/** CREATE_NODE_POOL is DONE: the pool runs. */
export const CREATE_POOL_CHANGE: ChangeApplier<ChangeOf<'createPool'>> = {
  apply({ pool }) {
    if (pool) writePool(pool, { ...pool.pool, status: 'RUNNING' });
  },
};

/** DELETE_NODE_POOL is DONE: the pool is gone. */
export const DELETE_POOL_CHANGE: ChangeApplier<ChangeOf<'deletePool'>> = {
  apply({ op, record }) {
    if (op.nodePool === undefined) return;
    record.pools.delete(op.nodePool);
    // GKE drops the deprecated cluster.nodeConfig mirror with the default pool.
    if (op.nodePool === 'default-pool') delete record.cluster.nodeConfig;
  },
};
