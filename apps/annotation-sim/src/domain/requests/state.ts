import { lazy, parseDuration, parseInput, type WorldBudget } from '@sims/sim-core';
import * as z from 'zod';
import { enrollEndedRequests, releaseRequestsBudget } from './budget';
import type { BackgroundRequest, RequestResult } from './model';

/** The key of the background requests' slot in the world state's `extensions`. */
export const REQUESTS_EXTENSION = 'requests';

/** Per-world behaviour of background requests. */
export interface RequestSettings {
  /** Time a request spends `queued` before a worker takes it (default 0: at once). */
  queuedMs: number;
  /**
   * Time from enqueue to the end of a task's data creation (default 0: finished when the upload is
   * answered, so a test sees the jobs without moving the clock). Set it to watch queued → started →
   * finished on the world clock.
   */
  taskCreationMs: number;
  /** Time from enqueue to the end of a dataset, annotations or backup export (default 2 s, as the events export). */
  exportMs: number;
  /** How long a finished task creation stays (RQ's default `result_ttl`, 500 s; exports: 24 h). */
  resultTtlMs: number;
  /** How long a failed task creation stays (RQ's default `failure_ttl`, one year; exports: 24 h). */
  failureTtlMs: number;
}

const DEFAULT_REQUEST_SETTINGS: RequestSettings = {
  queuedMs: 0,
  taskCreationMs: 0,
  exportMs: 2000,
  resultTtlMs: 500_000,
  failureTtlMs: 365 * 86_400_000,
};

/** How the simulator does a request's work, and what it does once a request ended. */
export interface RequestHooks {
  /** Does the work of `request` at time `at`: its result, or the message it fails with. */
  run(request: BackgroundRequest, at: number): RequestResult | { failed: string };
  /** Called once when a request ends (finished or failed), e.g. for `completed:request[…]` webhooks. */
  ended(request: BackgroundRequest): void;
}

/** A TUS upload in progress (`POST …/data/` with `Upload-Length`, then `PATCH`es). */
interface TusUpload {
  /** `<user id>_<uuid>`, the last segment of its `Location`. */
  fileId: string;
  filename: string;
  length: number;
  offset: number;
  ownerId: number;
  /** The image size its first chunk's header declares (the bytes are not kept). */
  width?: number;
  height?: number;
}

/** A task's upload directory while its data is sent in pieces (`Upload-Start` … `Upload-Finish`). */
export interface TaskUpload {
  /** Files received whole (multipart `client_files`, finished TUS uploads): name, size, image size. */
  files: { name: string; size: number; width?: number; height?: number }[];
  tus: TusUpload[];
}

/** The background requests of a world, their settings, and the hooks that do their work. */
export interface RequestsState {
  requests: Map<string, BackgroundRequest>;
  /** Upload directories by task id. */
  uploads: Map<number, TaskUpload>;
  settings: RequestSettings;
  hooks: RequestHooks;
  /** The world's side of the process's memory budget: ended requests count in its `requests` pool. */
  budget?: WorldBudget;
}

/** The background requests' part of a world's state. */
export function requestsOf(state: { extensions: Map<string, unknown> }): RequestsState {
  return state.extensions.get(REQUESTS_EXTENSION) as RequestsState;
}

/** An empty registry; `hooks` may be given as the function that makes them on first use. */
export function createRequestsState(
  hooks: RequestHooks | (() => RequestHooks),
  settings: Partial<RequestSettings> = {},
  budget?: WorldBudget,
): RequestsState {
  const rs = new WorldRequests(hooks, { ...DEFAULT_REQUEST_SETTINGS, ...settings });
  if (budget) rs.budget = budget;
  return rs;
}

