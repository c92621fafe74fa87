import { planWork } from '@sims/sim-core';
import { createCsvStream } from '../../domain/events/csv';
import {
  buildExportQuery,
  countPoll,
  type EventsCaller,
  exportFileName,
  findJob,
  forcedFilters,
  formatRqId,
  type JobPlan,
  jobStatus,
  normalizeUuid,
  parseRqId,
  startExportJob,
} from '../../domain/events/export';
import { forgetJob } from '../../domain/events/export-budget';
import type { ExportJob } from '../../domain/events/export-job';
import { exportJobs } from '../../domain/events/export-work';
import type { EventsState } from '../../domain/events/state';
import { annotationEffects } from '../../domain/fault-effects';
import { cvatJson, djangoHtml, djangoServerError, emptyBody, PERMISSION_DENIED } from '../respond';
import { type EventsContext, type EventsEdge, params, renderExportError } from './edge';

/** RFC 9745 `Deprecation` of the legacy `GET /api/events` (deprecated 2025-03-17 UTC). */
const DEPRECATION = { Deprecation: '@1742169600' };

/** The job plan of a new export: the world's settings, changed by the request's fault rules. */
function planFor<S>(c: EventsContext<S>, events: EventsState): JobPlan {
  const sim = c.var.sim;
  const delay = annotationEffects.takeEffect(sim, 'exportDelay');
  const fails = annotationEffects.takeEffect(sim, 'exportFails');
  const usual = { durationMs: events.settings.exportDurationMs, queuedMs: events.settings.exportQueuedMs };
  const plan: JobPlan = planWork(usual, delay, fails?.after);
  if (fails) plan.failWith = fails.message;
  if (annotationEffects.takeEffect(sim, 'analyticsStoreDown') !== undefined) plan.storeDown = true;
  return plan;
}

/**
 * django-sendfile2's `Content-Disposition`: an ASCII fallback (NFKD, non-ASCII dropped) and, when that
 * differs, the RFC 5987 `filename*=UTF-8''…` form.
 */
