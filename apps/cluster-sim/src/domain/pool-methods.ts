import type {
  NodePoolAutoscaling,
  RollbackNodePoolUpgradeRequestShape,
  SetNodePoolManagementRequestShape,
  SetNodePoolSizeRequestShape,
} from '@sims/cluster-schema';
import { protoFieldName } from '@sims/cluster-schema';
import type { z } from 'zod';
import type { ChangeApplier, ChangeOf } from './change-applier';
import { admit, type DomainContext, findPool, withEffects } from './context';
import { storedAutoscaling } from './defaults';
import { fail, ok, type Result } from './errors';
import { nodeCount, refreshCluster, writePool } from './node-pools';
import { liveOperations } from './operation-admission';
import { catchUpRollout, createOperation } from './operations';
import { elapsedNominal, phaseOf, planRollback, skipSoak, stepFraction } from './rollouts';
import type { ClusterRecord, ClusterState, NodePoolShape, OperationRecord, PoolRecord } from './state';
import { compareVersions, minorOf } from './versions';

type Autoscaling = z.infer<typeof NodePoolAutoscaling>;

/**
 * The node pool methods besides create/update/delete: setSize, setManagement, setAutoscaling (also
 * clusters.update's desiredNodePoolAutoscaling), rollback, completeUpgrade, fetchNodePoolUpgradeInfo.
 * Sources per method in FIDELITY.md.
 */

function poolOperation(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  input: {
    type: 'SET_NODE_POOL_SIZE' | 'SET_NODE_POOL_MANAGEMENT' | 'UPDATE_CLUSTER' | 'UPGRADE_NODES';
    change: OperationRecord['change'];
    nodesTotal?: number;
  },
  ctx: DomainContext,
  rollout?: OperationRecord['rollout'],
): OperationRecord {
  const op = createOperation(
    state,
    {
      projectId: record.projectId,
      location: record.location,
      type: input.type,
      cluster: record.name,
      nodePool: poolName,
      nodesTotal: input.nodesTotal ?? 0,
      change: input.change,
      ...withEffects(ctx.operationEffects?.(), rollout),
    },
    ctx.now,
    ctx.ids,
  );
  refreshCluster(state, record);
  return op;
}

/**
 * The methods that replace pool fields when their operation is DONE: the pool must exist, the request
 * pass its check, the cluster admit the operation.
 */
function startPoolChange(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  type: 'SET_NODE_POOL_SIZE' | 'SET_NODE_POOL_MANAGEMENT' | 'UPDATE_CLUSTER',
  fields: Partial<NodePoolShape>,
  ctx: DomainContext,
  check: () => Result<void> = () => ok(undefined),
): Result<OperationRecord> {
  const found = findPool(record, poolName);
  if (!found.ok) return found;
  const checked = check();
  if (!checked.ok) return checked;
  const busy = admit(state, record, { type, nodePool: poolName }, ctx);
  if (!busy.ok) return busy;
  return ok(poolOperation(state, record, poolName, { type, change: { kind: 'setPool', fields } }, ctx));
}

/** A setter's operation is DONE: its fields replace the pool's (a new etag, even if nothing changed). */
export const SET_POOL_CHANGE: ChangeApplier<ChangeOf<'setPool'>> = {
  apply({ pool, change }) {
    if (pool) writePool(pool, { ...pool.pool, ...change.fields }, { bump: true });
  },
};

/** nodePools.setSize: SET_NODE_POOL_SIZE; the per-zone count is the new `initialNodeCount` when DONE. */
export function setNodePoolSize(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  req: SetNodePoolSizeRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  // proto3: an absent nodeCount is 0 (a resize to zero nodes, which GKE allows).
  const count = req.nodeCount ?? 0;
  return startPoolChange(
    state,
    record,
    poolName,
    'SET_NODE_POOL_SIZE',
    { initialNodeCount: count },
    ctx,
    () =>
      count < 0
        ? fail({
            code: 'INVALID_REQUEST',
            message: `Invalid value for field 'node_count': ${count}. Must be greater than or equal to 0.`,
            field: 'node_count',
          })
        : ok(undefined),
  );
}

/**
 * nodePools.setManagement: SET_NODE_POOL_MANAGEMENT; `management` replaces the pool's when DONE
 * (`upgradeOptions` is output only). A cluster on a release channel keeps auto-upgrade on.
 */