/** A registry whose tables and hooks are made on first use (most worlds run no background request). */
class WorldRequests implements RequestsState {
  private _requests: Map<string, BackgroundRequest> | undefined;
  private _uploads: Map<number, TaskUpload> | undefined;
  budget?: WorldBudget;
  constructor(
    private _hooks: RequestHooks | (() => RequestHooks),
    public settings: RequestSettings,
  ) {}
  get requests(): Map<string, BackgroundRequest> {
    this._requests ??= new Map();
    return this._requests;
  }
  set requests(table: Map<string, BackgroundRequest>) {
    this._requests = table;
  }
  get uploads(): Map<number, TaskUpload> {
    this._uploads ??= new Map();
    return this._uploads;
  }
  set uploads(table: Map<number, TaskUpload>) {
    this._uploads = table;
  }
  get hooks(): RequestHooks {
    if (typeof this._hooks === 'function') this._hooks = this._hooks();
    return this._hooks;
  }
  set hooks(hooks: RequestHooks) {
    this._hooks = hooks;
  }
}

/** A JSON snapshot (the world keeps the timers: `REQUEST_WORK` re-arms them from the records). */
export function exportRequestsState(rs: RequestsState): unknown {
  return {
    settings: { ...rs.settings },
    requests: [...rs.requests.values()].map((r) => ({ ...r })),
    uploads: [...rs.uploads.entries()],
  };
}

/** A backup restore's work (`ImportBackupWork`) in a snapshot. */
const importBackupWorkSchema = lazy(() =>
  z
    .object({
      kind: z.literal('import:backup'),
      target: z.enum(['project', 'task']),
      orgId: z.number().nullable(),
      archive: z.string(),
    })
    .strict(),
);

/** An annotation import's work (`ImportAnnotationsWork`) in a snapshot. */
const importAnnotationsWorkSchema = lazy(() =>
  z
    .object({
      kind: z.literal('import:annotations'),
      target: z.enum(['task', 'job']),
      targetId: z.number(),
      format: z.string(),
      mode: z.enum(['replace', 'append']),
      convMaskToPoly: z.boolean(),
      fileName: z.string(),
      file: z.string(),
    })
    .strict(),
);

/** A dataset import's work (`ImportDatasetWork`) in a snapshot. */
const importDatasetWorkSchema = lazy(() =>
  z
    .object({
      kind: z.literal('import:dataset'),
      projectId: z.number(),
      format: z.string(),
      convMaskToPoly: z.boolean(),
      fileName: z.string(),
      file: z.string(),
    })
    .strict(),
);

/** The snapshot's `requests` part, built on first use (docs/decisions/0009). */
export const requestsSnapshotSchema = lazy(() => {
  const nInt = z.number().nullable();
  const operationSchema = z
    .object({
      type: z.string(),
      target: z.string(),
      project_id: nInt,
      task_id: nInt,
      job_id: nInt,
      org_id: nInt,
      format: z.string().nullable(),
      lightweight: z.boolean().nullable(),
    })
    .strict();
  const workSchema = z.union([
    z
      .object({
        kind: z.literal('create:task'),
        taskId: z.number(),
        size: z.number(),
        imageQuality: z.number().optional(),
        chunkSize: z.number().optional(),
      })
      .strict(),
    z
      .object({
        kind: z.enum(['export:dataset', 'export:annotations', 'export:backup']),
        target: z.enum(['project', 'task', 'job']),
        targetId: z.number(),
        format: z.string().nullable(),
        filename: z.string(),
        cloud: z.boolean(),
      })
      .strict(),
    importBackupWorkSchema(),
    importAnnotationsWorkSchema(),
    importDatasetWorkSchema(),
  ]);
  const requestSchema = z
    .object({
      id: z.string(),
      operation: operationSchema,
      owner: z.object({ id: z.number(), username: z.string(), email: z.string() }).strict(),
      httpRequestId: z.string(),
      baseUrl: z.string(),
      work: workSchema,
      createdAt: z.number(),
      startAt: z.number(),
      finishAt: nInt,
      pollsLeft: nInt,
      failWith: z.string().nullable(),
      lost: z.boolean(),
      outcome: z
        .union([
          z
            .object({
              status: z.literal('finished'),
              at: z.number(),
              resultId: nInt,
              resultPath: z.string().nullable(),
              file: z.object({ name: z.string(), base64: z.string() }).strict().optional(),
            })
            .strict(),
          z.object({ status: z.literal('failed'), at: z.number(), message: z.string() }).strict(),
          z.object({ status: z.literal('stopped'), at: z.number() }).strict(),
        ])
        .nullable(),
    })
    .strict();
  return z
    .object({
      settings: z
        .object({
          queuedMs: z.number(),
          taskCreationMs: z.number(),
          exportMs: z.number().default(DEFAULT_REQUEST_SETTINGS.exportMs),
          resultTtlMs: z.number(),
          failureTtlMs: z.number(),
        })
        .strict(),
      requests: z.array(requestSchema),
      uploads: z
        .array(
          z.tuple([
            z.number(),
            z
              .object({
                files: z.array(
                  z
                    .object({
                      name: z.string(),
                      size: z.number(),
                      width: z.number().optional(),
                      height: z.number().optional(),
                    })
                    .strict(),
                ),
                tus: z.array(
                  z
                    .object({
                      fileId: z.string(),
                      filename: z.string(),
                      length: z.number(),
                      offset: z.number(),
                      ownerId: z.number(),
                      width: z.number().optional(),
                      height: z.number().optional(),
                    })
                    .strict(),
                ),
              })
              .strict(),
          ]),
        )
        .default([]),
    })
    .strict();
});

