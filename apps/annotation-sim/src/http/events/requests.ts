import type { Context } from 'hono';
import {
  countPoll,
  type EventsCaller,
  type ExportJob,
  findJob,
  jobStatus,
  renderRequest,
} from '../../domain/events/export';
import type { EventsState } from '../../domain/events/state';
import { cvatJson, djangoHtml, emptyBody, PERMISSION_DENIED } from '../respond';
import { type EventsContext, type EventsEdge, params } from './edge';

/** Scheme, host and any `/_ns/<name>` prefix of the request, for `result_url`. */
function baseUrlOf(c: Context): string {
  const url = new URL(c.req.url);
  const ns = /^\/_ns\/[^/]+/.exec(url.pathname);
  return `${url.origin}${ns ? ns[0] : ''}`;
}

function positiveInt(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return n > 0 ? n : undefined;
}

/** The job of `/api/requests/{id}…` if the caller may see it; else Django's 404 text or DRF's 403. */
function ownJob<S>(
  c: EventsContext<S>,
  caller: EventsCaller,
  events: EventsState,
  now: number,
): ExportJob | Response {
  const job = findJob(events, c.req.param('id') ?? '', now);
  if (!job) return djangoHtml(c, 404, 'There is no request with specified id');
  if (!caller.isAdmin && job.owner.id !== caller.id) return cvatJson(c, { detail: PERMISSION_DENIED }, 403);
  return job;
}

/** `GET /api/requests/{id}`: one export job as CVAT's requests API renders it (counts as a poll). */
export function retrieveRequest<S>(c: EventsContext<S>, caller: EventsCaller, edge: EventsEdge<S>): Response {
  const world = c.var.sim.world;
  const events = edge.events(world.state);
  const now = world.clock.now();
  const job = ownJob(c, caller, events, now);
  if (job instanceof Response) return job;
  countPoll(events, job, now);
  return cvatJson(c, renderRequest(events, job, now, baseUrlOf(c)));
}

/** `POST /api/requests/{id}/cancel`: only a job that has not started yet can be cancelled. */
export function cancelRequest<S>(c: EventsContext<S>, caller: EventsCaller, edge: EventsEdge<S>): Response {
  const world = c.var.sim.world;
  const events = edge.events(world.state);
  const now = world.clock.now();
  const job = ownJob(c, caller, events, now);
  if (job instanceof Response) return job;
  if (jobStatus(job, now) !== 'queued') {
    return djangoHtml(c, 400, 'Only requests that have not yet been started can be cancelled');
  }
  if (job.timer !== undefined) world.clock.cancel(job.timer);
  events.jobs.delete(job.rqId);
  return emptyBody(c, 200);
}

/** `GET /api/requests`: the caller's export jobs, newest first, paginated as DRF does. */
export function listRequests<S>(c: EventsContext<S>, caller: EventsCaller, edge: EventsEdge<S>): Response {
  const world = c.var.sim.world;
  const events = edge.events(world.state);
  const now = world.clock.now();
  const q = params(c);
  const base = baseUrlOf(c);
  let jobs = [...events.jobs.values()].filter(
    (j) => j.owner.id === caller.id && findJob(events, j.rqId, now),
  );
  if (q.status) jobs = jobs.filter((j) => jobStatus(j, now) === q.status);
  if (q.action && q.action !== 'export') jobs = [];
  if (q.target && q.target !== 'events') jobs = [];
  jobs.sort((a, b) => b.createdAt - a.createdAt);
  const size = q.page_size === 'all' ? Math.max(jobs.length, 1) : (positiveInt(q.page_size) ?? 10);
  const page = q.page === undefined ? 1 : positiveInt(q.page);
  const pages = Math.max(1, Math.ceil(jobs.length / size));
  if (page === undefined || page > pages) return cvatJson(c, { detail: 'Invalid page.' }, 404);
  const url = new URL(c.req.url);
  const link = (p: number | null) => {
    if (p === null) return null;
    const u = new URL(`${base}/api/requests${url.search}`);
    if (p === 1) u.searchParams.delete('page');
    else u.searchParams.set('page', String(p));
    return u.toString();
  };
  return cvatJson(c, {
    count: jobs.length,
    next: link(page < pages ? page + 1 : null),
    previous: link(page > 1 ? page - 1 : null),
    results: jobs.slice((page - 1) * size, page * size).map((j) => renderRequest(events, j, now, base)),
  });
}
