import { enumNumbers, RpcCode } from '@sims/cluster-schema';
import { type ChangeAppliers, completeChange, failChange, targetRecord } from './change-applier';
import { fail, ok, type Result } from './errors';
import { operationId } from './names';
import { refreshCluster, writePool } from './node-pools';
import { type OperationEvent, progressOf } from './operation-schedule';
import { countDoneOperation, forgetOperation } from './operations-budget';
import { operationMade } from './operations-live';
import { blueGreenInfo, stepFraction, stepLimit, stepTime } from './rollouts';
import type {
  ClusterRecord,
  ClusterState,
  OperationFailure,
  OperationRecord,
  OperationStatusName,
  OperationTypeName,
  PendingChange,
  PoolRecord,
  Rollout,
  RpcCodeName,
} from './state';
import { timestamp } from './timestamp';

/**
 * An operation's lifecycle: created PENDING, moved on by clock events (`fireOperationEvent`) or by
 * polls, cancelled or settled from outside. When it ends, its change lands or shows the failure through
 * the appliers the caller hands in (`changes`: operation-changes.ts's table). This module imports none of
 * the modules that start operations: they import it (change-applier.ts).
 */

/** The operation lifecycle as data: which status may follow which. */
export const OPERATION_TRANSITIONS: Readonly<Record<OperationStatusName, readonly OperationStatusName[]>> = {
  PENDING: ['RUNNING', 'ABORTING', 'DONE'],
  RUNNING: ['DONE', 'ABORTING'],
  ABORTING: ['DONE'],
  DONE: [],
};

/** `google.rpc.Code` numbers, from the schema package (the one source of the enum). */
const RPC_NUMBERS = enumNumbers(RpcCode) as Readonly<Record<RpcCodeName, number>>;

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
  /** A node rollout: its steps set the operation's running time (unless a fault's timing overrides it). */
  rollout?: Rollout;
}

/** Creates an operation in PENDING. The caller arms it on the world's timers (operation-work.ts). */
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
  // A rollout runs for its steps' time after the usual PENDING tenth of an operation.
  const pendingMs = Math.round(duration * 0.1);
  const rolloutTime =
    input.rollout !== undefined && input.timing?.durationMs === undefined && input.rollout.total > 0;
  const op: OperationRecord = {
    id: operationId(now, ids),
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
        : rolloutTime
          ? {
              mode: 'time',
              runningAt: now + pendingMs,
              doneAt: now + pendingMs + (input.rollout?.total ?? 0),
            }
          : { mode: 'time', runningAt: now + pendingMs, doneAt: now + duration },
    nodesTotal: input.nodesTotal,
    failure: input.failure,
    change: input.change,
    ...(input.rollout ? { rollout: input.rollout } : {}),
  };
  state.operations.set(op.id, op);
  operationMade(state, op);
  forgetOldOperations(state);
  return op;
}

/**
 * Records an operation that is already over (DONE, no error, `startTime` = `endTime` = `now`, no change):
 * the incompatible operation a `clusterBusy` fault names, standing for the GKE-initiated one that was
 * running, so that `operations.get`/`list` find it and it holds nothing afterwards.
 */
export function recordDoneOperation(
  state: ClusterState,
  input: { projectId: string; location: string; type: OperationTypeName; cluster: string },
  now: number,
  ids: { uuid(): string },
): OperationRecord {
  const op = createOperation(
    state,
    { ...input, nodesTotal: 0, change: { kind: 'none' }, timing: { durationMs: 0 } },
    now,
    ids,
  );
  op.status = 'DONE';
  op.endTime = now;
  countDoneOperation(state, op);
  return op;
}

/** Drops the oldest DONE operations beyond `maxOperations` (running ones are always kept). */
function forgetOldOperations(state: ClusterState): void {
  let excess = state.operations.size - state.settings.maxOperations;
  if (excess <= 0) return;
  for (const [id, op] of state.operations) {
    if (excess <= 0) break;
    if (op.status === 'DONE') {
      forgetOperation(state, id);
      excess--;
    }
  }
}

function transition(op: OperationRecord, to: OperationStatusName): boolean {
  if (!OPERATION_TRANSITIONS[op.status].includes(to)) return false;
  op.status = to;
  return true;
}

/** Applies one event to an operation and its target; events that no longer apply are ignored. */
export function fireOperationEvent(
  state: ClusterState,
  opId: string,
  event: OperationEvent,
  now: number,
  changes: ChangeAppliers,
): void {
  const op = state.operations.get(opId);
  if (!op) return;
  switch (event) {
    case 'run':
      transition(op, 'RUNNING');
      return;
    case 'step':
      if (op.status === 'PENDING') transition(op, 'RUNNING');
      if (op.status === 'RUNNING') advanceRollout(state, op, (i, r) => stepTime(op, r, i) <= now, now);
      return;
    case 'finish':
      if (op.status === 'ABORTING') return;
      if (op.status === 'PENDING') transition(op, 'RUNNING');
      if (!transition(op, 'DONE')) return;
      op.endTime = now;
      completeChange(state, op, changes);
      release(op);
      countDoneOperation(state, op);
      return;
    case 'fail': {
      if (op.status === 'ABORTING' || op.status === 'DONE') return;
      if (op.rollout) advanceRollout(state, op, (i, r) => stepTime(op, r, i) <= now, now);
      const failure = op.failure ?? {
        atProgress: progressOf(op, now),
        status: 'INTERNAL',
        message: 'Internal error.',
      };
      endWithError(state, op, changes, failure.status, failure.message, failure.atProgress, now);
      return;
    }
    case 'aborted': {
      if (op.status !== 'ABORTING') return;
      const { status, message } = state.settings.cancelError;
      endWithError(state, op, changes, status, message, op.endedAt ?? 0, now, true);
      return;
    }
  }
}