function contentDisposition(filename: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  const ascii = filename.normalize('NFKD').replace(/[^\x00-\x7f]/g, '');
  const parts = ['attachment', `filename="${ascii}"`];
  if (ascii !== filename) {
    const quoted = encodeURIComponent(filename).replace(
      /[!'()*]/g,
      (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
    );
    parts.push(`filename*=UTF-8''${quoted}`);
  }
  return parts.join('; ');
}

function csvResponse<S>(
  c: EventsContext<S>,
  events: EventsState,
  job: ExportJob,
  filename: string,
): Response {
  const outcome = job.outcome as { rowLimit: number };
  const headers = new Headers({
    'content-type': 'text/csv',
    'content-disposition': contentDisposition(filename),
    'x-request-id': c.var.sim.requestId,
  });
  return new Response(createCsvStream(events.store, job.query, outcome.rowLimit), { status: 200, headers });
}

/** `POST /api/events/export`: starts an export job (202 with its `rq_id`; 409 while one runs). */
export function createExport<S>(c: EventsContext<S>, caller: EventsCaller, edge: EventsEdge<S>): Response {
  const sim = c.var.sim;
  const forced = forcedFilters(caller);
  if (!forced.ok) return renderExportError(c, forced.error);
  const q = params(c);
  const queryId = q.query_id !== undefined ? normalizeUuid(q.query_id) : sim.world.ids.uuid();
  // uuid.UUID(query_id) raises ValueError: unhandled.
  if (queryId === undefined) return djangoServerError(c, 'ValueError: badly formed hexadecimal UUID string');
  const location = q.location ?? 'local';
  if (location !== 'local' && location !== 'cloud_storage') {
    return cvatJson(c, [`Unexpected location ${location} specified for the request`], 400);
  }
  const cloud = location === 'cloud_storage';
  if (cloud && !q.cloud_storage_id) {
    return cvatJson(
      c,
      ['Cloud storage location was selected as the destination, but cloud storage id was not specified'],
      400,
    );
  }
  const world = sim.world;
  const events = edge.events(world.state);
  const now = world.clock.now();
  const query = buildExportQuery(caller, q, now, (ids) => edge.minimalFrom?.(world.state, ids) ?? 0);
  if (!query.ok) return renderExportError(c, query.error);
  const rqId = formatRqId(queryId, caller.id);
  const existing = findJob(events, rqId, now);
  if (existing) {
    const status = jobStatus(existing, now);
    if (status === 'queued' || status === 'started') return renderExportError(c, { code: 'CONFLICT', rqId });
  }
  const job = startExportJob(
    events,
    world,
    exportJobs(edge.events),
    { queryId, caller, query: query.value, filename: q.filename || null, cloud },
    planFor(c, events),
  );
  return cvatJson(c, { rq_id: job.rqId }, 202);
}

/** `GET /api/events/download?rq_id=`: the CSV of a finished export. */
export function downloadExport<S>(c: EventsContext<S>, caller: EventsCaller, edge: EventsEdge<S>): Response {
  const rqId = params(c).rq_id;
  if (!rqId) return cvatJson(c, ['Missing request id in the query parameters'], 400);
  const parsed = parseRqId(rqId);
  if (!parsed) return cvatJson(c, ['Unexpected request id format'], 400);
  if (!caller.isAdmin && parsed.userId !== caller.id) return cvatJson(c, { detail: PERMISSION_DENIED }, 403);
  const world = c.var.sim.world;
  const events = edge.events(world.state);
  const now = world.clock.now();
  const job = findJob(events, formatRqId(parsed.queryId, parsed.userId), now);
  if (!job) return djangoHtml(c, 400, 'Unknown export request id');
  if (jobStatus(job, now) !== 'finished') return djangoHtml(c, 400, 'The export process is not finished');
  if (job.cloud) return djangoHtml(c, 400, 'The export process has no result file to be downloaded locally');
  if (job.fileExpired) return cvatJson(c, 'The exported file has expired, please retry exporting', 404);
  return csvResponse(c, events, job, exportFileName(job.filename, job.createdAt));
}

/** `GET /api/events`: the deprecated flow (CVAT's `export()` in cvat/apps/events/export.py). */
export function legacyExport<S>(c: EventsContext<S>, caller: EventsCaller, edge: EventsEdge<S>): Response {
  const sim = c.var.sim;
  const forced = forcedFilters(caller);
  if (!forced.ok) return renderExportError(c, forced.error);
  const q = params(c);
  const action = q.action;
  if (action !== undefined && action !== 'download') {
    return cvatJson(c, ['Unexpected action specified for the request'], 400);
  }
  // `query_id=` with no value (what the SDK sends on its first call) is read as absent: a new query.
  const queryId = q.query_id ? normalizeUuid(q.query_id) : sim.world.ids.uuid();
  if (queryId === undefined) return djangoServerError(c, 'ValueError: badly formed hexadecimal UUID string');
  const world = sim.world;
  const now = world.clock.now();
  const events = edge.events(world.state);
  const rqId = formatRqId(queryId, caller.id);
  const job = findJob(events, rqId, now);
  if (job) {
    countPoll(events, job, now);
    const status = jobStatus(job, now);
    const fileExists = status === 'finished' && !job.fileExpired && !job.cloud;
    if (status === 'finished' && fileExists) {
      if (action === 'download') {
        forgetJob(events, rqId);
        // datetime.now(): the server's local time at download, which is UTC in CVAT's images.
        return csvResponse(c, events, job, exportFileName(q.filename || null, now));
      }
      return emptyBody(c, 201, DEPRECATION);
    }
    if (status === 'failed') {
      forgetJob(events, rqId);
      const message = job.outcome?.status === 'failed' ? job.outcome.message : '';
      return cvatJson(c, message, 500, DEPRECATION);
    }
    if (status === 'queued' || status === 'started')
      return cvatJson(c, { query_id: queryId }, 202, DEPRECATION);
  }
  if (q.location === 'cloud_storage' || q.cloud_storage_id !== undefined) {
    return cvatJson(c, ['This endpoint does not support exporting events to cloud storage'], 400);
  }
  const query = buildExportQuery(caller, q, now, (ids) => edge.minimalFrom?.(world.state, ids) ?? 0);
  if (!query.ok) return renderExportError(c, query.error);
  startExportJob(
    events,
    world,
    exportJobs(edge.events),
    { queryId, caller, query: query.value, filename: null, cloud: false },
    planFor(c, events),
  );
  return cvatJson(c, { query_id: queryId }, 202, DEPRECATION);
}
