import { refreshCluster, writePool } from './node-pools';
import type {
  ClusterRecord,
  ClusterState,
  NodePoolShape,
  OperationRecord,
  PendingChange,
  PoolRecord,
  UpgradeDetailsShape,
} from './state';
import { clusterKey } from './state';
import { timestamp } from './timestamp';

/**
 * What an operation does to its cluster and pool when it ends, as a contract: the module that starts a
 * kind of change (pool-requests.ts for `updatePool`, cluster-rotation.ts for `startIpRotation`, …) also
 * says how it lands when the operation is DONE and how the target shows a failure or a cancel.
 * operation-changes.ts gathers them into one table; the lifecycle (operations.ts) is handed that table
 * and imports none of the change modules, which themselves start operations: a new kind of change is
 * written beside the request that makes it, and the lifecycle never learns its name.
 */

type ChangeKind = PendingChange['kind'];

/** The change of one kind. */
export type ChangeOf<K extends ChangeKind> = Extract<PendingChange, { kind: K }>;

/** An ending operation as its change sees it: the target cluster (it still exists) and pool. */
export interface ChangeEnd<C extends PendingChange = PendingChange> {
  state: ClusterState;
  op: OperationRecord;
  change: C;
  record: ClusterRecord;
  /** The pool the operation names, if it still exists. */
  pool: PoolRecord | undefined;
}

/** How one kind of change lands (`apply`, the operation DONE) or shows that it did not (`fail`). */
export interface ChangeApplier<C extends PendingChange = PendingChange> {
  apply(end: ChangeEnd<C>): void;
  /** A failed or cancelled operation; without it, the pool (if any) shows the failure (`showPoolFailure`). */
  fail?(end: ChangeEnd<C>, cancelled: boolean): void;
}

/** Every kind of change with its applier: a kind left out does not compile. */
export type ChangeAppliers = { readonly [K in ChangeKind]: ChangeApplier<ChangeOf<K>> };

/** The cluster an operation works on, if it still exists. */
export function targetRecord(state: ClusterState, op: OperationRecord): ClusterRecord | undefined {
  return state.clusters.get(clusterKey(op.projectId, op.location, op.cluster));
}

function endOf(state: ClusterState, op: OperationRecord): ChangeEnd | undefined {
  const record = targetRecord(state, op);
  if (!record) return undefined;
  const pool = op.nodePool === undefined ? undefined : record.pools.get(op.nodePool);
  return { state, op, change: op.change, record, pool };
}

/** The applier of a change: the table is complete by its type, so the lookup cannot miss. */
function applierOf(changes: ChangeAppliers, change: PendingChange): ChangeApplier {
  return changes[change.kind] as ChangeApplier;
}

/** The operation is DONE: its change lands on the target, which is then refreshed (if it still exists). */
export function completeChange(state: ClusterState, op: OperationRecord, changes: ChangeAppliers): void {
  const end = endOf(state, op);
  if (!end) return;
  applierOf(changes, end.change).apply(end);
  // A change may remove its cluster (deleteCluster): nothing is left to refresh.
  if (targetRecord(state, op) === end.record) refreshCluster(state, end.record);
}

/** The operation failed or was cancelled: the target shows it, and is refreshed. */
export function failChange(
  state: ClusterState,
  op: OperationRecord,
  changes: ChangeAppliers,
  cancelled: boolean,
): void {
  const end = endOf(state, op);
  if (!end) return;
  const fail = applierOf(changes, end.change).fail;
  if (fail) fail(end, cancelled);
  else showPoolFailure(end);
  refreshCluster(state, end.record);
}

/** What an ended operation leaves on its pool, if it names one: a new etag and the given status. */
export function showPoolFailure(
  end: ChangeEnd,
  status: NodePoolShape['status'] = end.state.settings.failedPoolStatus,
): void {
  if (end.pool) writePool(end.pool, { ...end.pool.pool, status }, { bump: true });
}

/** Closes the upgrade's entry in a pool's or the master's upgrade history (fetch…UpgradeInfo). */
export function endUpgrade(
  upgrades: UpgradeDetailsShape[] | undefined,
  op: OperationRecord,
  state: 'SUCCEEDED' | 'FAILED' | 'CANCELED',
): void {
  const entry = upgrades?.find((u) => u.state === 'RUNNING' && u.startTime === timestamp(op.startTime));
  if (!entry) return;
  entry.state = state;
  entry.endTime = timestamp(op.endTime ?? op.startTime);
}
