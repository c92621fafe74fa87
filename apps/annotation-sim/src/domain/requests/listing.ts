/**
 * The requests API's view of every background request a world has (its own and the events exports):
 * who may read or cancel one, and the fields `GET /api/requests` filters and sorts on.
 */
import type { WorldTimers } from '@sims/sim-core';
import { isAdmin } from '../access';
import { type ApiError, fail, ok, type Result } from '../errors';
import { findJob, jobStatus, parseRqId, renderRequest as renderExportJob } from '../events/export';
import { cancelQueuedJob } from '../events/export-work';
import type { EventsState } from '../events/state';
import type { UserRec } from '../model';
import { mayUse } from '../resource-rules';
import type { AnnotationState } from '../state';
import {
  cancelQueuedRequest,
  deleteStoppedRequest,
  findRequest,
  liveRequests,
  renderBackgroundRequest,
  stopRequest,
} from './lifecycle';
import { type BackgroundRequest, type RequestState, requestStatus } from './model';
import { canonicalRequestId } from './request-id';
import type { RequestsState } from './state';

/** One request as the requests API lists, filters, reads and cancels it. */
export interface RequestEntry {
  id: string;
  ownerId: number;
  /** `stopped`: a cancelled started export, which the requests API answers as not there. */
  status: RequestState;
  createdAt: number;
  /** The fields of CVAT's simple filters (from the request id and the job's meta). */
  fields: {
    action: string;
    target: string;
    subresource: string | null;
    format: string | null;
    project_id: number | null;
    task_id: number | null;
    job_id: number | null;
    org_id: number | null;
    org: string | null;
    status: RequestState;
  };
  /** The task whose view permission lets a non-owner read the request (task creation); else none. */
  taskId: number | null;
  render(): Record<string, unknown>;
  /**
   * `POST /api/requests/{id}/cancel` of a request that is not stopped: a queued one is removed, a
   * started export stopped; null when done, else the text of CVAT's 400.
   */
  cancel(): string | null;
  /** A stopped request read: CVAT deletes it (`job.delete()`) before its 404. */
  drop(): void;
}

/** CVAT's 400 for a request that ended (`Requests with status 'finished' cannot be cancelled`). */
const endedRefusal = (status: string) => `Requests with status '${status}' cannot be cancelled`;

/** CVAT's 400 for a started request that is not a dataset, annotations or backup export. */
const STARTED_REFUSAL =
  'Cancellation of started requests is supported only for export requests executed by production workers';

/** `_is_export_request`: action `export` with subresource annotations, dataset or backup. */
const isStoppable = (r: BackgroundRequest) =>
  r.work.kind === 'export:dataset' || r.work.kind === 'export:annotations' || r.work.kind === 'export:backup';

/** Where the requests come from: a world's registry and its events exports. */
export interface RequestSources {
  state: AnnotationState;
  requests: RequestsState;
  events: EventsState | undefined;
  now: number;
  baseUrl: string;
  /** The world's timers, where a request cancelled while queued drops its step. */
  timers: Pick<WorldTimers<unknown>, 'cancel'>;
}

const orgSlug = (state: AnnotationState, orgId: number | null) =>
  orgId === null ? null : (state.organizations.get(orgId)?.slug ?? null);

/** A request id's `subresource` (`action=export&…&subresource=dataset`), if it has one. */
function subresourceOf(id: string): string | null {
  return new URLSearchParams(id).get('subresource');
}

