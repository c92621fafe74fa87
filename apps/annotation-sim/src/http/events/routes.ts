import {
  parseDuration,
  parseInput,
  parseTime,
  readControlJson,
  resolveNamespace,
  type SimEnv,
  SimInputError,
  type SimKernel,
  type World,
} from '@sims/sim-core';
import type { Context } from 'hono';
import * as z from 'zod';
import type { EventsControlView, ExportJobView } from '../../control/views';
import { processClientEvents } from '../../domain/events/client-events';
import { createCsvStream } from '../../domain/events/csv';
import {
  buildExportQuery,
  completeJob,
  countPoll,
  type EventsCaller,
  type ExportJob,
  exportFileName,
  findJob,
  forcedFilters,
  formatRqId,
  type JobPlan,
  jobStatus,
  normalizeUuid,
  parseRqId,
  renderRequest,
  seedExportJob,
  startExportJob,
} from '../../domain/events/export';
import type { ExportDelayEffect, ExportFailsEffect } from '../../domain/events/faults';
import { PyJsonError, parsePyJson } from '../../domain/events/pyjson';
import { type ResourceChange, serverEventRecords } from '../../domain/events/server-events';
import {
  applyEventsSettings,
  describeEventsSettings,
  type EventsState,
  recordEvents,
} from '../../domain/events/state';
import type { EventRecord } from '../../domain/events/store';
import type { EventsDeps } from './deps';
import { DEPRECATION_HEADER, drf, PERMISSION_DENIED, plain, renderExportError, serverError } from './respond';

type Ctx<S> = Context<SimEnv<S>>;

/** `identify` answered with a response (401, 404 …) instead of a caller. */
async function callerOf<S>(deps: EventsDeps<S>, c: Ctx<S>): Promise<EventsCaller | Response> {
  return await deps.identify(c);
}

function baseUrlOf<S>(deps: EventsDeps<S>, c: Ctx<S>): string {
  if (deps.baseUrl) return deps.baseUrl(c);
  const url = new URL(c.req.url);
  const ns = /^\/_ns\/[^/]+/.exec(url.pathname);
  return `${url.origin}${ns ? ns[0] : ''}`;
}

/** Query parameters, first value of each (as DRF's `query_params.get`). */
function params<S>(c: Ctx<S>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URL(c.req.url).searchParams) if (!(k in out)) out[k] = v;
  return out;
}

/** The job plan of a new export: the world's settings, overridden by the request's fault rules. */
function planFor<S>(c: Ctx<S>, events: EventsState): JobPlan {
  const sim = c.var.sim;
  const plan: JobPlan = {
    durationMs: events.settings.exportDurationMs,
    queuedMs: events.settings.exportQueuedMs,
  };
  const delay = sim.takeEffect<ExportDelayEffect>('exportDelay');
  if (delay?.duration !== undefined) plan.durationMs = parseDuration(delay.duration);
  if (delay?.queued !== undefined) plan.queuedMs = parseDuration(delay.queued);
  if (delay?.polls !== undefined) plan.polls = delay.polls;
  // `queued` alone: the job waits that long, then runs as usual.
  if (delay?.queued !== undefined && delay.duration === undefined) {
    plan.durationMs =
      plan.queuedMs + Math.max(0, events.settings.exportDurationMs - events.settings.exportQueuedMs);
  }
  const fails = sim.takeEffect<ExportFailsEffect>('exportFails');
  if (fails) {
    plan.failWith = fails.message;
    if (fails.after !== undefined) plan.durationMs = parseDuration(fails.after);
  }
  if (sim.takeEffect('analyticsStoreDown') !== undefined) plan.storeDown = true;
  return plan;
}

/**
 * django-sendfile2's `Content-Disposition`: an ASCII fallback (NFKD, non-ASCII dropped) and, when that
 * differs, the RFC 5987 `filename*=UTF-8''…` form.
 */
