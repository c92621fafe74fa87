import { lazy, parseDuration, parseInput, type WorldBudget } from '@sims/sim-core';
import * as z from 'zod';
import { enrollFinishedJobs, releaseExportJobsBudget } from './export-budget';
import type { ExportJob } from './export-job';
import type { EventRecord } from './record';
import { EventStore } from './store';
import { eventsBudgetIfMade, eventsBudgetOf, releaseEventsBudget } from './store-budget';

/** The key of the events API's slot in the world state's `extensions`. */
export const EVENTS_EXTENSION = 'events';

/** The events API's part of a world's state. */
export function eventsOf(state: { extensions: Map<string, unknown> }): EventsState {
  return state.extensions.get(EVENTS_EXTENSION) as EventsState;
}

/** Per-world behaviour of the events API. */
export interface EventsSettings {
  /** Time from enqueue to the outcome of an export (default 2 s: "about two seconds"). */
  exportDurationMs: number;
  /** Time an export spends `queued` before `started` (default 500 ms). */
  exportQueuedMs: number;
  /** The embedded analytics store is connected (default). Disconnected: events are dropped, exports fail. */
  storeConnected: boolean;
  /** How long finished and failed exports stay (CVAT_EXPORT_CACHE_TTL, default 24 h). */
  resultTtlMs: number;
  /**
   * Rows the store keeps at most: the newest. Reaching it evicts the oldest quarter, counted in the
   * store's `evicted`. The default, 100,000, holds at most about 50 MB with the ~350-byte lines a mixed
   * API load logs (81 bytes of columns a row besides), whatever the load: within the soak's 50 MB
   * budget, and hours of history at test-suite rates (17 minutes at 100 events/s).
   */
  maxEvents: number;
}

const DEFAULT_EVENTS_SETTINGS: EventsSettings = {
  exportDurationMs: 2_000,
  exportQueuedMs: 500,
  storeConnected: true,
  resultTtlMs: 86_400_000,
  maxEvents: 100_000,
};

/** The events API's part of a world: the event log, the export jobs and the settings. */
export interface EventsState {
  store: EventStore;
  jobs: Map<string, ExportJob>;
  settings: EventsSettings;
  /** Rows dropped because the store was disconnected (what a test can check). */
  dropped: number;
  /**
   * The world's side of the process's memory budget: the log's rows count in its `events` pool, and
   * finished export jobs in its `requests` pool (docs/decisions/0019). None: bounded by `maxEvents` only.
   */
  budget?: WorldBudget;
}

/**
 * An empty events state.
 *
 * @example state.extensions.set(EVENTS_EXTENSION, createEventsState({ exportDurationMs: 5000 }))
 */
export function createEventsState(settings: Partial<EventsSettings> = {}, budget?: WorldBudget): EventsState {
  const state = new WorldEvents({ ...DEFAULT_EVENTS_SETTINGS, ...settings });
  if (budget) state.budget = budget;
  return state;
}

/** An events state whose export jobs table is made by the first export (most worlds run none). */
class WorldEvents implements EventsState {
  store = new EventStore();
  dropped = 0;
  budget?: WorldBudget;
  private _jobs: Map<string, ExportJob> | undefined;
  constructor(public settings: EventsSettings) {}
  get jobs(): Map<string, ExportJob> {
    this._jobs ??= new Map();
    return this._jobs;
  }
  set jobs(table: Map<string, ExportJob>) {
    this._jobs = table;
  }
}

/**
 * Writes rows to the analytics store. With the store disconnected they are dropped silently, as the
 * vector logger without a handler drops them in CVAT; returns how many were written. A store holding
 * `maxEvents` rows evicts its oldest quarter before the next row (each row costs O(1), amortized), so
 * it keeps the newest rows, between three quarters of `maxEvents` and all of it (none with 0).
 */
export function recordEvents(state: EventsState, records: readonly EventRecord[], storeDown = false): number {
  if (!state.settings.storeConnected || storeDown) {
    state.dropped += records.length;
    return 0;
  }
  const store = state.store;
  const kept = keptAfter(store.length, records.length, state.settings.maxEvents);
  // The rows held after are the last `kept` of the old rows and these: the others go now, and rows of
  // this write the log would evict before it ends are counted, not written (a batch of 190,000 events
  // into a log of 100,000 wrote every line and moved the rows kept four times).
  const written = Math.min(records.length, kept);
  store.evictOldest(store.length - (kept - written));
  store.skip(records.length - written);
  for (let i = records.length - written; i < records.length; i++) store.append(records[i] as EventRecord);
  // Then the process-wide budget: the oldest rows of any namespace go when the logs hold too much.
  if (records.length > 0) eventsBudgetOf(state)?.sync();
  return records.length;
}

/**
 * The rows a log of `held` rows holds after `added` more, appended one at a time under the cap: a full
 * log evicts its oldest quarter (or down to the cap) before the next row, and never holds more than
 * `max` at the end.
 */
function keptAfter(held: number, added: number, max: number): number {
  const quarter = Math.max(1, Math.ceil(max / 4));
  let n = held;
  for (let i = 0; i < added; i++) {
    if (n >= max) n -= Math.min(n, Math.max(quarter, n - max + 1));
    n++;
  }
  return Math.min(n, max);
}

