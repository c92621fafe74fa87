/**
 * Finished events export jobs in the process's memory budget (docs/decisions/0019): they count in the
 * `requests` pool with the other background requests, and only once finished or failed. An evicted job
 * is gone, as an expired one: its status and its download answer as CVAT answers for a job RQ no longer
 * has.
 */
import { budgetedTable, type WorldBudget } from '@sims/sim-core';
import type { ExportJob } from './export-job';

/**
 * What the budget reads of a world's events state (`EventsState` has it): the jobs table and the world's
 * budget. Named here so the budget needs nothing from the state module, which calls it.
 */
interface BudgetedJobs {
  readonly jobs: Map<string, ExportJob>;
  readonly budget?: WorldBudget;
}

/** What a finished job record costs, about (its fields, its query, its map entry). */
const JOB_BYTES = 640;

/** A world's export jobs in the budget (a slot of the `requests` pool, beside the other requests). */
export const EXPORT_JOBS_TABLE = budgetedTable<string, ExportJob>({
  kind: 'requests',
  slot: 'event-exports',
  finished: (j) => j.outcome !== null,
  bytes: (j) => JOB_BYTES + (j.filename?.length ?? 0) + j.queryId.length,
});

/** A job finished or failed: it counts in the budget from now on. */
export function countFinishedJob(state: BudgetedJobs, job: ExportJob): void {
  if (state.jobs.get(job.rqId) === job) EXPORT_JOBS_TABLE.count(state.budget, state.jobs, job.rqId);
}

/** Counts a world's finished jobs in the budget (after an import). */
export function enrollFinishedJobs(state: BudgetedJobs): void {
  EXPORT_JOBS_TABLE.sync(state.budget, state.jobs);
}

/** Lets go of the world's export-jobs member (its jobs are being replaced by a snapshot's). */
export function releaseExportJobsBudget(budget: WorldBudget | undefined): void {
  EXPORT_JOBS_TABLE.release(budget);
}

/** A job leaves the table for its own reasons (expired, downloaded, replaced): the budget forgets it too. */
export function forgetJob(state: BudgetedJobs, rqId: string): void {
  EXPORT_JOBS_TABLE.forget(state.jobs, rqId);
}
