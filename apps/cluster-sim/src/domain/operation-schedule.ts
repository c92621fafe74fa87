import { stepLimit, stepTime } from './rollouts';
import type { OperationRecord } from './state';

/** Clock events that move an operation. */
export type OperationEvent = 'run' | 'step' | 'finish' | 'fail' | 'aborted';

/** The clock events still ahead of an operation, in time order (time-mode plans and aborts). */
export function operationTimeline(op: OperationRecord): { at: number; event: OperationEvent }[] {
  if (op.status === 'DONE') return [];
  if (op.status === 'ABORTING')
    return op.abortDoneAt === undefined ? [] : [{ at: op.abortDoneAt, event: 'aborted' }];
  if (op.plan.mode !== 'time') return [];
  const { runningAt, doneAt } = op.plan;
  const events: { at: number; event: OperationEvent }[] = [];
  if (op.status === 'PENDING') events.push({ at: runningAt, event: 'run' });
  const rollout = op.rollout;
  if (rollout) {
    const limit = stepLimit(rollout);
    for (let i = rollout.reached + 1; i < limit; i++)
      events.push({ at: stepTime(op, rollout, i), event: 'step' });
    // A fault on a batch or phase: it fails where the next one would start, or never ends (a stall).
    if (rollout.failsAt !== undefined) {
      events.push({ at: stepTime(op, rollout, rollout.failsAt), event: 'fail' });
      return events;
    }
    if (rollout.stalledAt !== undefined) return events;
  }
  if (op.failure)
    events.push({ at: runningAt + Math.round(op.failure.atProgress * (doneAt - runningAt)), event: 'fail' });
  else events.push({ at: doneAt, event: 'finish' });
  return events;
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
