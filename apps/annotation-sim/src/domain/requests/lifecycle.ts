/**
 * A background request's life on the world clock: queued, started when a worker takes it, then
 * finished or failed when its work is done. Its one clock step (the world's timers, sim-core's
 * `timers.ts`) settles it; reading a request never moves it, except the explicit "finish after N polls"
 * fault.
 */
import { endStep, pollEnds, type WorkKind, type WorkPlan, type WorldTimers, workTimes } from '@sims/sim-core';
import { countEndedRequest, forgetRequest } from './budget';
import {
  type BackgroundRequest,
  type RequestState,
  type RequestView,
  renderRequest,
  requestStatus,
} from './model';
import { type RequestsState, requestsOf } from './state';

/** How a new request runs: the world's settings changed by fault rules (`http/request-plan.ts`). */
export interface RequestPlan extends WorkPlan {
  /** Fail with this message instead of doing the work. */
  failWith?: string;
  /** The worker dies: the request stays `started`. */
  lost?: boolean;
}

/** What ends a request: its step on the clock, or the control plane (which may fail it). */
type RequestEnd = 'settle' | { fail: string };

/** The part of a world's state the requests live in (`extensions`). */
type RequestsHost = Parameters<typeof requestsOf>[0];

/**
 * Background requests as long-running work of the world: a pending request's one step is its outcome
 * at `finishAt` (none while it waits for polls, for the control plane, or forever when lost).
 */
export const REQUEST_WORK: WorkKind<RequestsHost, BackgroundRequest, RequestEnd> = {
  name: 'request',
  items: (state) => requestsOf(state).requests.values(),
  key: (r) => r.id,
  steps: (r) => endStep(r.outcome ? null : r.finishAt, 'settle' as const),
  fire(state, id, end, at) {
    const rs = requestsOf(state);
    const r = rs.requests.get(id);
    if (r) settleRequest(rs, r, at, end === 'settle' ? undefined : end);
  },
};

/** What the caller of {@link enqueueRequest} gives; the lifecycle fields come from the plan. */
export type NewRequest = Pick<
  BackgroundRequest,
  'id' | 'operation' | 'owner' | 'httpRequestId' | 'baseUrl' | 'work'
>;

/**
 * CVAT's export cache TTL, an export's `result_ttl` and `failure_ttl` both (24 h, the default the
 * events export uses too).
 */
const EXPORT_CACHE_TTL_MS = 86_400_000;

/** CVAT's `IMPORT_CACHE_SUCCESS_TTL` (1 h) and `IMPORT_CACHE_FAILED_TTL` (30 days): every import's. */
const IMPORT_CACHE_TTL_MS = { finished: 3_600_000, failed: 30 * 86_400_000 };

/** How long a request stays once ended: exports the cache TTL, imports theirs, others RQ's result or failure TTL. */
function ttlOf(rs: RequestsState, r: BackgroundRequest): number {
  if (r.work.kind.startsWith('import:')) {
    return r.outcome?.status === 'finished' ? IMPORT_CACHE_TTL_MS.finished : IMPORT_CACHE_TTL_MS.failed;
  }
  if (r.work.kind !== 'create:task') return EXPORT_CACHE_TTL_MS;
  return r.outcome?.status === 'finished' ? rs.settings.resultTtlMs : rs.settings.failureTtlMs;
}

function isExpired(rs: RequestsState, r: BackgroundRequest, now: number): boolean {
  return r.outcome !== null && now >= r.outcome.at + ttlOf(rs, r);
}

/** The request with this id, unless it expired (RQ dropped it). */
export function findRequest(rs: RequestsState, id: string, now: number): BackgroundRequest | undefined {
  const r = rs.requests.get(id);
  return r && !isExpired(rs, r, now) ? r : undefined;
}

/** Every request that has not expired, oldest first. */
export function liveRequests(rs: RequestsState, now: number): BackgroundRequest[] {
  return [...rs.requests.values()].filter((r) => !isExpired(rs, r, now));
}

/** The state of the request with this id now, if there is one. */
export function statusOf(rs: RequestsState, id: string, now: number): RequestState | undefined {
  const r = findRequest(rs, id, now);
  return r && requestStatus(r, now);
}

/**
 * Enqueues a request (a finished, failed or expired one with the same id is replaced; the caller
 * refuses an active one with 409) and puts its outcome on the world's timers. A request due at once is
 * settled before this returns.
 */
