import { isPlainObject } from '@sims/sim-core';
import { pythonStr, renderDrfJson } from '../python-json';
import type { EventRecord } from './record';
import { type EventsState, recordEvents } from './state';

/**
 * Server events (`cvat/apps/events/handlers.py`): every create, update and delete of a resource is one
 * row (an update is one row per changed field), with CVAT's scope strings and object fields.
 */

/** Resources whose changes CVAT logs, with the actions it logs for each (`EventScopes.RESOURCES`). */
const SERVER_EVENT_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  accesstoken: ['create', 'update', 'delete'],
  project: ['create', 'update', 'delete'],
  task: ['create', 'update', 'delete'],
  job: ['create', 'update', 'delete'],
  organization: ['create', 'update', 'delete'],
  membership: ['create', 'update', 'delete'],
  invitation: ['create', 'delete'],
  user: ['create', 'update', 'delete'],
  cloudstorage: ['create', 'update', 'delete'],
  issue: ['create', 'update', 'delete'],
  comment: ['create', 'update', 'delete'],
  label: ['create', 'update', 'delete'],
  webhook: ['create', 'update', 'delete'],
};

/**
 * One resource change, as the resource layer records it (`emit` in domain/mutation.ts). Structurally a subset
 * of the resource layer's own `ResourceChange`, so its changes can be passed as they are.
 *
 * @example { scope: 'create:task', resource: taskAsGetReturnsIt, actor: { id: 1, username: 'admin', email: 'a@x', requestId }, org: null }
 */
export interface ResourceChange {
  /** `create:task`, `update:job`, `delete:project`, … */
  scope: string;
  /** The resource as its GET returns it: after the change, or the pre-delete snapshot. */
  resource: Record<string, unknown>;
  /** Updates: the representation before the change. */
  before?: Record<string, unknown> | null;
  /** Who made the change (null: the simulator itself); `requestId` is the request's `X-Request-Id`. */
  actor?: { id: number; username: string; email?: string | null; requestId?: string } | null;
  /** The organization of the resource (not of the request); null for sandbox resources. */
  org?: { id: number; slug: string } | null;
  /** Project, task and job the resource belongs to (read from the representation when absent). */
  projectId?: number | null;
  taskId?: number | null;
  jobId?: number | null;
  /** `X-Request-Id` of the request that caused the change, when not on the actor. */
  requestId?: string | null;
  userAgent?: string | null;
  accessTokenId?: number | null;
  /** When the change happened (ISO string or epoch ms); default: the world clock's now. */
  time?: string | number;
}

/** Fields `_cleanup_fields` removes from payloads (and `url` inside nested objects). */
const CLEANUP_FIELDS = new Set([
  'slug',
  'id',
  'name',
  'username',
  'display_name',
  'message',
  'organization',
  'project',
  'size',
  'task',
  'tasks',
  'job',
  'jobs',
  'comments',
  'url',
  'issues',
  'attributes',
  'key',
]);

function cleanup(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (CLEANUP_FIELDS.has(k)) continue;
    out[k] = isPlainObject(v) ? Object.fromEntries(Object.entries(v).filter(([kk]) => kk !== 'url')) : v;
  }
  return out;
}

function stripUrl(v: unknown): unknown {
  return isPlainObject(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'url')) : v;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** `_get_object_name`: name for organizations, projects, tasks, labels; username; display_name; message. */
function objectName(resource: string, r: Record<string, unknown>): string | null {
  const pick = (key: string) => (typeof r[key] === 'string' ? (r[key] as string) : null);
  switch (resource) {
    case 'organization':
    case 'project':
    case 'task':
    case 'label':
      return pick('name');
    case 'user':
      return pick('username');
    case 'cloudstorage':
      return pick('display_name');
    case 'comment':
      return pick('message');
    default:
      return null;
  }
}

const intOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
const idOf = (v: unknown): number | null => (isPlainObject(v) ? intOrNull(v.id) : intOrNull(v));