/** The `requests` part of a snapshot as {@link requestsSnapshotSchema} reads it. */
export type RequestsSnapshot = z.output<ReturnType<typeof requestsSnapshotSchema>>;

/**
 * A registry from a snapshot part read by the schema. Its pending requests go back on the clock once it
 * is the world's (`world.timers.rearm(REQUEST_WORK)`, which also drops what the replaced ones armed).
 */
export function importRequestsState(
  s: RequestsSnapshot,
  hooks: RequestHooks,
  budget?: WorldBudget,
): RequestsState {
  // The replaced requests leave the budget; the snapshot's ended ones count from here.
  releaseRequestsBudget(budget);
  const rs = createRequestsState(hooks, s.settings, budget);
  for (const r of s.requests) rs.requests.set(r.id, r as BackgroundRequest);
  for (const [taskId, upload] of s.uploads) rs.uploads.set(taskId, upload);
  enrollEndedRequests(rs);
  return rs;
}

/** Settings as the control plane and seeds take them (durations as `2s` or ms), built on first use. */
const requestSettingsInputSchema = lazy(() => {
  const durationInput = z
    .union([z.number().nonnegative(), z.string().min(1)])
    .transform((v) => parseDuration(v));

  return z
    .object({
      queued: durationInput.optional(),
      taskCreation: durationInput.optional(),
      export: durationInput.optional(),
      resultTtl: durationInput.optional(),
      failureTtl: durationInput.optional(),
    })
    .strict();
});

/** Applies settings input (`{ taskCreation: '3s' }`); throws SimInputError. */
export function applyRequestSettings(rs: RequestsState, input: unknown): RequestSettings {
  const s = parseInput(requestSettingsInputSchema(), input, 'requests');
  if (s.queued !== undefined) rs.settings.queuedMs = s.queued;
  if (s.taskCreation !== undefined) rs.settings.taskCreationMs = s.taskCreation;
  if (s.export !== undefined) rs.settings.exportMs = s.export;
  if (s.resultTtl !== undefined) rs.settings.resultTtlMs = s.resultTtl;
  if (s.failureTtl !== undefined) rs.settings.failureTtlMs = s.failureTtl;
  return rs.settings;
}

/** Settings as JSON (durations in ms). */
export function describeRequestSettings(rs: RequestsState) {
  const s = rs.settings;
  return {
    queued: s.queuedMs,
    taskCreation: s.taskCreationMs,
    export: s.exportMs,
    resultTtl: s.resultTtlMs,
    failureTtl: s.failureTtlMs,
  };
}