export function enqueueRequest(
  rs: RequestsState,
  world: { clock: { now(): number }; timers: WorldTimers<RequestsHost> },
  input: NewRequest,
  plan: RequestPlan,
): BackgroundRequest {
  const now = world.clock.now();
  for (const [id, r] of rs.requests) if (isExpired(rs, r, now)) forgetRequest(rs, id);
  const times = workTimes(plan, now);
  const r: BackgroundRequest = {
    ...input,
    createdAt: now,
    startAt: times.startAt,
    finishAt: plan.lost === true ? null : times.finishAt,
    pollsLeft: times.pollsLeft,
    failWith: plan.failWith ?? null,
    lost: plan.lost ?? false,
    outcome: null,
  };
  forgetRequest(rs, r.id);
  rs.requests.set(r.id, r);
  // Replaces what a request of the same id had on the clock.
  world.timers.arm(REQUEST_WORK, r);
  return r;
}

/** Ends a pending request now (control plane): its step dropped, its work done, or failed with `fail`. */
export function endRequestNow(
  timers: WorldTimers<RequestsHost>,
  r: BackgroundRequest,
  now: number,
  fail?: string,
): void {
  timers.settle(REQUEST_WORK, r.id, fail === undefined ? 'settle' : { fail }, now);
}

/** Cancels a request no worker took yet (`POST /api/requests/{id}/cancel`): it is gone, its step too. */
export function cancelQueuedRequest(
  rs: RequestsState,
  timers: Pick<WorldTimers<unknown>, 'cancel'>,
  r: BackgroundRequest,
): void {
  timers.cancel(REQUEST_WORK, r.id);
  rs.requests.delete(r.id);
}

/**
 * Stops a started request (`POST /api/requests/{id}/cancel` of a started export, RQ's
 * `send_stop_job_command`): its worker's work horse is killed, so the work never ends, no result is kept
 * and no `completed:request` webhook goes out (RQ runs no failure callback for a stopped job); the job
 * stays, `stopped`, until a read deletes it or its TTL ends. A lost request's worker is gone: the
 * command reaches no one and the request stays started.
 */
export function stopRequest(
  rs: RequestsState,
  timers: Pick<WorldTimers<unknown>, 'cancel'>,
  r: BackgroundRequest,
  at: number,
): void {
  if (r.lost || r.outcome !== null) return;
  timers.cancel(REQUEST_WORK, r.id);
  r.outcome = { status: 'stopped', at };
  countEndedRequest(rs, r);
}

/** A stopped request read through the requests API: CVAT deletes the job then (`job.delete()`). */
export function deleteStoppedRequest(rs: RequestsState, r: BackgroundRequest): void {
  if (r.outcome?.status !== 'stopped') return;
  forgetRequest(rs, r.id);
  rs.requests.delete(r.id);
}

/**
 * Ends a request at `at`: a planned failure, or its work done by the hooks (finished with its result,
 * or failed with the work's message). A forced outcome (control plane) skips the work when failing.
 */
function settleRequest(rs: RequestsState, r: BackgroundRequest, at: number, force?: { fail: string }): void {
  if (r.outcome) return;
  if (r.startAt > at) r.startAt = at;
  const failWith = force?.fail ?? r.failWith;
  if (failWith !== null) r.outcome = { status: 'failed', at, message: failWith };
  else {
    const result = rs.hooks.run(r, at);
    r.outcome =
      'failed' in result
        ? { status: 'failed', at, message: result.failed }
        : { status: 'finished', at, ...result };
  }
  rs.hooks.ended(r);
  // Ended: history now, which the memory budget may evict (never a request still running).
  countEndedRequest(rs, r);
}

/** Counts one status poll: a request in "N polls" mode ends on the poll after its N-th. */
export function countRequestPoll(rs: RequestsState, r: BackgroundRequest, now: number): void {
  if (!r.outcome && pollEnds(r)) settleRequest(rs, r, now);
}

/**
 * What the requests API shows of a request at `now`. `progress` stays 0: CVAT's task creation sets it
 * only while it builds static chunks (off by default), and exports never set it.
 */
export function viewRequest(rs: RequestsState, r: BackgroundRequest, now: number): RequestView {
  const status = requestStatus(r, now);
  const ended = r.outcome?.at ?? null;
  const ttl = ttlOf(rs, r);
  const finished = r.outcome?.status === 'finished' ? r.outcome : null;
  // A stopped request is never rendered by the API (the control plane shows its state).
  return {
    id: r.id,
    status,
    message: r.outcome?.status === 'failed' ? r.outcome.message : '',
    operation: r.operation,
    progress: 0,
    createdAt: r.createdAt,
    startedAt: status === 'queued' ? null : r.startAt,
    finishedAt: ended,
    expiresAt: ended === null ? null : ended + ttl,
    owner: r.owner,
    resultUrl: finished?.resultPath ? `${r.baseUrl}${finished.resultPath}` : null,
    resultId: finished?.resultId ?? null,
  };
}

/** `GET /api/requests/{id}` of a background request. */
export function renderBackgroundRequest(rs: RequestsState, r: BackgroundRequest, now: number) {
  return renderRequest(viewRequest(rs, r, now));
}