/** Settings as the control plane and seeds take them (durations as `2s` or ms), built on first use. */
const eventsSettingsInputSchema = lazy(() => {
  const durationInput = z
    .union([z.number().nonnegative(), z.string().min(1)])
    .transform((v) => parseDuration(v));

  return z
    .object({
      exportDuration: durationInput.optional(),
      exportQueued: durationInput.optional(),
      storeConnected: z.boolean().optional(),
      resultTtl: durationInput.optional(),
      maxEvents: z.int().min(0).optional(),
    })
    .strict();
});

/** Applies settings input (`{ exportDuration: '5s', storeConnected: false }`); throws SimInputError. */
export function applyEventsSettings(state: EventsState, input: unknown): EventsSettings {
  const s = parseInput(eventsSettingsInputSchema(), input, 'events');
  if (s.exportDuration !== undefined) state.settings.exportDurationMs = s.exportDuration;
  if (s.exportQueued !== undefined) state.settings.exportQueuedMs = s.exportQueued;
  if (s.storeConnected !== undefined) state.settings.storeConnected = s.storeConnected;
  if (s.resultTtl !== undefined) state.settings.resultTtlMs = s.resultTtl;
  if (s.maxEvents !== undefined) {
    state.settings.maxEvents = s.maxEvents;
    // A lower cap applies at once: the oldest rows beyond it go now, and their memory with them.
    state.store.evictOldest(state.store.length - s.maxEvents);
    eventsBudgetIfMade(state)?.sync();
  }
  return state.settings;
}

/** Settings as JSON (durations in ms). */
export function describeEventsSettings(state: EventsState) {
  const s = state.settings;
  return {
    exportDuration: s.exportDurationMs,
    exportQueued: s.exportQueuedMs,
    storeConnected: s.storeConnected,
    resultTtl: s.resultTtlMs,
    maxEvents: s.maxEvents,
  };
}

/** The snapshot's `events` part, built on first use (docs/decisions/0009). */
export const eventsSnapshotSchema = lazy(() => {
  const nInt = z.number().nullable();
  const nStr = z.string().nullable();
  const recordSchema = z
    .object({
      scope: z.string(),
      obj_name: nStr,
      obj_id: nInt,
      obj_val: nStr,
      source: nStr,
      timestamp: z.number(),
      count: nInt,
      duration: z.number(),
      project_id: nInt,
      task_id: nInt,
      job_id: nInt,
      user_id: nInt,
      user_name: nStr,
      user_email: nStr,
      org_id: nInt,
      org_slug: nStr,
      payload: nStr,
      access_token_id: nInt,
    })
    .strict();

  const jobSchema = z
    .object({
      rqId: z.string(),
      queryId: z.string(),
      owner: z.object({ id: z.number(), username: z.string() }).strict(),
      orgId: nInt,
      query: z.object({ from: z.number(), to: z.number(), ids: z.record(z.string(), z.number()) }).strict(),
      filename: nStr,
      cloud: z.boolean(),
      createdAt: z.number(),
      startAt: z.number(),
      finishAt: nInt,
      pollsLeft: nInt,
      failWith: nStr,
      storeDown: z.boolean(),
      outcome: z
        .union([
          z.object({ status: z.literal('finished'), at: z.number(), rowLimit: z.number() }).strict(),
          z.object({ status: z.literal('failed'), at: z.number(), message: z.string() }).strict(),
        ])
        .nullable(),
      fileExpired: z.boolean(),
    })
    .strict();

  return z
    .object({
      settings: z
        .object({
          exportDurationMs: z.number(),
          exportQueuedMs: z.number(),
          storeConnected: z.boolean(),
          resultTtlMs: z.number(),
          maxEvents: z.number().default(DEFAULT_EVENTS_SETTINGS.maxEvents),
        })
        .strict(),
      dropped: z.number().default(0),
      evicted: z.number().int().nonnegative().default(0),
      events: z.array(recordSchema),
      jobs: z.array(jobSchema),
    })
    .strict();
});

/**
 * A JSON snapshot of the events state (every row held: a large log makes a large snapshot). `evicted`
 * keeps the rows' absolute numbers, which finished exports' row limits refer to.
 */
export function exportEventsState(state: EventsState) {
  return {
    settings: { ...state.settings },
    dropped: state.dropped,
    evicted: state.store.evicted,
    events: [...state.store.rows()],
    jobs: [...state.jobs.values()].map((job) => ({ ...job })),
  };
}

/** The `events` part of a snapshot as {@link eventsSnapshotSchema} reads it. */
export type EventsSnapshot = z.output<ReturnType<typeof eventsSnapshotSchema>>;

/**
 * Rebuilds an events state from a snapshot part read by the schema. Its pending export jobs go back on
 * the clock once it is the world's (`world.timers.rearm(exportJobs(eventsOf))`).
 */
export function importEventsState(s: EventsSnapshot, budget?: WorldBudget): EventsState {
  // The replaced log's rows and jobs leave the budget; the new ones count from here.
  releaseEventsBudget(budget);
  releaseExportJobsBudget(budget);
  const state = createEventsState(s.settings, budget);
  state.store = new EventStore(s.evicted);
  state.dropped = s.dropped;
  for (const r of s.events) state.store.append(r);
  for (const job of s.jobs) state.jobs.set(job.rqId, job as ExportJob);
  eventsBudgetOf(state)?.sync();
  enrollFinishedJobs(state);
  return state;
}
