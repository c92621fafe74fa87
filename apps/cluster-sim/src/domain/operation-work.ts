/**
 * Operations and their node rollouts as the world's long-running work (sim-core's `timers.ts`): the
 * records stay in `state.operations`, the world's timers hold their clock events, so nothing outside
 * the world keeps a timer and a state import puts every operation back on the clock
 * (`world.timers.rearm(OPERATION_WORK)`). The edge arms an operation when it starts it and again when
 * it changes its plan (a cancel, completeUpgrade); the lifecycle itself stays in operations.ts.
 */
import type { WorkKind, WorldTimers } from '@sims/sim-core';
import { fail, ok, type Result } from './errors';
import { OPERATION_CHANGES } from './operation-changes';
import { type OperationEvent, operationTimeline } from './operation-schedule';
import { fireOperationEvent, pollOperation, settleNow } from './operations';
import type { ClusterState, OperationRecord, RpcCodeName } from './state';

/** What ends an operation from outside its plan: the control plane's complete, or fail with this error. */
interface SettleEvent {
  readonly settle: { status: RpcCodeName; message: string } | null;
}

/** A clock event of an operation's plan, or the control plane ending it now. */
export type OperationWorkEvent = OperationEvent | SettleEvent;

/**
 * Operations as long-running work of the world: an operation's steps are its plan's clock events still
 * ahead (start, rollout steps, finish or fail, the end of an abort); none once DONE or while it waits for
 * polls. Each lands through the change appliers (operation-changes.ts), which only this edge-side
 * module hands the lifecycle.
 */
export const OPERATION_WORK: WorkKind<ClusterState, OperationRecord, OperationWorkEvent> = {
  name: 'operation',
  items: (state) => state.operations.values(),
  key: (op) => op.id,
  steps: operationTimeline,
  fire(state, id, event, at) {
    if (typeof event === 'string') {
      fireOperationEvent(state, id, event, at, OPERATION_CHANGES);
      return;
    }
    const op = state.operations.get(id);
    if (op) settleNow(state, op, at, OPERATION_CHANGES, event.settle ?? undefined);
  },
};

/** The world an operation runs in, as the edge holds it. */
interface OperationWorld {
  readonly state: ClusterState;
  readonly clock: { now(): number };
  readonly timers: WorldTimers<ClusterState>;
}

/**
 * Ends an operation now (`POST /_sim/operations/{id}/complete|fail`): its clock events dropped, its
 * change applied, or failed with `failure`. An operation already DONE is refused and left as it is.
 */
export function endOperationNow(
  world: OperationWorld,
  op: OperationRecord,
  failure?: { status: RpcCodeName; message: string },
): Result<OperationRecord> {
  if (op.status === 'DONE') return fail({ code: 'OPERATION_ALREADY_DONE', operation: op.id });
  world.timers.settle(OPERATION_WORK, op.id, { settle: failure ?? null }, world.clock.now());
  return ok(op);
}

/**
 * Counts one `operations.get` of an operation in "N polls" mode (its plan has no clock events: each
 * poll is a step, and the last one ends it); other operations do not move when read.
 */
export function pollOperationWork(state: ClusterState, op: OperationRecord, now: number): void {
  pollOperation(state, op, now, OPERATION_CHANGES);
}
