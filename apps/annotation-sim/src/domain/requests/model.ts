/**
 * CVAT's background requests (RQ jobs behind `/api/requests`): what one keeps, its id, and how the
 * requests API renders it. The events export keeps its own jobs (`domain/events/export.ts`) and is
 * rendered by the same {@link renderRequest}.
 */
import { formatDrfDateTime } from '../dates';

type RequestStatus = 'queued' | 'started' | 'finished' | 'failed';

/**
 * A request's state in the simulator: the API's statuses, and RQ's `stopped` (a started export whose
 * worker was stopped by `POST /api/requests/{id}/cancel`), which the requests API never shows.
 */
export type RequestState = RequestStatus | 'stopped';

/** `RequestDataOperation` in CVAT 2.73's key order (`format` and `lightweight` from the request id). */
interface RequestOperation {
  /** `action:subresource` or `action:target`: `create:task`, `export:dataset`, `export:backup`, … */
  type: string;
  target: string;
  project_id: number | null;
  task_id: number | null;
  job_id: number | null;
  org_id: number | null;
  format: string | null;
  lightweight: boolean | null;
}

/** An export's work: what is exported, how, and the name its file is downloaded under. */
export interface ExportWork {
  kind: 'export:dataset' | 'export:annotations' | 'export:backup';
  target: 'project' | 'task' | 'job';
  targetId: number;
  /** The format's display name (`COCO 1.0`); null for a backup. */
  format: string | null;
  /** The download's file name: `filename` as asked, else CVAT's default from the resource at enqueue. */
  filename: string;
  /** Exported to cloud storage: finished without a local file (`result_url` null). */
  cloud: boolean;
}

/** The work a request does when its worker runs it; each kind has a runner (`domain/requests/runners.ts`). */
export type RequestWork =
  | {
      kind: 'create:task';
      taskId: number;
      /** The frames the data gives (the files are only counted), quality and chunk size as asked. */
      size: number;
      imageQuality?: number;
      chunkSize?: number;
    }
  | ExportWork
  | ImportBackupWork
  | ImportAnnotationsWork
  | ImportDatasetWork;

/**
 * A dataset imported into a project as new tasks (`import:dataset`, `domain/imports/dataset-import.ts`):
 * the format's display name, the `conv_mask_to_poly` flag and the archive as uploaded (its name; its
 * bytes base64, dropped when the request ends).
 */
export interface ImportDatasetWork {
  kind: 'import:dataset';
  projectId: number;
  format: string;
  convMaskToPoly: boolean;
  fileName: string;
  file: string;
}

/**
 * Annotations imported from a file into a task or a job (`import:annotations`,
 * `domain/imports/annotations-import.ts`): the format's display name, CVAT's `import_mode`, the
 * `conv_mask_to_poly` flag and the file as uploaded (its bytes base64, as snapshots keep them; dropped
 * when the request ends, as CVAT removes the uploaded file).
 */
export interface ImportAnnotationsWork {
  kind: 'import:annotations';
  target: 'task' | 'job';
  targetId: number;
  format: string;
  mode: 'replace' | 'append';
  convMaskToPoly: boolean;
  fileName: string;
  file: string;
}

/**
 * A backup restored into a new task or project (`import:backup`, `domain/imports/backup-restore.ts`):
 * the archive as uploaded (base64, as snapshots keep it), and the organization it is restored into.
 */
export interface ImportBackupWork {
  kind: 'import:backup';
  target: 'project' | 'task';
  orgId: number | null;
  archive: string;
}

/** A finished export's file: its download name and the archive's bytes as base64 (kept as snapshots keep it). */
interface ExportFile {
  name: string;
  base64: string;
}

/** What a finished request leaves: `result_id` (e.g. a report), or a file `result_url` points at. */
export interface RequestResult {
  resultId: number | null;
  /** Path and query of the download (`/api/tasks/5/dataset/download?rq_id=…`), when there is a file. */
  resultPath: string | null;
  /** The file an export made (none for a cloud export or other kinds). */
  file?: ExportFile;
}

