/**
 * Finished background requests in the process's memory budget (`requests`, docs/decisions/0019): a
 * request counts once it ended (finished or failed), with the file an export made for download; one
 * still queued or running is never counted, so never evicted. An evicted request is gone as an expired
 * one is: `GET /api/requests/{id}` and its download answer as CVAT answers for a request RQ no longer has.
 */
import { budgetedTable, type WorldBudget } from '@sims/sim-core';
import type { BackgroundRequest } from './model';

/**
 * What the budget reads of a world's background requests (`RequestsState` has it): the table and the
 * world's budget. Named here so the budget needs nothing from the state module, which calls it.
 */
interface BudgetedRequests {
  readonly requests: Map<string, BackgroundRequest>;
  readonly budget?: WorldBudget;
}

/** What a request record costs besides its file, about (its fields, operation, owner, map entry). */
const REQUEST_BYTES = 1024;

/** About what an ended request keeps: the record and, for an export, its file (base64, one byte a character). */
function requestBytes(r: BackgroundRequest): number {
  const outcome = r.outcome;
  if (!outcome || outcome.status === 'stopped') return REQUEST_BYTES;
  if (outcome.status === 'failed') return REQUEST_BYTES + outcome.message.length;
  return REQUEST_BYTES + (outcome.file?.base64.length ?? 0) + (outcome.resultPath?.length ?? 0);
}

/** A world's requests table in the budget: its ended requests count. */
export const REQUESTS_TABLE = budgetedTable<string, BackgroundRequest>({
  kind: 'requests',
  slot: 'requests',
  finished: (r) => r.outcome !== null,
  bytes: requestBytes,
});

/** A request ended: it counts in the budget from now on (which may evict it at once if it is larger than the share). */
export function countEndedRequest(rs: BudgetedRequests, r: BackgroundRequest): void {
  if (rs.requests.get(r.id) === r) REQUESTS_TABLE.count(rs.budget, rs.requests, r.id);
}

/** A request leaves the table for its own reasons (expired, replaced): the budget forgets it too. */
export function forgetRequest(rs: BudgetedRequests, id: string): void {
  REQUESTS_TABLE.forget(rs.requests, id);
}

/** Counts a world's ended requests in the budget (after an import). */
export function enrollEndedRequests(rs: BudgetedRequests): void {
  REQUESTS_TABLE.sync(rs.budget, rs.requests);
}

/** Lets go of the world's requests member (its requests are being replaced by a snapshot's). */
export function releaseRequestsBudget(budget: WorldBudget | undefined): void {
  REQUESTS_TABLE.release(budget);
}