export function setNodePoolManagement(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  req: SetNodePoolManagementRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  const autoUpgrade = req.management?.autoUpgrade ?? false;
  const autoRepair = req.management?.autoRepair ?? false;
  const channel = record.cluster.releaseChannel?.channel;
  const fields = { management: { autoUpgrade, autoRepair } };
  return startPoolChange(state, record, poolName, 'SET_NODE_POOL_MANAGEMENT', fields, ctx, () => {
    if (!channel || channel === 'UNSPECIFIED' || autoUpgrade) return ok(undefined);
    // Real texts (terraform-google-kubernetes-engine#682, hivemq…#47); the channel is the cluster's.
    const what = autoRepair ? 'Auto_upgrade' : 'Auto_upgrade and auto_repair';
    return fail({
      code: 'INVALID_REQUEST',
      message: `${what} cannot be false when release_channel ${channel} is set.`,
    });
  });
}

const nonZero = (n: number | undefined) => n !== undefined && n !== 0;

/**
 * Checks a NodePoolAutoscaling as GKE does and gives what the pool stores: `{}` when disabled (no
 * autoscaling: the pool leaves the field out), else the counts given with `locationPolicy` BALANCED
 * unless set. Zero counts are unset (proto3: a recorded request sent `totalMinNodeCount: 0` beside
 * min/max and was accepted).
 */
function checkAutoscaling(a: Autoscaling | undefined): Result<Autoscaling> {
  if (!a?.enabled) return ok({});
  const bad = (message: string) => fail({ code: 'INVALID_REQUEST' as const, message });
  for (const field of ['minNodeCount', 'maxNodeCount', 'totalMinNodeCount', 'totalMaxNodeCount'] as const) {
    const v = a[field];
    if (v !== undefined && v < 0) {
      return bad(`Node_pool_autoscaling.${protoFieldName(field)} must be greater than or equal to 0.`);
    }
  }
  if (!nonZero(a.maxNodeCount) && !nonZero(a.totalMaxNodeCount)) {
    // Real text (terraform-google-kubernetes-engine#1554).
    return bad(
      'Node_pool_autoscaling.max_node_count and node_pool_autoscaling.total_max_node_count cannot be both set to zero.',
    );
  }
  const perZone = nonZero(a.minNodeCount) || nonZero(a.maxNodeCount);
  const total = nonZero(a.totalMinNodeCount) || nonZero(a.totalMaxNodeCount);
  if (perZone && total) {
    return bad(
      'Node_pool_autoscaling.total_min_node_count and node_pool_autoscaling.total_max_node_count cannot be set together with node_pool_autoscaling.min_node_count or node_pool_autoscaling.max_node_count.',
    );
  }
  if (perZone && (a.minNodeCount ?? 0) > (a.maxNodeCount ?? 0)) {
    return bad(
      'Node_pool_autoscaling.min_node_count must be less than or equal to node_pool_autoscaling.max_node_count.',
    );
  }
  if (total && (a.totalMinNodeCount ?? 0) > (a.totalMaxNodeCount ?? 0)) {
    return bad(
      'Node_pool_autoscaling.total_min_node_count must be less than or equal to node_pool_autoscaling.total_max_node_count.',
    );
  }
  return ok(storedAutoscaling(a) ?? {});
}

/**
 * nodePools.setAutoscaling and clusters.update's desiredNodePoolAutoscaling: an UPDATE_CLUSTER operation
 * pointing at the pool (recorded), whose only metric is `NODES_TOTAL: 0`; the pool's autoscaling is
 * replaced when DONE.
 */
export function setNodePoolAutoscaling(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  autoscaling: Autoscaling | undefined,
  ctx: DomainContext,
): Result<OperationRecord> {
  const checked = checkAutoscaling(autoscaling);
  // Off: GKE leaves `autoscaling` out of a pool that does not autoscale (recorded, 1.29 and 1.35).
  const value = checked.ok && checked.value.enabled ? checked.value : undefined;
  const fields: Partial<NodePoolShape> = { autoscaling: value };
  return startPoolChange(state, record, poolName, 'UPDATE_CLUSTER', fields, ctx, () =>
    checked.ok ? ok(undefined) : checked,
  );
}

/**
 * nodePools.rollback: "Rolls back a previously Aborted or Failed NodePool upgrade. This makes no changes
 * if the last upgrade successfully completed." While the upgrade runs, the cluster is busy (recorded:
 * "Cluster is running incompatible operation …"); after it stopped midway, an UPGRADE_NODES operation
 * brings the upgraded nodes back (blue-green: ROLLBACK_STARTED, the green pool goes); with nothing to
 * roll back, an UPGRADE_NODES operation that changes nothing.
 */
