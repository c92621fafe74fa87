import {
  controlError,
  inTimeRange,
  lazy,
  parseInput,
  parseTime,
  readControlJson,
  type SimEnv,
  SimInputError,
  type World,
} from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import * as z from 'zod';
import { jobStatus, seedExportJob } from '../domain/events/export';
import type { ExportJob } from '../domain/events/export-job';
import { endJobNow } from '../domain/events/export-work';
import type { EventRecord } from '../domain/events/record';
import {
  applyEventsSettings,
  describeEventsSettings,
  type EventsState,
  recordEvents,
} from '../domain/events/state';
import type { EventsControlView, ExportJobView } from './views';

/** A time as the control plane takes it: ISO text or epoch ms. */
const time = () => z.union([z.string(), z.number()]);

/** A row of `POST /_sim/events/records`, checked: a bad one is a 400, never a crash in the store. */
const recordSchema = () =>
  z
    .object({
      scope: z.string().optional(),
      obj_name: z.string().nullable().optional(),
      obj_id: z.number().nullable().optional(),
      obj_val: z.string().nullable().optional(),
      source: z.string().nullable().optional(),
      timestamp: time().optional(),
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
type RecordInput = z.output<ReturnType<typeof recordSchema>>;

// The control plane's schemas are built on the first request that needs them (docs/decisions/0009).
const recordsSchema = lazy(() => z.object({ events: z.array(recordSchema()) }));

const seedJobSchema = lazy(() =>
  z
    .object({
      query_id: z.string(),
      user_id: z.int(),
      username: z.string().min(1),
      status: z.enum(['queued', 'started', 'finished', 'failed']),
      message: z.string().optional(),
      filename: z.string().nullable().optional(),
      org_id: z.int().nullable().optional(),
      created_at: time().optional(),
      from: time().optional(),
      to: time().optional(),
      filters: z
        .partialRecord(z.enum(['org_id', 'project_id', 'task_id', 'job_id', 'user_id']), z.int())
        .optional(),
    })
    .strict(),
);

const completeSchema = lazy(() => z.object({ rq_id: z.string(), fail: z.string().optional() }));
const expireSchema = lazy(() => z.object({ rq_id: z.string() }));
/** `POST /_sim/events/exports/{id}/fail`: the message the export then fails with, as `exportFails` takes it. */
const failSchema = lazy(() => z.object({ message: z.string().min(1) }).strict());

/** The body of a control request (bounded in size and depth by sim-core; `{}` when empty), parsed. */
async function bodyOf<T extends z.ZodType>(c: Context, schema: T, prefix = ''): Promise<z.output<T>> {
  return parseInput(schema, (await readControlJson(c)) ?? {}, prefix);
}

/** A stored row from a control-plane row; rows without a timestamp are logged now. */
function recordOf(r: RecordInput, now: number, i: number): EventRecord {
  const timestamp = typeof r.timestamp === 'string' ? Date.parse(r.timestamp) : (r.timestamp ?? now);
  if (!inTimeRange(timestamp))
    throw new SimInputError(
      `events.${i}.timestamp: not a time between years 1 and 9999 (a Python datetime)`,
      `events.${i}.timestamp`,
    );
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
}

function jobOf(events: EventsState, rqId: string): ExportJob {
  const job = events.jobs.get(rqId);
  if (!job) throw new SimInputError(`no export job "${rqId}"`, 'rq_id');
  return job;
}

/** Settles an export by hand: its timer cancelled, finished, or failed with `fail` when given. */
function settleNow<S>(
  world: World<S>,
  events: EventsState,
  job: ExportJob,
  now: number,
  fail: string | undefined,
): void {
  endJobNow(world.timers, events, job, now, fail);
}

function jobView(events: EventsState, job: ExportJob, now: number): ExportJobView {
  return {
    rq_id: job.rqId,
    status: jobStatus(job, now),
    owner: job.owner,
    query: job.query,
    pollsLeft: job.pollsLeft,
    finishAt: job.finishAt === null ? null : new Date(job.finishAt).toISOString(),
    rows: job.outcome?.status === 'finished' ? job.outcome.rowLimit : null,
    expired: job.outcome !== null && now >= job.outcome.at + events.settings.resultTtlMs,
  };
}

/**
 * `/_sim/events`: the events API's settings, direct writes to the log (seeding, the benchmark) and
 * export jobs moved by hand. Mounted by the simulator definition's `controlRoutes`.
 *
 * @example registerEventControlRoutes(control, tools.world, eventsOf)
 */
export function registerEventControlRoutes<S>(
  control: Hono<SimEnv<S>>,
  worldOf: (c: Context) => World<S>,
  eventsOf: (state: S) => EventsState,
): void {
  const at = (c: Context) => {
    const world = worldOf(c);
    return { world, events: eventsOf(world.state), now: world.clock.now() };
  };

  control.get('/events', (c) => {
    const { events, now } = at(c);
    return c.json<EventsControlView>({
      settings: describeEventsSettings(events),
      stored: events.store.length,
      dropped: events.dropped,
      evicted: events.store.evicted,
      jobs: [...events.jobs.values()].map((j) => jobView(events, j, now)),
    });
  });
  control.get('/events/settings', (c) => c.json(describeEventsSettings(at(c).events)));
  control.patch('/events/settings', async (c) => {
    const { events } = at(c);
    applyEventsSettings(events, (await readControlJson(c)) ?? {});
    return c.json(describeEventsSettings(events));
  });
  control.post('/events/records', async (c) => {
    const { events, now } = at(c);
    const input = await bodyOf(c, recordsSchema());
    const stored = recordEvents(
      events,
      input.events.map((r, i) => recordOf(r, now, i)),
    );
    return c.json({ stored }, 201);
  });
  control.post('/events/exports', async (c) => {
    const { events, now } = at(c);
    const input = await bodyOf(c, seedJobSchema(), 'export');
    let job: ExportJob;
    try {
      job = seedExportJob(events, now, {
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
    return c.json(jobView(events, job, now), 201);
  });
  // In the control plane's dialect (docs/decisions/0020-control-plane-dialect.md): the job in the path,
  // a missing one 404, one that has ended 409 on complete and fail.
  const inPath = (c: Context) => {
    const { world, events, now } = at(c);
    const id = c.req.param('id') ?? '';
    return { world, events, now, id, job: events.jobs.get(id) };
  };
  const settle = (failing: boolean) => async (c: Context) => {
    const { world, events, now, id, job } = inPath(c);
    if (!job) return controlError(c, 404, `no export job "${id}"`);
    const fail = failing ? (await bodyOf(c, failSchema())).message : undefined;
    if (job.outcome !== null) return controlError(c, 409, `export job "${id}" has already ended`);
    settleNow(world, events, job, now, fail);
    return c.json(jobView(events, job, now));
  };
  control.post('/events/exports/:id/complete', settle(false));
  control.post('/events/exports/:id/fail', settle(true));
  control.post('/events/exports/:id/expire-file', (c) => {
    const { events, now, id, job } = inPath(c);
    if (!job) return controlError(c, 404, `no export job "${id}"`);
    job.fileExpired = true;
    return c.json(jobView(events, job, now));
  });

  // The older forms, kept as they were: the job named by the body's rq_id (a missing one is a 400 on it).
  control.post('/events/exports/complete', async (c) => {
    const { world, events, now } = at(c);
    const input = await bodyOf(c, completeSchema());
    const job = jobOf(events, input.rq_id);
    settleNow(world, events, job, now, input.fail);
    return c.json(jobView(events, job, now));
  });
  control.post('/events/exports/expire-file', async (c) => {
    const { events, now } = at(c);
    const job = jobOf(events, (await bodyOf(c, expireSchema())).rq_id);
    job.fileExpired = true;
    return c.json(jobView(events, job, now));
  });
}
