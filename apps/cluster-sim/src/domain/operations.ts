import { enumNumbers, RpcCode } from '@sims/cluster-schema';
import type { z } from 'zod';
import { fail, ok, type Result } from './errors';
import { type ApiVersion, operationSelfLink, targetLink } from './names';
import { refreshCluster, writePool } from './node-pools';
import type {
  ClusterRecord,
  ClusterState,
  OperationFailure,
  OperationRecord,
  OperationStatusName,
  OperationTypeName,
  PendingChange,
  RpcCodeName,
} from './state';
import { clusterKey } from './state';

/** The operation lifecycle as data: which status may follow which. */
export const OPERATION_TRANSITIONS: Readonly<Record<OperationStatusName, readonly OperationStatusName[]>> = {
  PENDING: ['RUNNING', 'ABORTING', 'DONE'],
  RUNNING: ['DONE', 'ABORTING'],
  ABORTING: ['DONE'],
  DONE: [],
};

/** Operation types that hold the whole cluster: nothing else may run beside them. */
const CLUSTER_WIDE: ReadonlySet<OperationTypeName> = new Set([
  'CREATE_CLUSTER',
  'DELETE_CLUSTER',
  'UPGRADE_MASTER',
  'UPDATE_CLUSTER',
  'REPAIR_CLUSTER',
]);

/** Clock events that move an operation. */
export type OperationEvent = 'run' | 'finish' | 'fail' | 'aborted';

/** `google.rpc.Code` numbers, from the schema package (the one source of the enum). */
const RPC_NUMBERS = enumNumbers(RpcCode) as Readonly<Record<RpcCodeName, number>>;

export function rpcNumber(status: z.infer<typeof RpcCode>): number {
  return RPC_NUMBERS[status];
}