export function contentDisposition(filename: string): string {
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

function csvResponse<S>(c: Ctx<S>, events: EventsState, job: ExportJob, filename: string): Response {
  const outcome = job.outcome as { rowLimit: number };
  const headers = new Headers({
    'content-type': 'text/csv',
    'content-disposition': contentDisposition(filename),
    'x-request-id': c.var.sim.requestId,
  });
  return new Response(createCsvStream(events.store, job.query, outcome.rowLimit), { status: 200, headers });
}

/**
 * Adds the events API to a simulator: `POST /api/events`, `GET /api/events` (deprecated flow),
 * `POST /api/events/export`, `GET /api/events/download`, `GET /api/requests[/{id}]`, and the control
 * routes under `/_sim/events`.
 *
 * @example registerEventRoutes(kernel, { events: (w) => w.state.extensions.get('events') as EventsState, identify })
 */
export function registerEventRoutes<S>(kernel: SimKernel<S>, deps: EventsDeps<S>): void {
  const { app, operation } = kernel;
  // Fault rules can target one export by `resource` (its rq_id, e.g. `action=export&target=events&id=*&user_id=2`).
  const rqIdParam = (c: Ctx<S>) => c.req.param('id');
  const rqIdQuery = (c: Ctx<S>) => c.req.query('rq_id');

  app.post('/api/events', operation('events.create'), async (c) => {
    const sim = c.var.sim;
    const caller = await callerOf(deps, c);
    if (caller instanceof Response) return caller;
    let body: unknown = {};
    // DRF picks a parser by Content-Type before parsing (only JSONParser is configured).
    const type = c.req.header('content-type');
    if (sim.rawBody && type !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      return drf(c, 415, { detail: `Unsupported media type "${type}" in request.` });
    }
    if (sim.jsonTooDeep !== undefined) {
      // As in the API's other routes: Python's RecursionError escapes DRF's JSONParser.
      return serverError(c, 'RecursionError: maximum recursion depth exceeded while decoding a JSON object');
    }
    if (sim.jsonError !== undefined) {
      let detail = sim.jsonError;
      try {
        parsePyJson(sim.rawBody ?? '');
      } catch (err) {
        if (err instanceof PyJsonError) detail = err.message;
      }
      return drf(c, 400, { detail: `JSON parse error - ${detail}` });
    }
    if (sim.json !== undefined) body = sim.json;
    const world = sim.world;
    const events = deps.events(world);
    const requestInfo: Record<string, unknown> = { id: sim.requestId };
    const ua = c.req.header('user-agent');
    if (ua) requestInfo.user_agent = ua;
    const result = processClientEvents(
      body,
      { user: caller, org: caller.org, accessTokenId: caller.accessTokenId ?? null },
      world.clock.now() * 1000,
      requestInfo,
    );
    if (!result.ok) {
      switch (result.error.code) {
        case 'VALIDATION':
          return drf(c, 400, result.error.body);
        case 'JSON_PARSE':
          return drf(c, 400, { detail: `JSON parse error - ${result.error.detail}` });
        case 'PAYLOAD_NULL':
          return serverError(c, 'CVAT fails on an event whose payload is null (unhandled exception)');
      }
    }
    const storeDown = sim.takeEffect('analyticsStoreDown') !== undefined;
    recordEvents(events, result.value.records, storeDown);
    return drf(c, 201, result.value.body);
  });

  app.post('/api/events/export', operation('events.create_export'), async (c) => {
    const sim = c.var.sim;
    const caller = await callerOf(deps, c);
    if (caller instanceof Response) return caller;
    const forced = forcedFilters(caller);
    if (!forced.ok) return renderExportError(c, forced.error);
    const q = params(c);
    const queryId = q.query_id !== undefined ? normalizeUuid(q.query_id) : sim.world.ids.uuid();
    // uuid.UUID(query_id) raises ValueError: unhandled.
    if (queryId === undefined) return serverError(c, 'ValueError: badly formed hexadecimal UUID string');
    const location = q.location ?? 'local';
    if (location !== 'local' && location !== 'cloud_storage') {
      return drf(c, 400, [`Unexpected location ${location} specified for the request`]);
    }
    const cloud = location === 'cloud_storage';
    if (cloud && !q.cloud_storage_id) {
      return drf(c, 400, [
        'Cloud storage location was selected as the destination, but cloud storage id was not specified',
      ]);
    }
    const world = sim.world;
    const events = deps.events(world);
    const query = buildExportQuery(
      caller,
      q,
      world.clock.now(),
      (ids) => deps.minimalFrom?.(world, ids) ?? 0,
    );
    if (!query.ok) return renderExportError(c, query.error);
    const rqId = formatRqId(queryId, caller.id);
    const existing = findJob(events, rqId, world.clock.now());
    if (existing) {
      const status = jobStatus(existing, world.clock.now());
      if (status === 'queued' || status === 'started')
        return renderExportError(c, { code: 'CONFLICT', rqId });
    }
    const job = startExportJob(
      events,
      world.clock,
      { queryId, caller, query: query.value, filename: q.filename || null, cloud },
      planFor(c, events),
    );
    return drf(c, 202, { rq_id: job.rqId });
  });

  app.get('/api/events/download', operation('events.download', rqIdQuery), async (c) => {
    const sim = c.var.sim;
    const caller = await callerOf(deps, c);
    if (caller instanceof Response) return caller;
    const rqId = c.req.query('rq_id');
    if (!rqId) return drf(c, 400, ['Missing request id in the query parameters']);
    const parsed = parseRqId(rqId);
    if (!parsed) return drf(c, 400, ['Unexpected request id format']);
    if (!caller.isAdmin && parsed.userId !== caller.id) return drf(c, 403, { detail: PERMISSION_DENIED });
    const world = sim.world;
    const events = deps.events(world);
    const job = findJob(events, formatRqId(parsed.queryId, parsed.userId), world.clock.now());
    if (!job) return plain(c, 400, 'Unknown export request id');
    if (jobStatus(job, world.clock.now()) !== 'finished')
      return plain(c, 400, 'The export process is not finished');
    if (job.cloud) return plain(c, 400, 'The export process has no result file to be downloaded locally');
    if (job.fileExpired) return drf(c, 404, 'The exported file has expired, please retry exporting');
    return csvResponse(c, events, job, exportFileName(job.filename, job.createdAt));
  });

  // Deprecated flow (CVAT's `export()` in cvat/apps/events/export.py).
  app.get('/api/events', operation('events.list'), async (c) => {
    const sim = c.var.sim;
    const caller = await callerOf(deps, c);
    if (caller instanceof Response) return caller;
    const forced = forcedFilters(caller);
    if (!forced.ok) return renderExportError(c, forced.error);
    const q = params(c);
    const action = q.action;
    if (action !== undefined && action !== 'download') {
      return drf(c, 400, ['Unexpected action specified for the request']);
    }
    const queryId = q.query_id !== undefined ? normalizeUuid(q.query_id) : sim.world.ids.uuid();
    if (queryId === undefined) return serverError(c, 'ValueError: badly formed hexadecimal UUID string');
    const deprecation = { deprecation: DEPRECATION_HEADER };
    const world = sim.world;
    const now = world.clock.now();
    const events = deps.events(world);
    const rqId = formatRqId(queryId, caller.id);
    const job = findJob(events, rqId, now);
    if (job) {
      countPoll(events, job, now);
      const status = jobStatus(job, now);
      const fileExists = status === 'finished' && !job.fileExpired && !job.cloud;
      if (status === 'finished' && fileExists) {
        if (action === 'download') {
          events.jobs.delete(rqId);
          // datetime.now(): the server's local time at download, which is UTC in CVAT's images.
          return csvResponse(c, events, job, exportFileName(q.filename || null, now));
        }
        return drf(c, 201, null, deprecation);
      }
      if (status === 'failed') {
        events.jobs.delete(rqId);
        const message = job.outcome?.status === 'failed' ? job.outcome.message : '';
        return drf(c, 500, message, deprecation);
      }
      if (status === 'queued' || status === 'started') return drf(c, 202, { query_id: queryId }, deprecation);
    }
    if (q.location === 'cloud_storage' || q.cloud_storage_id !== undefined) {
      return drf(c, 400, ['This endpoint does not support exporting events to cloud storage']);
    }
    const query = buildExportQuery(caller, q, now, (ids) => deps.minimalFrom?.(world, ids) ?? 0);
    if (!query.ok) return renderExportError(c, query.error);
    startExportJob(
      events,
      world.clock,
      { queryId, caller, query: query.value, filename: null, cloud: false },
      planFor(c, events),
    );
    return drf(c, 202, { query_id: queryId }, deprecation);
  });

  app.get('/api/requests/:id{.+}', operation('requests.retrieve', rqIdParam), async (c) => {
    const sim = c.var.sim;
    const caller = await callerOf(deps, c);
    if (caller instanceof Response) return caller;
    const world = sim.world;
    const events = deps.events(world);
    const now = world.clock.now();
    const job = findJob(events, c.req.param('id'), now);
    if (!job) return plain(c, 404, 'There is no request with specified id');
    if (!caller.isAdmin && job.owner.id !== caller.id) return drf(c, 403, { detail: PERMISSION_DENIED });
    countPoll(events, job, now);
    return drf(c, 200, renderRequest(events, job, now, baseUrlOf(deps, c)));
  });

  app.post('/api/requests/:id/cancel', operation('requests.create_cancel', rqIdParam), async (c) => {
    const sim = c.var.sim;
    const caller = await callerOf(deps, c);
    if (caller instanceof Response) return caller;
    const world = sim.world;
    const events = deps.events(world);
    const now = world.clock.now();
    const job = findJob(events, c.req.param('id'), now);
    if (!job) return plain(c, 404, 'There is no request with specified id');
    if (!caller.isAdmin && job.owner.id !== caller.id) return drf(c, 403, { detail: PERMISSION_DENIED });
    if (jobStatus(job, now) !== 'queued') {
      return plain(c, 400, 'Only requests that have not yet been started can be cancelled');
    }
    if (job.timer !== undefined) world.clock.cancel(job.timer);
    events.jobs.delete(job.rqId);
    return drf(c, 200, null);
  });

  app.get('/api/requests', operation('requests.list'), async (c) => {
    const sim = c.var.sim;
    const caller = await callerOf(deps, c);
    if (caller instanceof Response) return caller;
    const world = sim.world;
    const events = deps.events(world);
    const now = world.clock.now();
    const q = params(c);
    const base = baseUrlOf(deps, c);
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
    if (page === undefined || page > pages) return drf(c, 404, { detail: 'Invalid page.' });
    const url = new URL(c.req.url);
    const link = (p: number | null) => {
      if (p === null) return null;
      const u = new URL(`${base}/api/requests${url.search}`);
      if (p === 1) u.searchParams.delete('page');
      else u.searchParams.set('page', String(p));
      return u.toString();
    };
    return drf(c, 200, {
      count: jobs.length,
      next: link(page < pages ? page + 1 : null),
      previous: link(page > 1 ? page - 1 : null),
      results: jobs.slice((page - 1) * size, page * size).map((j) => renderRequest(events, j, now, base)),
    });
  });

  registerEventControlRoutes(kernel, deps);
}

function positiveInt(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return n > 0 ? n : undefined;
}

/**
 * Subscribes a world's events state to the resource layer's change hook: every create, update and
 * delete becomes server events in the log (dropped while the store is disconnected).
 *
 * @example state.subscribe((change) => logResourceChange(eventsState, change, world.clock.now()))
 */
export function logResourceChange(events: EventsState, change: ResourceChange, now: number): void {
  recordEvents(events, serverEventRecords(change, now));
}

/** A row of `POST /_sim/events/records`, checked: a bad one is a 400, never a crash in the store. */
const recordSchema = z
  .object({
    scope: z.string().optional(),
    obj_name: z.string().nullable().optional(),
    obj_id: z.number().nullable().optional(),
    obj_val: z.string().nullable().optional(),
    source: z.string().nullable().optional(),
    timestamp: z.union([z.string(), z.number()]).optional(),
    count: z.number().nullable().optional(),
    duration: z.number().optional(),
    project_id: z.number().nullable().optional(),
    task_id: z.number().nullable().optional(),
    job_id: z.number().nullable().optional(),
    user_id: z.number().nullable().optional(),
    user_name: z.string().nullable().optional(),
    user_email: z.string().nullable().optional(),
    org_id: z.number().nullable().optional(),
    org_slug: z.string().nullable().optional(),
    payload: z.string().nullable().optional(),
    access_token_id: z.number().nullable().optional(),
  })
  .strict();

const recordInput = (row: unknown, now: number, i: number): EventRecord => {
  const r = parseInput(recordSchema, row, `events.${i}`);
  const timestamp = typeof r.timestamp === 'string' ? Date.parse(r.timestamp) : (r.timestamp ?? now);
  if (!Number.isFinite(timestamp) || Math.abs(timestamp) > 8.64e15)
    throw new SimInputError(`events.${i}.timestamp: not a time`, `events.${i}.timestamp`);
  return {
    scope: r.scope ?? '',
    obj_name: r.obj_name ?? null,
    obj_id: r.obj_id ?? null,
    obj_val: r.obj_val ?? null,
    source: r.source ?? 'server',
    timestamp,
    count: r.count ?? null,
    duration: r.duration ?? 0,
    project_id: r.project_id ?? null,
    task_id: r.task_id ?? null,
    job_id: r.job_id ?? null,
    user_id: r.user_id ?? null,
    user_name: r.user_name ?? null,
    user_email: r.user_email ?? null,
    org_id: r.org_id ?? null,
    org_slug: r.org_slug ?? null,
    payload: r.payload ?? null,
    access_token_id: r.access_token_id ?? null,
  };
};

const seedJobSchema = z
  .object({
    query_id: z.string(),
    user_id: z.int(),
    username: z.string().min(1),
    status: z.enum(['queued', 'started', 'finished', 'failed']),
    message: z.string().optional(),
    filename: z.string().nullable().optional(),
    org_id: z.int().nullable().optional(),
    created_at: z.union([z.string(), z.number()]).optional(),
    from: z.union([z.string(), z.number()]).optional(),
    to: z.union([z.string(), z.number()]).optional(),
    filters: z
      .partialRecord(z.enum(['org_id', 'project_id', 'task_id', 'job_id', 'user_id']), z.int())
      .optional(),
  })
  .strict();

/**
 * Control routes of the events API under `/_sim/events`: settings, direct log writes (seeding, the
 * benchmark) and export jobs moved by hand.
 */
function registerEventControlRoutes<S>(kernel: SimKernel<S>, deps: EventsDeps<S>): void {
  const { app, namespaces } = kernel;
  const worldOf = (c: Context): World<S> => namespaces.get(resolveNamespace(c.req.raw));
  const body = async (c: Context): Promise<Record<string, unknown>> => {
    // Bounded in size and depth (sim-core); `undefined` when empty.
    const v = (await readControlJson(c)) ?? {};
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new SimInputError('expected a JSON object');
    return v as Record<string, unknown>;
  };
  const jobOf = (events: EventsState, rqId: unknown): ExportJob => {
    if (typeof rqId !== 'string') throw new SimInputError('rq_id is required', 'rq_id');
    const job = events.jobs.get(rqId);
    if (!job) throw new SimInputError(`no export job "${rqId}"`, 'rq_id');
    return job;
  };
  const view = (events: EventsState, job: ExportJob, now: number): ExportJobView => ({
    rq_id: job.rqId,
    status: jobStatus(job, now),
    owner: job.owner,
    query: job.query,
    pollsLeft: job.pollsLeft,
    finishAt: job.finishAt === null ? null : new Date(job.finishAt).toISOString(),
    rows: job.outcome?.status === 'finished' ? job.outcome.rowLimit : null,
    expired: job.outcome !== null && now >= job.outcome.at + events.settings.resultTtlMs,
  });

  app.get('/_sim/events', (c) => {
    const world = worldOf(c);
    const events = deps.events(world);
    const now = world.clock.now();
    return c.json<EventsControlView>({
      settings: describeEventsSettings(events),
      stored: events.store.length,
      dropped: events.dropped,
      jobs: [...events.jobs.values()].map((j) => view(events, j, now)),
    });
  });
  app.patch('/_sim/events/settings', async (c) => {
    const events = deps.events(worldOf(c));
    applyEventsSettings(events, await body(c));
    return c.json(describeEventsSettings(events));
  });
  app.post('/_sim/events/records', async (c) => {
    const world = worldOf(c);
    const input = await body(c);
    if (!Array.isArray(input.events)) throw new SimInputError('events must be a list of rows', 'events');
    const now = world.clock.now();
    const stored = recordEvents(
      deps.events(world),
      (input.events as unknown[]).map((r, i) => recordInput(r, now, i)),
    );
    return c.json({ stored }, 201);
  });
  app.post('/_sim/events/exports', async (c) => {
    const world = worldOf(c);
    const events = deps.events(world);
    const input = parseInput(seedJobSchema, await body(c), 'export');
    let job: ExportJob;
    try {
      job = seedExportJob(events, world.clock.now(), {
        queryId: input.query_id,
        owner: { id: input.user_id, username: input.username },
        status: input.status,
        message: input.message,
        filename: input.filename ?? null,
        orgId: input.org_id ?? null,
        createdAt: input.created_at === undefined ? undefined : parseTime(input.created_at),
        query: {
          from: input.from === undefined ? undefined : parseTime(input.from),
          to: input.to === undefined ? undefined : parseTime(input.to),
          ids: input.filters ?? {},
        },
      });
    } catch (err) {
      throw new SimInputError((err as Error).message, 'query_id');
    }
    return c.json(view(events, job, world.clock.now()), 201);
  });
  app.post('/_sim/events/exports/complete', async (c) => {
    const world = worldOf(c);
    const events = deps.events(world);
    const input = await body(c);
    const job = jobOf(events, input.rq_id);
    if (typeof input.fail === 'string') job.failWith = input.fail;
    if (job.timer !== undefined) world.clock.cancel(job.timer);
    completeJob(events, job, world.clock.now());
    return c.json(view(events, job, world.clock.now()));
  });
  app.post('/_sim/events/exports/expire-file', async (c) => {
    const world = worldOf(c);
    const events = deps.events(world);
    const job = jobOf(events, (await body(c)).rq_id);
    job.fileExpired = true;
    return c.json(view(events, job, world.clock.now()));
  });
}
