/**
 * Finished events export jobs in the process's memory budget (docs/decisions/0019): they count in the
 * `requests` pool with the other background requests, and only once finished or failed.
 */
import type { WorldBudget } from '@sims/sim-core';
import type { ExportJob } from './export';
import type { EventsState } from './state';

/** The budget's slot of a world's finished export jobs (in the `requests` pool, with the other requests). */
const EXPORT_JOBS_SLOT = 'event-exports';
/** What a finished job record costs, about (its fields, its query, its map entry). */
const JOB_BYTES = 640;

/**
 * The world's finished export jobs in the process's memory budget (docs/decisions/0019), made on first
 * use with the finished jobs there are then. An evicted job is gone, as an expired one: its status and
 * its download answer as CVAT answers for a job RQ no longer has.
 */
export function jobsBudget(state: EventsState) {
  return state.budget?.queue<string>(
    'requests',
    EXPORT_JOBS_SLOT,
    (rqId) => {
      if (state.jobs.get(rqId)?.outcome) state.jobs.delete(rqId);
    },
    () =>
      [...state.jobs.values()].filter((j) => j.outcome !== null).map((j) => [j.rqId, jobBytes(j)] as const),
  );
}

export const jobBytes = (job: ExportJob) => JOB_BYTES + (job.filename?.length ?? 0) + job.queryId.length;

/** Counts a world's finished jobs in the budget (after an import). */
export function enrollFinishedJobs(state: EventsState): void {
  if (state.budget && [...state.jobs.values()].some((j) => j.outcome !== null)) jobsBudget(state);
}

/** Lets go of the world's export-jobs member (its jobs are being replaced by a snapshot's). */
export function releaseExportJobsBudget(budget: WorldBudget | undefined): void {
  budget?.release(EXPORT_JOBS_SLOT);
}

/** A job leaves the table for its own reasons (expired, replaced): the budget forgets it too. */
export function forgetJob(state: EventsState, rqId: string): void {
  state.jobs.delete(rqId);
  if (state.budget?.find(EXPORT_JOBS_SLOT)) jobsBudget(state)?.remove(rqId);
}