function endWithError(
  state: ClusterState,
  op: OperationRecord,
  changes: ChangeAppliers,
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
  failChange(state, op, changes, cancelled);
  release(op);
  countDoneOperation(state, op);
}

/**
 * A DONE operation keeps what it answers with (status, times, progress), not the pools its change and
 * rollout carried: up to 10,000 operations are kept per world, and those copies were most of their size.
 */
function release(op: OperationRecord): void {
  op.change = { kind: 'none' };
  if (op.rollout) op.rollout.from = {};
}

/** Poll-driven plans: each `operations.get` counts as one step (an explicit, documented exception). */
export function pollOperation(
  state: ClusterState,
  op: OperationRecord,
  now: number,
  changes: ChangeAppliers,
): void {
  if (op.plan.mode !== 'polls' || op.status === 'DONE' || op.status === 'ABORTING') return;
  const rollout = op.rollout;
  // A stalled rollout stays where it stopped, however often it is read.
  if (
    rollout?.stalledAt !== undefined &&
    op.plan.seen / op.plan.polls >= stepFraction(rollout, rollout.stalledAt)
  )
    return;
  op.plan.seen++;
  if (op.status === 'PENDING') transition(op, 'RUNNING');
  const fraction = op.plan.seen / op.plan.polls;
  if (rollout) {
    advanceRollout(state, op, (i, r) => stepFraction(r, i) <= fraction, now);
    if (rollout.failsAt !== undefined) {
      if (fraction >= stepFraction(rollout, rollout.failsAt))
        fireOperationEvent(state, op.id, 'fail', now, changes);
      return;
    }
    if (rollout.stalledAt !== undefined) return;
  }
  if (op.failure && fraction >= op.failure.atProgress) fireOperationEvent(state, op.id, 'fail', now, changes);
  else if (op.plan.seen >= op.plan.polls) fireOperationEvent(state, op.id, 'finish', now, changes);
}

/** Applies the steps of a running rollout that are due now (after its plan changed: completeUpgrade). */
export function catchUpRollout(state: ClusterState, op: OperationRecord, now: number): void {
  if (op.status !== 'RUNNING' || !op.rollout) return;
  const plan = op.plan;
  if (plan.mode === 'time') advanceRollout(state, op, (i, r) => stepTime(op, r, i) <= now, now);
  else advanceRollout(state, op, (i, r) => stepFraction(r, i) <= plan.seen / plan.polls, now);
}

/** The pool an operation works on, if it (and its cluster) still exist. */
function targetPool(
  state: ClusterState,
  op: OperationRecord,
): { record: ClusterRecord; pool: PoolRecord } | undefined {
  const record = targetRecord(state, op);
  const pool = op.nodePool === undefined ? undefined : record?.pools.get(op.nodePool);
  return record && pool ? { record, pool } : undefined;
}

/**
 * Applies the rollout's steps that are due (`due(i)`), in order, up to a stall or failure: the pool
 * shows the blue-green phase reached, the cluster counts the surge nodes or the green pool.
 */
function advanceRollout(
  state: ClusterState,
  op: OperationRecord,
  due: (i: number, rollout: Rollout) => boolean,
  now: number,
): void {
  const rollout = op.rollout;
  if (!rollout) return;
  const limit = stepLimit(rollout);
  let moved = false;
  while (rollout.reached + 1 < limit && due(rollout.reached + 1, rollout)) {
    rollout.reached++;
    moved = true;
  }
  if (!moved) return;
  const target = targetPool(state, op);
  if (!target) return;
  const step = rollout.steps[rollout.reached];
  if (step?.phase !== undefined) {
    const soakEnd =
      step.phase === 'NODE_POOL_SOAKING' || step.phase === 'DELETING_BLUE_POOL'
        ? timestamp(op.plan.mode === 'time' ? stepTime(op, rollout, soakEndIndex(rollout)) : now)
        : undefined;
    writePool(target.pool, { ...target.pool.pool, updateInfo: blueGreenInfo(rollout, step, soakEnd) });
  }
  refreshCluster(state, target.record);
}

/** The step where the node pool soak ends (the blue pool's deletion starts). */
function soakEndIndex(rollout: Rollout): number {
  const i = rollout.steps.findIndex((s) => s.phase === 'DELETING_BLUE_POOL');
  return i < 0 ? rollout.steps.length : i;
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
  changes: ChangeAppliers,
  failure?: { status: RpcCodeName; message: string },
): Result<OperationRecord> {
  if (op.status === 'DONE') return fail({ code: 'OPERATION_ALREADY_DONE', operation: op.id });
  if (failure) endWithError(state, op, changes, failure.status, failure.message, progressOf(op, now), now);
  else if (op.status === 'ABORTING') fireOperationEvent(state, op.id, 'aborted', now, changes);
  else fireOperationEvent(state, op.id, 'finish', now, changes);
  return ok(op);
}
