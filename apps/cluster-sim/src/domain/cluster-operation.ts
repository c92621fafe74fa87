import { admit, type DomainContext } from './context';
import { ok, type Result } from './errors';
import { refreshCluster } from './node-pools';
import { createOperation } from './operations';
import type { ClusterRecord, ClusterState, OperationRecord, PendingChange } from './state';

// Apart from cluster-update.ts so that the setters and the IP rotation start their operations without
// importing clusters.update's rules (which reach the pool requests, whose changes mark a rotation's pools).

/** An operation on the whole cluster (no pool): admitted, created, the cluster refreshed. */
export function startClusterOperation(
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