export function liveOperations(state: ClusterState, record: ClusterRecord): OperationRecord[] {
  return [...state.operations.values()].filter(
    (op) =>
      op.status !== 'DONE' &&
      op.projectId === record.projectId &&
      op.location === record.location &&
      op.cluster === record.name,
  );
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

export interface StartOperation {
  projectId: string;
  location: string;
  type: OperationTypeName;
  cluster: string;
  nodePool?: string;
  nodesTotal: number;
  change: PendingChange;
  /** Overrides of the world's timing (from a fault rule). */
  timing?: { durationMs?: number; polls?: number };
  failure?: OperationFailure;
}

/** Creates an operation in PENDING. The caller schedules its clock events (`operationTimeline`). */
export function createOperation(
  state: ClusterState,
  input: StartOperation,
  now: number,
  ids: { uuid(): string },
): OperationRecord {
  const polls =
    input.timing?.polls ??
    (input.timing?.durationMs === undefined ? state.settings.operationPolls : undefined);
  const duration = input.timing?.durationMs ?? state.settings.operationDurationMs;
  const op: OperationRecord = {
    id: `operation-${String(now).padStart(13, '0')}-${ids.uuid()}`,
    projectId: input.projectId,
    location: input.location,
    type: input.type,
    cluster: input.cluster,
    nodePool: input.nodePool,
    status: 'PENDING',
    startTime: now,
    plan:
      polls !== undefined
        ? { mode: 'polls', polls: Math.max(1, polls), seen: 0 }
        : { mode: 'time', runningAt: now + Math.round(duration * 0.1), doneAt: now + duration },
    nodesTotal: input.nodesTotal,
    failure: input.failure,
    change: input.change,
  };
  state.operations.set(op.id, op);
  forgetOldOperations(state);
  return op;
}

/** Drops the oldest DONE operations beyond `maxOperations` (running ones are always kept). */
function forgetOldOperations(state: ClusterState): void {
  let excess = state.operations.size - state.settings.maxOperations;
  if (excess <= 0) return;
  for (const [id, op] of state.operations) {
    if (excess <= 0) break;
    if (op.status === 'DONE') {
      state.operations.delete(id);
      excess--;
    }
  }
}

/** The clock events still ahead of an operation, in time order (time-mode plans and aborts). */
export function operationTimeline(op: OperationRecord): { at: number; event: OperationEvent }[] {
  if (op.status === 'DONE') return [];
  if (op.status === 'ABORTING')
    return op.abortDoneAt === undefined ? [] : [{ at: op.abortDoneAt, event: 'aborted' }];
  if (op.plan.mode !== 'time') return [];
  const { runningAt, doneAt } = op.plan;
  const events: { at: number; event: OperationEvent }[] = [];
  if (op.status === 'PENDING') events.push({ at: runningAt, event: 'run' });
  if (op.failure)
    events.push({ at: runningAt + Math.round(op.failure.atProgress * (doneAt - runningAt)), event: 'fail' });
  else events.push({ at: doneAt, event: 'finish' });
  return events;
}

function transition(op: OperationRecord, to: OperationStatusName): boolean {
  if (!OPERATION_TRANSITIONS[op.status].includes(to)) return false;
  op.status = to;
  return true;
}

/** Fraction of the work done at `now`, in [0, 1]. */
export function progressOf(op: OperationRecord, now: number): number {
  if (op.endedAt !== undefined) return op.endedAt;
  if (op.status === 'DONE') return 1;
  if (op.plan.mode === 'polls') return Math.min(1, op.plan.seen / op.plan.polls);
  if (op.status === 'PENDING') return 0;
  const { runningAt, doneAt } = op.plan;
  if (doneAt <= runningAt) return 1;
  return Math.max(0, Math.min(1, (now - runningAt) / (doneAt - runningAt)));
}

/** Applies one event to an operation and its target; events that no longer apply are ignored. */
export function fireOperationEvent(
  state: ClusterState,
  opId: string,
  event: OperationEvent,
  now: number,
): void {
  const op = state.operations.get(opId);
  if (!op) return;
  switch (event) {
    case 'run':
      transition(op, 'RUNNING');
      return;
    case 'finish':
      if (op.status === 'ABORTING') return;
      if (op.status === 'PENDING') transition(op, 'RUNNING');
      if (!transition(op, 'DONE')) return;
      op.endTime = now;
      completeChange(state, op);
      return;
    case 'fail': {
      if (op.status === 'ABORTING' || op.status === 'DONE') return;
      const failure = op.failure ?? {
        atProgress: progressOf(op, now),
        status: 'INTERNAL',
        message: 'Internal error.',
      };
      endWithError(state, op, failure.status, failure.message, failure.atProgress, now);
      return;
    }
    case 'aborted': {
      if (op.status !== 'ABORTING') return;
      const { status, message } = state.settings.cancelError;
      endWithError(state, op, status, message, op.endedAt ?? 0, now, true);
      return;
    }
  }
}

function endWithError(
  state: ClusterState,
  op: OperationRecord,
  status: RpcCodeName,
  message: string,
  at: number,
  now: number,
  cancelled = false,
): void {
  if (op.status === 'PENDING') op.status = 'RUNNING';
  if (!transition(op, 'DONE')) return;
  op.endTime = now;
  op.endedAt = at;
  op.statusMessage = message;
  op.error = { code: RPC_NUMBERS[status], message };
  failChange(state, op, cancelled);
}

/** Poll-driven plans: each `operations.get` counts as one step (an explicit, documented exception). */
export function pollOperation(state: ClusterState, op: OperationRecord, now: number): void {
  if (op.plan.mode !== 'polls' || op.status === 'DONE' || op.status === 'ABORTING') return;
  op.plan.seen++;
  if (op.status === 'PENDING') transition(op, 'RUNNING');
  const fraction = op.plan.seen / op.plan.polls;
  if (op.failure && fraction >= op.failure.atProgress) fireOperationEvent(state, op.id, 'fail', now);
  else if (op.plan.seen >= op.plan.polls) fireOperationEvent(state, op.id, 'finish', now);
}

/** Cancels an operation: it turns ABORTING and reaches DONE (with the cancel error) after `abortingMs`. */
export function cancelOperation(
  state: ClusterState,
  op: OperationRecord,
  now: number,
): Result<OperationRecord> {
  if (op.status === 'DONE') return fail({ code: 'OPERATION_ALREADY_DONE', operation: op.id });
  if (op.status === 'ABORTING') return ok(op);
  op.endedAt = progressOf(op, now);
  transition(op, 'ABORTING');
  op.abortDoneAt = now + state.settings.abortingMs;
  return ok(op);
}

/** Finishes an operation now (control plane): DONE with its change applied, or failed if asked. */
export function settleNow(
  state: ClusterState,
  op: OperationRecord,
  now: number,
  failure?: { status: RpcCodeName; message: string },
): Result<OperationRecord> {
  if (op.status === 'DONE') return fail({ code: 'OPERATION_ALREADY_DONE', operation: op.id });
  if (failure) endWithError(state, op, failure.status, failure.message, progressOf(op, now), now);
  else if (op.status === 'ABORTING') fireOperationEvent(state, op.id, 'aborted', now);
  else fireOperationEvent(state, op.id, 'finish', now);
  return ok(op);
}

function targetRecord(state: ClusterState, op: OperationRecord): ClusterRecord | undefined {
  return state.clusters.get(clusterKey(op.projectId, op.location, op.cluster));
}

function completeChange(state: ClusterState, op: OperationRecord): void {
  const record = targetRecord(state, op);
  if (!record) return;
  const change = op.change;
  const poolRecord = op.nodePool === undefined ? undefined : record.pools.get(op.nodePool);
  switch (change.kind) {
    case 'updatePool':
      // Every completed mutation changes the etag, also one that leaves the content as it was (same version).
      if (poolRecord) writePool(poolRecord, { ...change.desired, status: 'RUNNING' }, { bump: true });
      break;
    case 'createPool':
      if (poolRecord) writePool(poolRecord, { ...poolRecord.pool, status: 'RUNNING' });
      break;
    case 'deletePool':
      if (op.nodePool !== undefined) {
        record.pools.delete(op.nodePool);
        // GKE drops the deprecated cluster.nodeConfig mirror with the default pool.
        if (op.nodePool === 'default-pool') delete record.cluster.nodeConfig;
      }
      break;
    case 'createCluster':
      record.cluster.status = 'RUNNING';
      for (const p of record.pools.values()) writePool(p, { ...p.pool, status: 'RUNNING' });
      break;
    case 'deleteCluster':
      state.clusters.delete(clusterKey(op.projectId, op.location, op.cluster));
      return;
    case 'upgradeMaster':
      record.cluster.currentMasterVersion = change.version;
      break;
    case 'none':
      break;
  }
  refreshCluster(state, record);
}

function failChange(state: ClusterState, op: OperationRecord, cancelled: boolean): void {
  const record = targetRecord(state, op);
  if (!record) return;
  const poolRecord = op.nodePool === undefined ? undefined : record.pools.get(op.nodePool);
  if (poolRecord) {
    // A cancelled update leaves the pool as it was (chosen: the real partial state is unknown).
    const status = cancelled && op.change.kind === 'updatePool' ? 'RUNNING' : state.settings.failedPoolStatus;
    writePool(poolRecord, { ...poolRecord.pool, status }, { bump: true });
  }
  if (op.change.kind === 'createCluster' || op.change.kind === 'deleteCluster')
    record.cluster.status = 'ERROR';
  refreshCluster(state, record);
}

const pct = (k: number, n: number) => (n === 0 ? 0 : (100 * k) / n).toFixed(1);

/**
 * The wire form of an operation at `now`: links in the caller's API version, progress metrics derived
 * from the clock (reading never changes the operation).
 */
export function renderOperation(state: ClusterState, op: OperationRecord, now: number, version: ApiVersion) {
  const fraction = progressOf(op, now);
  const n = op.nodesTotal;
  const k = Math.floor(n * fraction);
  const metric = (name: string, value: number) => ({ name, intValue: String(value) });
  const isNodes = op.type === 'UPGRADE_NODES';
  let progress: { metrics: { name: string; intValue: string }[] } | undefined;
  let detail: string | undefined;
  if (isNodes && op.status === 'RUNNING') {
    detail = `Updating ${op.nodePool}, processed ${k} out of ${n} nodes (${pct(k, n)}%)`;
    progress = { metrics: [metric('NODES_TOTAL', n), metric('NODES_COMPLETE', k), metric('NODES_DONE', k)] };
  } else if (isNodes && op.status !== 'PENDING') {
    const failed = op.error && op.error.code !== 1 ? Math.min(1, n - k) : 0;
    progress = {
      metrics: [
        metric('NODES_TOTAL', n),
        metric('NODES_FAILED', failed),
        metric('NODES_COMPLETE', k),
        metric('NODES_DONE', k + failed),
        metric('NODE_PDB_DELAY_SECONDS', 0),
      ],
    };
  }
  return {
    name: op.id,
    zone: op.location,
    operationType: op.type,
    status: op.status,
    ...(detail ? { detail } : {}),
    ...(op.statusMessage ? { statusMessage: op.statusMessage } : {}),
    selfLink: operationSelfLink(state, version, op.projectId, op.location, op.id),
    targetLink: targetLink(state, version, op.projectId, op.location, op.cluster, op.nodePool),
    startTime: timestamp(op.startTime),
    ...(op.endTime !== undefined ? { endTime: timestamp(op.endTime) } : {}),
    ...(progress ? { progress } : {}),
    // No error.details: the GAPIC REST client cannot decode ErrorInfo/RequestInfo inside an Operation.
    ...(op.error ? { error: { code: op.error.code, message: op.error.message } } : {}),
  };
}

/** RFC 3339 with microseconds, like the recorded responses (`2024-04-01T12:34:56.123456Z`). */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
