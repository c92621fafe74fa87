import { fail, ok, type Result } from './errors';
import { liveOperationsOf } from './operations-live';
import type { ClusterRecord, ClusterState, OperationRecord, OperationTypeName } from './state';

/** Operation types that hold the whole cluster: nothing else may run beside them. */
const CLUSTER_WIDE: ReadonlySet<OperationTypeName> = new Set([
  'CREATE_CLUSTER',
  'DELETE_CLUSTER',
  'UPGRADE_MASTER',
  'UPDATE_CLUSTER',
  'REPAIR_CLUSTER',
]);

/**
 * The cluster's operations that are not DONE yet, in the order they were made (the first blocking one is
 * the one a refusal names). Read through the index of operations-live.ts, not a scan of the world's.
 */
export function liveOperations(state: ClusterState, record: ClusterRecord): OperationRecord[] {
  return liveOperationsOf(state, record);
}

/**
 * Decides whether a new operation may start on a cluster: an incompatible running operation (one that
 * holds the whole cluster, or one on the same pool) gives FAILED_PRECONDITION; more than the
 * per-cluster quota of concurrent operations gives RESOURCE_EXHAUSTED.
 */
export function checkConcurrency(
  state: ClusterState,
  record: ClusterRecord,
  request: { type: OperationTypeName; nodePool?: string },
): Result<void> {
  const live = liveOperations(state, record);
  const blocking = live.find(
    (op) =>
      CLUSTER_WIDE.has(op.type) ||
      CLUSTER_WIDE.has(request.type) ||
      (request.nodePool !== undefined && op.nodePool === request.nodePool),
  );
  if (blocking) {
    return fail({
      code: 'CLUSTER_BUSY',
      operation: blocking.id,
      operationType: blocking.type,
      cluster: record.name,
      style: state.settings.busyMessage,
    });
  }
  if (live.length >= state.settings.concurrentOperationsQuota) {
    return fail({
      code: 'TOO_MANY_OPERATIONS',
      cluster: record.name,
      quota: state.settings.concurrentOperationsQuota,
    });
  }
  return ok(undefined);
}
