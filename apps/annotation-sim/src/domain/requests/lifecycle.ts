/**
 * A background request's life on the world clock: queued, started when a worker takes it, then
 * finished or failed when its work is done. One timer per request settles it; reading a request never
 * moves it, except the explicit "finish after N polls" fault.
 */
import type { Clock } from '@sims/sim-core';
import { countEndedRequest, forgetRequest } from './budget';
import {
  type BackgroundRequest,
  type RequestStatus,
  type RequestView,
  renderRequest,
  requestStatus,
} from './model';
import type { RequestsState } from './state';

/** How a new request runs: the world's settings, or a fault rule's effect. */
export interface RequestPlan {
  /** Time from enqueue to the outcome, ms. */
  durationMs: number;
  /** Time spent queued before `started`, ms (capped at the duration). */
  queuedMs: number;
  /** Finish after this many status polls instead of after a duration. */
  polls?: number;
  /** Fail with this message instead of doing the work. */
  failWith?: string;
  /** The worker dies: the request stays `started`. */
  lost?: boolean;
}

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

/** How long a request stays once ended: exports the cache TTL, others RQ's result or failure TTL. */
function ttlOf(rs: RequestsState, r: BackgroundRequest): number {
  if (r.work.kind !== 'create:task') return EXPORT_CACHE_TTL_MS;
  return r.outcome?.status === 'failed' ? rs.settings.failureTtlMs : rs.settings.resultTtlMs;
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

/** The status of the request with this id now, if there is one. */
export function statusOf(rs: RequestsState, id: string, now: number): RequestStatus | undefined {
  const r = findRequest(rs, id, now);
  return r && requestStatus(r, now);
}

/**
 * Enqueues a request (a finished, failed or expired one with the same id is replaced; the caller
 * refuses an active one with 409). A request due at once is settled before this returns.
 */
export function enqueueRequest(
  rs: RequestsState,
  clock: Clock,
  input: NewRequest,
  plan: RequestPlan,
): BackgroundRequest {
  const now = clock.now();
  for (const [id, r] of rs.requests) if (isExpired(rs, r, now)) forgetRequest(rs, id);
  const old = rs.requests.get(input.id);
  if (old?.timer !== undefined) clock.cancel(old.timer);
  const polls = plan.polls;
  const waits = polls !== undefined || plan.lost === true;
  const r: BackgroundRequest = {
    ...input,
    createdAt: now,
    startAt: polls !== undefined ? now : now + Math.min(plan.queuedMs, plan.durationMs),
    finishAt: waits ? null : now + plan.durationMs,
    pollsLeft: polls ?? null,
    failWith: plan.failWith ?? null,
    lost: plan.lost ?? false,
    outcome: null,
  };
  forgetRequest(rs, r.id);
  rs.requests.set(r.id, r);
  armRequest(rs, clock, r);
  return r;
}

/** (Re-)arms the outcome timer of a pending request; one already due is settled now. */
export function armRequest(rs: RequestsState, clock: Clock, r: BackgroundRequest): void {
  if (r.outcome || r.finishAt === null) return;
  if (r.finishAt <= clock.now()) {
    settleRequest(rs, r, r.finishAt);
    return;
  }
  r.timer = clock.at(r.finishAt, () => {
    r.timer = undefined;
    if (rs.requests.get(r.id) === r) settleRequest(rs, r, r.finishAt as number);
  });
}

/**
 * Ends a request at `at`: a planned failure, or its work done by the hooks (finished with its result,
 * or failed with the work's message). A forced outcome (control plane) skips the work when failing.
 */
export function settleRequest(
  rs: RequestsState,
  r: BackgroundRequest,
  at: number,
  force?: { fail: string },
): void {
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
  if (r.outcome || r.pollsLeft === null) return;
  if (r.pollsLeft > 0) r.pollsLeft--;
  else settleRequest(rs, r, now);
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
