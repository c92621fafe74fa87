/**
 * What the simulator's workers do: each kind of background request's work on the world's state, and
 * the `completed:request[…]` webhooks CVAT 2.73 sends when one ends.
 */

import type { ResourceChange } from '../changes';
import { backupArchive } from '../exports/backup';
import { datasetArchive } from '../exports/dataset';
import { exportSource } from '../exports/source';
import { importAnnotations } from '../imports/annotations-import';
import { restoreBackup } from '../imports/backup-restore';
import { importDataset } from '../imports/dataset-import';
import type { Payload } from '../payloads';
import type { AnnotationState } from '../state';
import { attachTaskData } from '../tasks';
import { selectWebhooks } from '../webhooks';
import { renderBackgroundRequest } from './lifecycle';
import {
  type BackgroundRequest,
  type ExportWork,
  pythonQuote,
  type RequestResult,
  type RequestWork,
} from './model';
import type { RequestHooks, RequestsState } from './state';

/**
 * A failed job's `message`: `traceback.format_exception_only`, the exception's class and text and a
 * newline (`ValueError: No media data found\n`).
 */
function formattedException(exceptionClass: string, message: string): string {
  return `${exceptionClass}: ${message}\n`;
}

/** The worker's failure when the request's resource was deleted meanwhile (Django's `DoesNotExist`). */
const doesNotExist = (model: string) =>
  formattedException(
    `cvat.apps.engine.models.${model}.DoesNotExist`,
    `${model} matching query does not exist.`,
  );

/**
 * Task data creation: the worker cuts the data into jobs (their events carry the request's id). The
 * changes it made are handed on (webhooks, server events) as soon as the work is done, before the
 * request's `completed:request` webhook.
 */
function createTaskData(
  state: AnnotationState,
  r: BackgroundRequest,
  work: Extract<RequestWork, { kind: 'create:task' }>,
  at: number,
  dispatch: (changes: readonly ResourceChange[]) => void,
): RequestResult | { failed: string } {
  const task = state.tasks.get(work.taskId);
  if (task === undefined) return { failed: doesNotExist('Task') };
  const changes: ResourceChange[] = [];
  try {
    attachTaskData(
      { state, now: at, actor: { kind: 'worker', ...r.owner, requestId: r.httpRequestId }, changes },
      task,
      { size: work.size, image_quality: work.imageQuality, chunk_size: work.chunkSize },
    );
  } finally {
    dispatch(changes);
  }
  return { resultId: null, resultPath: null };
}

/** The model a vanished export target is looked up as (`Task.DoesNotExist`). */
const MODELS = { project: 'Project', task: 'Task', job: 'Job' } as const;

/**
 * A dataset, annotations or backup export: the archive is built from the world as it is when the
 * worker ends, kept with the result (none for a cloud export: `result_url` null).
 */
function runExport(
  state: AnnotationState,
  r: BackgroundRequest,
  work: ExportWork,
  at: number,
): RequestResult | { failed: string } {
  const src = exportSource(state, work.target, work.targetId);
  if (src === undefined) return { failed: doesNotExist(MODELS[work.target]) };
  if (work.cloud) return { resultId: null, resultPath: null };
  const bytes =
    work.kind === 'export:backup'
      ? backupArchive(src, at)
      : datasetArchive(src, work.format ?? '', work.kind === 'export:dataset', at, r.baseUrl);
  const subresource = work.kind === 'export:backup' ? 'backup' : 'dataset';
  return {
    resultId: null,
    resultPath: `/api/${work.target}s/${work.targetId}/${subresource}/download?rq_id=${pythonQuote(r.id)}`,
    file: { name: work.filename, base64: Buffer.from(bytes).toString('base64') },
  };
}

/**
 * The hooks of a world's requests: `run` does the work by kind and hands the resource changes it made
 * to `dispatch` (the simulator's change dispatcher: the runner is the edge of a worker's changes, as
 * `api()` is of a request's); `ended` sends
 * `{"event": "completed:request[<type>]", "request": <the request as GET answers it>, "webhook_id"}`
 * (no `sender`) to the active webhooks of the request's organization and project that subscribe to it.
 *
 * @example createRequestsState(requestHooks(state, () => requestsOf(state), (id, p) => engine.enqueue(id, p), (c) => changes.dispatch(state, c)))
 */
export function requestHooks(
  state: AnnotationState,
  registry: () => RequestsState,
  deliver: (webhookId: number, payload: Payload) => void,
  dispatch: (changes: readonly ResourceChange[]) => void,
): RequestHooks {
  return {
    run(r, at) {
      switch (r.work.kind) {
        case 'create:task':
          return createTaskData(state, r, r.work, at, dispatch);
        case 'export:dataset':
        case 'export:annotations':
        case 'export:backup':
          return runExport(state, r, r.work, at);
        case 'import:backup':
          return restoreBackup(state, r, r.work, at, dispatch);
        case 'import:annotations':
          return importAnnotations(state, r, r.work, at, dispatch);
        case 'import:dataset':
          return importDataset(state, r, r.work, at, dispatch);
      }
    },
    ended(r) {
      // The uploaded file is not kept once the request ended (CVAT removes the file after its import).
      if (r.work.kind === 'import:backup') r.work.archive = '';
      if (r.work.kind === 'import:annotations' || r.work.kind === 'import:dataset') r.work.file = '';
      const event = `completed:request[${r.operation.type}]`;
      const hooks = selectWebhooks(state, event, {
        orgId: r.operation.org_id,
        projectId: r.operation.project_id,
      });
      if (hooks.length === 0) return;
      const request = renderBackgroundRequest(registry(), r, (r.outcome as { at: number }).at);
      for (const w of hooks) deliver(w.id, { event, request, webhook_id: w.id });
    },
  };
}
