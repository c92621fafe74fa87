import { pollEnds, type WorkKind, type WorkPlan, type WorldTimers, workTimes } from '@sims/sim-core';
import { renderRequest as renderRequestView } from '../requests/model';
import { countFinishedJob, forgetJob } from './export-budget';
import type { ExportJob, ExportStatus } from './export-job';
import { type EventQuery, ID_FILTERS, type IdFilter } from './record';
import type { EventsState } from './state';
import { formatFileTimestamp, parseIsoDateTime } from './time';

/**
 * Export jobs of the event log (`EventsExporter` + RQ): a job is queued, started, then finished or
 * failed. The lifecycle is data driven by the world clock: one step per job on the world's timers
 * marks the outcome, and reading a job never moves it, except the explicit "finish after N polls" fault.
 */

/**
 * What `format_exception_only` gives when clickhouse-connect cannot reach the server: the message a
 * failed export carries when the analytics store is disconnected.
 */
const STORE_UNREACHABLE_MESSAGE =
  "clickhouse_connect.driver.exceptions.OperationalError: Error HTTPConnectionPool(host='clickhouse', port=8123): Max retries exceeded with url: /?wait_end_of_query=1&send_progress_in_http_headers=1 (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f3c2a1b5e50>: Failed to establish a new connection: [Errno 111] Connection refused')) executing HTTP request attempt 1 (http://clickhouse:8123)\n";

/** Builds CVAT's export request id. */
export function formatRqId(queryId: string, userId: number): string {
  return `action=export&target=events&id=${queryId}&user_id=${userId}`;
}

/** Parses an events export request id; undefined when it does not have CVAT's format. */
export function parseRqId(rqId: string): { queryId: string; userId: number } | undefined {
  const params = new URLSearchParams(rqId);
  const keys = [...params.keys()];
  if (keys.join(',') !== 'action,target,id,user_id') return undefined;
  if (params.get('action') !== 'export' || params.get('target') !== 'events') return undefined;
  const queryId = normalizeUuid(params.get('id') ?? '');
  const userId = params.get('user_id') ?? '';
  if (!queryId || !/^\d+$/.test(userId)) return undefined;
  return { queryId, userId: Number(userId) };
}

/**
 * Python's `uuid.UUID(text)`: hyphens, braces and a `urn:uuid:` prefix are allowed, case is free; the
 * canonical form is lowercase with hyphens. Undefined when invalid (CVAT then fails with a 500).
 */