export function rollbackNodePool(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  req: RollbackNodePoolUpgradeRequestShape,
  ctx: DomainContext,
): Result<OperationRecord> {
  void req.respectPdb; // No pods run on simulated nodes: with or without PDBs, the drain is the same.
  const found = findPool(record, poolName);
  if (!found.ok) return found;
  const poolRecord = found.value;
  const busy = admit(state, record, { type: 'UPGRADE_NODES', nodePool: poolName }, ctx);
  if (!busy.ok) return busy;
  const partial = poolRecord.partial;
  if (!partial) {
    return ok(
      poolOperation(state, record, poolName, { type: 'UPGRADE_NODES', change: { kind: 'none' } }, ctx),
    );
  }
  const rollout = planRollback(poolRecord.pool, partial, state.settings, ctx.now);
  const restore: NodePoolShape = { ...partial.from };
  const op = poolOperation(
    state,
    record,
    poolName,
    {
      type: 'UPGRADE_NODES',
      change: { kind: 'rollbackPool', restore },
      nodesTotal: partial.strategy === 'BLUE_GREEN' ? nodeCount(poolRecord.pool) : partial.nodesUpgraded,
    },
    ctx,
    rollout,
  );
  writePool(poolRecord, { ...poolRecord.pool, status: 'RECONCILING' });
  refreshCluster(state, record);
  return ok(op);
}

/** A rollback is DONE: every node is back on the pool as it was before the upgrade, which is over. */
export const ROLLBACK_POOL_CHANGE: ChangeApplier<ChangeOf<'rollbackPool'>> = {
  apply({ pool, change }) {
    if (!pool) return;
    const { updateInfo: _, ...restore } = change.restore;
    writePool(pool, { ...restore, status: 'RUNNING' }, { bump: true });
    delete pool.partial;
  },
};

/** The live blue-green upgrade of a pool, if one runs. */
function liveBlueGreen(state: ClusterState, record: ClusterRecord, poolName: string) {
  return liveOperations(state, record).find(
    (op) =>
      op.nodePool === poolName &&
      op.status === 'RUNNING' &&
      op.rollout?.kind === 'upgrade' &&
      op.rollout.strategy === 'BLUE_GREEN',
  );
}

/**
 * nodePools.completeUpgrade: "skip the remaining node pool soaking phase during blue-green node pool
 * upgrades" (gcloud). Returns Empty; the blue pool's deletion starts now. Outside a soak:
 * FAILED_PRECONDITION (GKE's text is unknown; FIDELITY.md).
 */
export function completeNodePoolUpgrade(
  state: ClusterState,
  record: ClusterRecord,
  poolName: string,
  now: number,
): Result<OperationRecord> {
  const found = findPool(record, poolName);
  if (!found.ok) return found;
  const op = liveBlueGreen(state, record, poolName);
  const rollout = op?.rollout;
  if (!op || !rollout || phaseOf(rollout) !== 'NODE_POOL_SOAKING') {
    return fail({
      code: 'FAILED_PRECONDITION',
      message: `Node pool "${poolName}" is not in the node pool soaking phase of a blue-green upgrade; completeUpgrade can only end a node pool soak.`,
    });
  }
  const before = rollout.total;
  if (op.plan.mode === 'time') {
    const scale = before > 0 ? (op.plan.doneAt - op.plan.runningAt) / before : 1;
    skipSoak(rollout, elapsedNominal(op, rollout, now));
    op.plan.doneAt = op.plan.runningAt + Math.round(rollout.total * scale);
  } else if (op.plan.mode === 'polls') {
    skipSoak(rollout, elapsedNominal(op, rollout, now));
    const del = rollout.steps.findIndex((s) => s.phase === 'DELETING_BLUE_POOL');
    op.plan.seen = Math.min(op.plan.polls, Math.ceil(op.plan.polls * stepFraction(rollout, del)));
  }
  catchUpRollout(state, op, now);
  return ok(op);
}

/** nodePools.fetchNodePoolUpgradeInfo: auto-upgrade status, target versions, the pool's upgrades. */
export function nodePoolUpgradeInfo(state: ClusterState, record: ClusterRecord, poolRecord: PoolRecord) {
  const pool = poolRecord.pool;
  const master = record.cluster.currentMasterVersion ?? '';
  const current = pool.version ?? master;
  const candidates = (state.serverConfig.validNodeVersions ?? []).filter(
    (v) => compareVersions(v, master) <= 0 && compareVersions(v, current) > 0,
  );
  const highest = (list: string[]) => [...list].sort(compareVersions).at(-1);
  const patch = highest(candidates.filter((v) => minorOf(v) === minorOf(current)));
  const minor = highest(candidates.filter((v) => minorOf(v) > minorOf(current)));
  return {
    ...(minor ? { minorTargetVersion: minor } : {}),
    ...(patch ? { patchTargetVersion: patch } : {}),
    ...(pool.management?.autoUpgrade ? { autoUpgradeStatus: ['ACTIVE'] } : {}),
    ...(poolRecord.upgrades && poolRecord.upgrades.length > 0
      ? { upgradeDetails: poolRecord.upgrades.map((u) => ({ ...u })) }
      : {}),
  };
}