/** One background request. Times are epoch ms of the world clock. */
export interface BackgroundRequest {
  /** The rq_id (`action=create&target=task&target_id=5`). */
  id: string;
  operation: RequestOperation;
  owner: { id: number; username: string; email: string };
  /**
   * `X-Request-Id` of the HTTP request that enqueued it: CVAT keeps it in the job's meta, and every
   * server event the job's work records carries it as `payload.request.id`.
   */
  httpRequestId: string;
  /** Scheme, host and namespace prefix of the request that enqueued it (for `result_url`). */
  baseUrl: string;
  work: RequestWork;
  createdAt: number;
  /** When it leaves `queued` (the worker takes it). */
  startAt: number;
  /** When the outcome is decided; null while it waits for polls, for the control plane, or forever (lost). */
  finishAt: number | null;
  /** "N polls" mode: polls still answered as running. */
  pollsLeft: number | null;
  /** A planned failure (fault rule): the request fails with this message instead of doing its work. */
  failWith: string | null;
  /** The worker died (fault rule): the request stays `started` and never ends by itself. */
  lost: boolean;
  outcome:
    | null
    | ({ status: 'finished'; at: number } & RequestResult)
    | { status: 'failed'; at: number; message: string }
    /** Stopped while started (cancelled): no result, no `completed:request` webhook. */
    | { status: 'stopped'; at: number };
}

/** A request's state at `now` (a pure read). */
export function requestStatus(r: Pick<BackgroundRequest, 'outcome' | 'startAt'>, now: number): RequestState {
  if (r.outcome) return r.outcome.status;
  return now >= r.startAt ? 'started' : 'queued';
}

/**
 * CVAT's request id: `key=value` pairs joined by `&` in its attribute order, empty values left out;
 * in values `.` becomes `~` and a space `_` (`COCO 1.0` → `COCO_1~0`). Not percent-encoded: a client
 * encodes it to put it in a path.
 *
 * @example formatRequestId({ action: 'create', target: 'task', target_id: 5 }) // 'action=create&target=task&target_id=5'
 */
export function formatRequestId(fields: {
  action: string;
  target: string;
  target_id?: number;
  id?: string;
  user_id?: number;
  lightweight?: boolean;
  format?: string;
  subresource?: string;
}): string {
  const order = [
    'action',
    'target',
    'target_id',
    'id',
    'user_id',
    'lightweight',
    'format',
    'subresource',
  ] as const;
  const parts: string[] = [];
  for (const key of order) {
    const v = fields[key];
    if (v === undefined || v === '' || v === false) continue;
    const text = v === true ? 'True' : String(v);
    parts.push(`${key}=${text.replace(/\./g, '~').replace(/ /g, '_')}`);
  }
  return parts.join('&');
}

/**
 * Python's `urllib.parse.quote` (safe `/`): how CVAT puts an rq_id in `result_url` (`&` → `%26`,
 * `=` → `%3D`, `~` kept) and a file name in `filename*`.
 */
export function pythonQuote(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, '/');
}

/** What {@link renderRequest} reads: a background request or an events export job, as one shape. */
export interface RequestView {
  id: string;
  status: RequestState;
  message: string;
  operation: RequestOperation;
  progress: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  expiresAt: number | null;
  owner: { id: number; username: string };
  resultUrl: string | null;
  resultId: number | null;
}

/**
 * A request's times as the requests API shows them, in epoch microseconds, strictly ordered: created <
 * started < finished < expiry. RQ stamps each with the microsecond clock of the process that makes the
 * step (the API on enqueue, then the worker), so a worker never starts a job in the microsecond it was
 * queued; the world clock may give two steps the same instant (a task creation that takes no time, a
 * request the control plane ended while queued), and each later step is then shown one microsecond
 * after the one before it, the least step DRF renders. Expiry moves with the finish it counts from
 * (docs/decisions/0028).
 */
function orderedTimes(v: Pick<RequestView, 'createdAt' | 'startedAt' | 'finishedAt' | 'expiresAt'>) {
  const created = v.createdAt * 1000;
  const started = v.startedAt === null ? null : Math.max(v.startedAt * 1000, created + 1);
  const finished = v.finishedAt === null ? null : Math.max(v.finishedAt * 1000, (started ?? created) + 1);
  const shift = finished === null || v.finishedAt === null ? 0 : finished - v.finishedAt * 1000;
  const expiry = v.expiresAt === null ? null : v.expiresAt * 1000 + shift;
  return { created, started, finished, expiry };
}

/**
 * `GET /api/requests/{id}`: CVAT's `RequestSerializer` (key order `status, message, id, operation,
 * progress, created_date, started_date, finished_date, expiry_date, owner, result_url, result_id`), the
 * dates as {@link orderedTimes} gives them.
 */
export function renderRequest(v: RequestView): Record<string, unknown> {
  const t = orderedTimes(v);
  const date = (us: number | null) => (us === null ? null : formatDrfDateTime(us));
  return {
    status: v.status,
    message: v.message,
    id: v.id,
    operation: { ...v.operation },
    progress: v.progress,
    created_date: date(t.created),
    started_date: date(t.started),
    finished_date: date(t.finished),
    expiry_date: date(t.expiry),
    owner: { id: v.owner.id, username: v.owner.username },
    result_url: v.resultUrl,
    result_id: v.resultId,
  };
}