export function normalizeUuid(text: string): string | undefined {
  const hex = text
    .replace(/^urn:uuid:/i, '')
    .replace(/^\{|\}$/g, '')
    .replace(/-/g, '')
    .toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `startAt` of a job that waits until the control plane moves it (JSON-safe, unlike Infinity). */
const NEVER = Number.MAX_SAFE_INTEGER;

/** A job's status at time `now` (a pure read). Expired jobs are gone from RQ. */
export function jobStatus(job: ExportJob, now: number): ExportStatus {
  if (job.outcome) return job.outcome.status;
  return now >= job.startAt ? 'started' : 'queued';
}

function isExpired(state: EventsState, job: ExportJob, now: number): boolean {
  return job.outcome !== null && now >= job.outcome.at + state.settings.resultTtlMs;
}

/** The job with this id, unless it expired. */
export function findJob(state: EventsState, rqId: string, now: number): ExportJob | undefined {
  const job = state.jobs.get(rqId);
  return job && !isExpired(state, job, now) ? job : undefined;
}

// ---- filters and permissions (events.rego + EventsPermission.filter) ----

type OrgRole = 'owner' | 'maintainer' | 'supervisor' | 'worker';

/** The caller as the events permission sees it. */
export interface EventsCaller {
  id: number;
  username: string;
  email: string;
  /** Superuser or privilege `admin`. */
  isAdmin: boolean;
  /** Privilege group: `admin`, `user` or `worker` (the lowest). */
  privilege: string;
  /** The organization context (null: sandbox) and the caller's role in it (null: not a member). */
  org: { id: number; slug: string } | null;
  role: OrgRole | null;
  accessTokenId?: number | null;
}

export type ExportError =
  | { code: 'FORBIDDEN'; detail?: string }
  | { code: 'INVALID_LIST'; messages: string[] }
  | { code: 'SERVER_ERROR'; reason: string }
  | { code: 'CONFLICT'; rqId: string };

type R<T> = { ok: true; value: T } | { ok: false; error: ExportError };
const ok = <T>(value: T): R<T> => ({ ok: true, value });
const err = <T>(error: ExportError): R<T> => ({ ok: false, error });

/**
 * `dump:events` and the parameters OPA forces (reference 3.4): admins see everything (their org in an
 * org context); maintainers and owners with user privilege see their organization; anyone else only
 * their own events (in their organization, in an org context). Non-members of the org: 403.
 */
export function forcedFilters(caller: EventsCaller): R<Partial<Record<IdFilter, number>>> {
  if (caller.isAdmin) return ok(caller.org ? { org_id: caller.org.id } : {});
  if (!caller.org) return ok({ user_id: caller.id });
  if (caller.role === null) return err({ code: 'FORBIDDEN' });
  const userPrivilege = caller.privilege === 'user' || caller.privilege === 'admin';
  if ((caller.role === 'owner' || caller.role === 'maintainer') && userPrivilege)
    return ok({ org_id: caller.org.id });
  return ok({ user_id: caller.id, org_id: caller.org.id });
}

/** Query parameters of both export endpoints. */
export type ExportParams = Record<string, string | undefined>;

/**
 * Builds the export query from the request's parameters: forced filters first (a conflicting explicit
 * value is 403 "You don't have permission to view events with user_id=5"), then `from`/`to`
 * (`from > to` is 400; `from` defaults to `minimalFrom`, `to` to now).
 */
export function buildExportQuery(
  caller: EventsCaller,
  params: ExportParams,
  nowMs: number,
  minimalFrom: (ids: Partial<Record<IdFilter, number>>) => number,
): R<EventQuery> {
  const forced = forcedFilters(caller);
  if (!forced.ok) return forced;
  const merged: ExportParams = { ...params };
  for (const [attr, value] of Object.entries(forced.value)) {
    const given = params[attr];
    if (given !== undefined && given !== String(value)) {
      return err({
        code: 'FORBIDDEN',
        detail: `You don't have permission to view events with ${attr}=${given}`,
      });
    }
    merged[attr] = String(value);
  }
  const ids: Partial<Record<IdFilter, number>> = {};
  for (const key of ID_FILTERS) {
    const v = merged[key];
    if (!v) continue; // "ignored when falsy"
    // Chosen: ClickHouse rejects a non-integer UInt64 parameter; the simulator answers 400 up front.
    if (!/^\d+$/.test(v.trim()))
      return err({ code: 'INVALID_LIST', messages: [`Invalid value of "${key}": ${v}`] });
    ids[key] = Number(v.trim());
  }
  const times: { from?: number; to?: number } = {};
  for (const key of ['from', 'to'] as const) {
    const v = merged[key];
    if (!v) continue;
    const us = parseIsoDateTime(v);
    // isoparse raises a ValueError that `except ParserError` does not catch: an unhandled 500.
    if (us === undefined)
      return err({ code: 'SERVER_ERROR', reason: `ValueError: Invalid isoformat string: '${v}'` });
    times[key] = Math.floor(us / 1000);
  }
  if (times.from !== undefined && times.to !== undefined && times.from > times.to) {
    return err({ code: 'INVALID_LIST', messages: ["'from' must be before than 'to'"] });
  }
  return ok({ from: times.from ?? minimalFrom(ids), to: times.to ?? nowMs, ids });
}

// ---- lifecycle ----

/** How a new job runs: the world's settings changed by fault rules (`http/events/exports.ts`). */
export interface JobPlan extends WorkPlan {
  failWith?: string;
  storeDown?: boolean;
}

export interface NewJob {
  queryId: string;
  caller: EventsCaller;
  query: EventQuery;
  filename: string | null;
  cloud: boolean;
}

/**
 * Enqueues a job and puts its outcome on the world's timers (`kind`: `exportJobs` of the world's
 * state, `export-work.ts`). An expired or finished job with the same id is replaced, and what it had on the clock.
 */
export function startExportJob<S>(
  state: EventsState,
  world: { clock: { now(): number }; timers: WorldTimers<S> },
  kind: WorkKind<S, ExportJob, 'settle'>,
  input: NewJob,
  plan: JobPlan,
): ExportJob {
  const now = world.clock.now();
  // Expired jobs are gone from RQ: drop them here so a long-running world does not keep them.
  for (const [id, j] of state.jobs) if (isExpired(state, j, now)) forgetJob(state, id);
  const rqId = formatRqId(input.queryId, input.caller.id);
  const times = workTimes(plan, now);
  const job: ExportJob = {
    rqId,
    queryId: input.queryId,
    owner: { id: input.caller.id, username: input.caller.username },
    orgId: input.caller.org?.id ?? null,
    query: input.query,
    filename: input.filename,
    cloud: input.cloud,
    createdAt: now,
    startAt: times.startAt,
    finishAt: times.finishAt,
    pollsLeft: times.pollsLeft,
    failWith: plan.failWith ?? null,
    storeDown: plan.storeDown ?? false,
    outcome: null,
    fileExpired: false,
  };
  forgetJob(state, rqId);
  state.jobs.set(rqId, job);
  world.timers.arm(kind, job);
  return job;
}

/** Settles a job now: failed (planned failure, store unreachable) or finished over the current rows. */
export function completeJob(state: EventsState, job: ExportJob, at: number): void {
  if (job.outcome) return;
  if (job.startAt === NEVER) job.startAt = at;
  if (job.failWith !== null) job.outcome = { status: 'failed', at, message: job.failWith };
  else if (job.storeDown || !state.settings.storeConnected) {
    job.outcome = { status: 'failed', at, message: STORE_UNREACHABLE_MESSAGE };
  } else job.outcome = { status: 'finished', at, rowLimit: state.store.appended };
  if (job.startAt > at) job.startAt = at;
  // Finished: history now, which the budget may evict (never a job still running).
  countFinishedJob(state, job);
}

/**
 * Counts one status poll. Only jobs in "N polls" mode change: the first N polls see them running, the
 * next one finishes them (this is the one read that moves state, on purpose).
 */
export function countPoll(state: EventsState, job: ExportJob, now: number): void {
  if (!job.outcome && pollEnds(job)) completeJob(state, job, now);
}

/** The download file name: `filename`, or `logs_YYYY_MM_DD_HH_MM_SS.csv` of `time` (µs). */
export function exportFileName(filename: string | null, timeMs: number): string {
  return filename || `logs_${formatFileTimestamp(timeMs * 1000)}.csv`;
}

/** `GET /api/requests/{id}`: CVAT's `RequestSerializer` of an events export. */
export function renderRequest(
  state: EventsState,
  job: ExportJob,
  now: number,
  baseUrl: string,
): Record<string, unknown> {
  const status = jobStatus(job, now);
  const ended = job.outcome?.at ?? null;
  return renderRequestView({
    id: job.rqId,
    status,
    message: job.outcome?.status === 'failed' ? job.outcome.message : '',
    // An export request id carries `format` (none here) and `lightweight`; `function_id` is only
    // an auto-annotation request's.
    operation: {
      type: 'export:events',
      target: 'events',
      project_id: null,
      task_id: null,
      job_id: null,
      org_id: job.orgId,
      format: null,
      lightweight: null,
    },
    progress: 0,
    createdAt: job.createdAt,
    startedAt: status === 'queued' ? null : job.startAt,
    finishedAt: ended,
    expiresAt: ended === null ? null : ended + state.settings.resultTtlMs,
    owner: job.owner,
    resultUrl:
      status === 'finished' && !job.cloud
        ? `${baseUrl}/api/events/download?rq_id=${encodeURIComponent(job.rqId)}`
        : null,
    resultId: null,
  });
}

/** A job put directly into a given state (control plane, pact provider states, scenario seeds). */
export interface SeedJob {
  /** The query id (uuid) of the job; its rq_id is built from it and the owner. */
  queryId: string;
  owner: { id: number; username: string };
  status: ExportStatus;
  /** For `failed`: the message. */
  message?: string;
  filename?: string | null;
  orgId?: number | null;
  query?: Partial<EventQuery>;
  /** Enqueue time, epoch ms (default: now). */
  createdAt?: number;
}

/**
 * Creates a job in `status` at once. A `queued` or `started` job stays so until the control plane
 * completes it (no timer); `finished` covers the rows logged so far.
 *
 * @example seedExportJob(events, clock.now(), { queryId, owner: { id: 2, username: 'alice' }, status: 'finished' })
 */
export function seedExportJob(state: EventsState, now: number, seed: SeedJob): ExportJob {
  const queryId = normalizeUuid(seed.queryId);
  if (!queryId) throw new Error(`invalid query id "${seed.queryId}": expected a UUID`);
  const createdAt = seed.createdAt ?? now;
  const rqId = formatRqId(queryId, seed.owner.id);
  const job: ExportJob = {
    rqId,
    queryId,
    owner: { id: seed.owner.id, username: seed.owner.username },
    orgId: seed.orgId ?? null,
    query: { from: seed.query?.from ?? 0, to: seed.query?.to ?? now, ids: seed.query?.ids ?? {} },
    filename: seed.filename ?? null,
    cloud: false,
    createdAt,
    startAt: seed.status === 'queued' ? NEVER : createdAt,
    finishAt: null,
    pollsLeft: null,
    failWith: null,
    storeDown: false,
    outcome:
      seed.status === 'finished'
        ? { status: 'finished', at: now, rowLimit: state.store.appended }
        : seed.status === 'failed'
          ? { status: 'failed', at: now, message: seed.message ?? STORE_UNREACHABLE_MESSAGE }
          : null,
    fileExpired: false,
  };
  forgetJob(state, rqId);
  state.jobs.set(rqId, job);
  countFinishedJob(state, job);
  return job;
}
