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
import { cancelQueuedRequest, findRequest, liveRequests, renderBackgroundRequest } from './lifecycle';
import { type RequestStatus, requestStatus } from './model';
import type { RequestsState } from './state';

/** One request as the requests API lists, filters, reads and cancels it. */
export interface RequestEntry {
  id: string;
  ownerId: number;
  status: RequestStatus;
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
    status: RequestStatus;
  };
  /** The task whose view permission lets a non-owner read the request (task creation); else none. */
  taskId: number | null;
  render(): Record<string, unknown>;
  /** Removes it if it is still queued: true when it was. */
  cancel(): boolean;
}

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
      if (requestStatus(r, src.now) !== 'queued') return false;
      cancelQueuedRequest(src.requests, src.timers, r);
      return true;
    },
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
      if (jobStatus(job, src.now) !== 'queued') return false;
      cancelQueuedJob(events, src.timers, job);
      return true;
    },
  };
}

/** The request with this id, from whichever source has it. */
export function findEntry(src: RequestSources, id: string): RequestEntry | undefined {
  return parseRqId(id) ? exportEntry(src, id) : backgroundEntry(src, id);
}

/** Every request the caller owns (CVAT lists only the caller's own, admins included), unsorted. */
export function ownEntries(src: RequestSources, userId: number): RequestEntry[] {
  const out: RequestEntry[] = [];
  for (const r of liveRequests(src.requests, src.now)) {
    if (r.owner.id !== userId) continue;
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