/** Project, task and job ids of a resource: given explicitly, else read from its representation. */
function contextIds(resource: string, r: Record<string, unknown>, given: ResourceChange) {
  const id = intOrNull(r.id);
  const derived = {
    project_id: resource === 'project' ? id : (idOf(r.project_id) ?? idOf(r.project)),
    task_id: resource === 'task' ? id : (idOf(r.task_id) ?? idOf(r.task)),
    job_id: resource === 'job' ? id : (idOf(r.job_id) ?? idOf(r.job)),
  };
  return {
    project_id: given.projectId !== undefined ? given.projectId : derived.project_id,
    task_id: given.taskId !== undefined ? given.taskId : derived.task_id,
    job_id: given.jobId !== undefined ? given.jobId : derived.job_id,
  };
}

/**
 * The rows CVAT logs for one resource change: one for create and delete, one per changed field for
 * update (`obj_name` = field, `obj_val` = Python `str()` of the new value, payload `{"old_value": …}`;
 * `labels` is ignored). Scopes outside CVAT's list (e.g. `update:invitation`) log nothing.
 *
 * @example serverEventRecords({ scope: 'delete:task', resource: { id: 3, name: 't' } }, clock.now())
 */
export function serverEventRecords(change: ResourceChange, now: number): EventRecord[] {
  const [action, resource] = change.scope.split(':') as [string, string | undefined];
  if (!resource || !SERVER_EVENT_RESOURCES[resource]?.includes(action)) return [];
  const r = change.resource;
  const ids = contextIds(resource, r, change);
  const requestInfo: Record<string, unknown> = {};
  const requestId = change.requestId ?? change.actor?.requestId;
  if (requestId) requestInfo.id = requestId;
  if (change.userAgent) requestInfo.user_agent = change.userAgent;
  const timestamp = typeof change.time === 'string' ? Date.parse(change.time) : (change.time ?? now);
  const userId = change.actor?.id ?? null;
  const userName = change.actor?.username ?? null;
  // `user_email(instance)` is `email or None`.
  const userEmail = change.actor?.email || null;
  const orgId = change.org?.id ?? (resource === 'organization' ? intOrNull(r.id) : null);
  const orgSlug =
    change.org?.slug ?? (resource === 'organization' && typeof r.slug === 'string' ? r.slug : null);
  const accessTokenId = change.accessTokenId ?? null;
  // Every row is one object literal of one shape (rows are made per changed field of every update).
  const row = (objId: number | null, objName: string | null, objVal: string | null, payload: string) => ({
    source: 'server',
    timestamp,
    count: null,
    duration: 0,
    project_id: ids.project_id,
    task_id: ids.task_id,
    job_id: ids.job_id,
    user_id: userId,
    user_name: userName,
    user_email: userEmail,
    org_id: orgId,
    org_slug: orgSlug,
    access_token_id: accessTokenId,
    scope: change.scope,
    obj_id: objId,
    obj_name: objName,
    obj_val: objVal,
    payload,
  });
  if (action === 'create') {
    // `{**payload, "request": …}`: a `request` key already there keeps its place.
    const payload = renderDrfJson({ ...cleanup(r), request: requestInfo });
    return [row(intOrNull(r.id), objectName(resource, r), null, payload)];
  }
  // The payload's tail, the same for every row of this change: `"request":{…}}`.
  const requestTail = `"request":${renderDrfJson(requestInfo)}}`;
  if (action === 'delete') return [row(intOrNull(r.id), objectName(resource, r), null, `{${requestTail}`)];
  const before = change.before ?? {};
  const out: EventRecord[] = [];
  for (const prop in r) {
    if (prop === 'labels' || prop === 'url') continue;
    const value = r[prop];
    const old = before[prop];
    if ((old ?? null) === (value ?? null)) continue;
    if (typeof old === 'object' && typeof value === 'object' && deepEqual(old, value)) continue;
    out.push(
      row(
        // getattr(instance, f"{prop}_id"): set for foreign keys (assignee → assignee_id).
        isPlainObject(value) ? intOrNull(value.id) : null,
        prop,
        pythonStr(stripUrl(value) ?? null),
        `{"old_value":${renderDrfJson(stripUrl(old) ?? null)},${requestTail}`,
      ),
    );
  }
  return out;
}

/**
 * Logs a resource change as server events (dropped while the store is disconnected): the events API's
 * listener on every world's changes (src/changes-dispatch.ts).
 *
 * @example recordResourceChange(eventsOf(state), change, Date.parse(change.time))
 */
export function recordResourceChange(events: EventsState, change: ResourceChange, now: number): void {
  recordEvents(events, serverEventRecords(change, now));
}
