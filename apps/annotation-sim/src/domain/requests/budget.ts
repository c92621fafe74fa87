/**
 * Finished background requests in the process's memory budget (`requests`, docs/decisions/0019): a
 * request counts once it ended (finished or failed), with the file an export made for download; one
 * still queued or running is never counted, so never evicted. An evicted request is gone as an expired
 * one is: `GET /api/requests/{id}` and its download answer as CVAT answers for a request RQ no longer has.
 */
import type { WorldBudget } from '@sims/sim-core';
import type { BackgroundRequest } from './model';
import type { RequestsState } from './state';

/** The budget's slot of a world's finished requests. */
const REQUESTS_SLOT = 'requests';
/** What a request record costs besides its file, about (its fields, operation, owner, map entry). */
const REQUEST_BYTES = 1024;

/** About what an ended request keeps: the record and, for an export, its file (base64, one byte a character). */
function requestBytes(r: BackgroundRequest): number {
  const outcome = r.outcome;
  if (!outcome) return REQUEST_BYTES;
  if (outcome.status === 'failed') return REQUEST_BYTES + outcome.message.length;
  return REQUEST_BYTES + (outcome.file?.base64.length ?? 0) + (outcome.resultPath?.length ?? 0);
}

/**
 * The world's finished requests in the budget, made on first use with the ended requests there are
 * then (a snapshot's).
 */
function requestsBudget(rs: RequestsState) {
  return rs.budget?.queue<string>(
    'requests',
    REQUESTS_SLOT,
    (id) => {
      if (rs.requests.get(id)?.outcome) rs.requests.delete(id);
    },
    () =>
      [...rs.requests.values()]
        .filter((r) => r.outcome !== null)
        .map((r) => [r.id, requestBytes(r)] as const),
  );
}

/** A request ended: it counts in the budget from now on (which may evict it at once if it is larger than the share). */
export function countEndedRequest(rs: RequestsState, r: BackgroundRequest): void {
  if (r.outcome && rs.requests.get(r.id) === r) requestsBudget(rs)?.add(r.id, requestBytes(r));
}

/** A request leaves the table for its own reasons (expired, replaced): the budget forgets it too. */
export function forgetRequest(rs: RequestsState, id: string): void {
  rs.requests.delete(id);
  if (rs.budget?.find(REQUESTS_SLOT)) requestsBudget(rs)?.remove(id);
}

/** Counts a world's ended requests in the budget (after an import). */
export function enrollEndedRequests(rs: RequestsState): void {
  if (rs.budget && [...rs.requests.values()].some((r) => r.outcome !== null)) requestsBudget(rs);
}

/** Lets go of the world's requests member (its requests are being replaced by a snapshot's). */
export function releaseRequestsBudget(budget: WorldBudget | undefined): void {
  budget?.release(REQUESTS_SLOT);
}
