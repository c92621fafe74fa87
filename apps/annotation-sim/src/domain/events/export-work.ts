/**
 * The events exports as the world's long-running work (sim-core's `timers.ts`): how a job's outcome is
 * put on the clock, re-armed after an import, and dropped when the control plane ends or a client
 * cancels it.
 */
import type { WorkKind, WorldTimers } from '@sims/sim-core';
import { endStep } from '@sims/sim-core';
import { completeJob } from './export';
import type { ExportJob } from './export-job';
import type { EventsState } from './state';

/** The name of the export jobs' kind of work: what cancels a job's step without the state's accessor. */
const EXPORT_WORK = 'events-export';

/**
 * The export jobs of the events part of a world's state (`events` reads it) as long-running work: a
 * pending job's one step is its outcome at `finishAt` (none in "N polls" mode or while it waits for the
 * control plane). Every kind made here is the same kind (its name).
 *
 * @example world.timers.rearm(exportJobs(eventsOf))
 */
export function exportJobs<S>(events: (state: S) => EventsState): WorkKind<S, ExportJob, 'settle'> {
  return {
    name: EXPORT_WORK,
    items: (state) => events(state).jobs.values(),
    key: (job) => job.rqId,
    steps: (job) => endStep(job.outcome ? null : job.finishAt, 'settle' as const),
    fire(state, rqId, _end, at) {
      const jobs = events(state);
      const job = jobs.jobs.get(rqId);
      if (job) completeJob(jobs, job, at);
    },
  };
}

/** Ends a job now (control plane): its step dropped, then failed with `fail` when given, else settled. */
export function endJobNow(
  timers: Pick<WorldTimers<unknown>, 'cancel'>,
  state: EventsState,
  job: ExportJob,
  now: number,
  fail?: string,
): void {
  if (fail !== undefined) job.failWith = fail;
  timers.cancel(EXPORT_WORK, job.rqId);
  completeJob(state, job, now);
}

/** Cancels a job no worker took yet (`POST /api/requests/{id}/cancel`): it is gone, its step too. */
export function cancelQueuedJob(
  state: EventsState,
  timers: Pick<WorldTimers<unknown>, 'cancel'>,
  job: ExportJob,
): void {
  timers.cancel(EXPORT_WORK, job.rqId);
  state.jobs.delete(job.rqId);
}