function backgroundEntry(src: RequestSources, id: string): RequestEntry | undefined {
  const r = findRequest(src.requests, id, src.now);
  if (!r) return undefined;
  const status = requestStatus(r, src.now);
  const op = r.operation;
  const [action = '', kind = ''] = op.type.split(':');
  return {
    id: r.id,
    ownerId: r.owner.id,
    status,
    createdAt: r.createdAt,
    fields: {
      action,
      target: op.target,
      subresource: kind === op.target ? null : kind,
      format: op.format,
      project_id: op.project_id,
      task_id: op.task_id,
      job_id: op.job_id,
      org_id: op.org_id,
      org: orgSlug(src.state, op.org_id),
      status,
    },
    taskId: subresourceOf(r.id) === null && op.type === 'create:task' ? op.task_id : null,
    render: () => renderBackgroundRequest(src.requests, r, src.now),
    cancel() {
      const now = requestStatus(r, src.now);
      if (now === 'queued') {
        cancelQueuedRequest(src.requests, src.timers, r);
        return null;
      }
      if (now !== 'started') return endedRefusal(now);
      if (!isStoppable(r)) return STARTED_REFUSAL;
      stopRequest(src.requests, src.timers, r, src.now);
      return null;
    },
    drop: () => deleteStoppedRequest(src.requests, r),
  };
}

function exportEntry(src: RequestSources, id: string): RequestEntry | undefined {
  const events = src.events;
  const job = events && findJob(events, id, src.now);
  if (!events || !job) return undefined;
  const status = jobStatus(job, src.now);
  return {
    id: job.rqId,
    ownerId: job.owner.id,
    status,
    createdAt: job.createdAt,
    fields: {
      action: 'export',
      target: 'events',
      subresource: null,
      format: null,
      project_id: null,
      task_id: null,
      job_id: null,
      org_id: job.orgId,
      org: orgSlug(src.state, job.orgId),
      status,
    },
    taskId: null,
    render: () => renderExportJob(events, job, src.now, src.baseUrl),
    cancel() {
      const now = jobStatus(job, src.now);
      if (now === 'queued') {
        cancelQueuedJob(events, src.timers, job);
        return null;
      }
      // An events export has no subresource: once started it runs to its end.
      return now === 'started' ? STARTED_REFUSAL : endedRefusal(now);
    },
    drop() {},
  };
}

/**
 * The request with this id, from whichever source has it: the id as `RequestId.parse` reads it (legacy
 * forms too) and renders it back, the form RQ keeps the job under; none when CVAT cannot parse it.
 */
export function findEntry(src: RequestSources, id: string): RequestEntry | undefined {
  const canonical = canonicalRequestId(id);
  if (canonical === undefined) return undefined;
  return parseRqId(canonical) ? exportEntry(src, canonical) : backgroundEntry(src, canonical);
}

/** Every request the caller owns (CVAT lists only the caller's own, admins included), unsorted. */
export function ownEntries(src: RequestSources, userId: number): RequestEntry[] {
  const out: RequestEntry[] = [];
  for (const r of liveRequests(src.requests, src.now)) {
    // RQ's canceled and stopped jobs are left out of the list.
    if (r.owner.id !== userId || r.outcome?.status === 'stopped') continue;
    const e = backgroundEntry(src, r.id);
    if (e) out.push(e);
  }
  for (const job of src.events?.jobs.values() ?? []) {
    if (job.owner.id !== userId) continue;
    const e = exportEntry(src, job.rqId);
    if (e) out.push(e);
  }
  return out;
}

/**
 * Who may read a request: its owner or an admin; a task creation request (its id names no user)
 * anyone who may view the task. Else DRF's 403.
 */
export function mayReadRequest(state: AnnotationState, user: UserRec, e: RequestEntry): Result<void> {
  if (isAdmin(user) || e.ownerId === user.id) return ok(undefined);
  const task = e.taskId === null ? undefined : state.tasks.get(e.taskId);
  if (task) return mayUse(state, user, { kind: 'task', rec: task });
  return fail({ code: 'PERMISSION_DENIED' } satisfies ApiError);
}

/** Who may cancel a request: its owner or an admin. */
export function mayCancelRequest(user: UserRec, e: RequestEntry): Result<void> {
  return isAdmin(user) || e.ownerId === user.id ? ok(undefined) : fail({ code: 'PERMISSION_DENIED' });
}
