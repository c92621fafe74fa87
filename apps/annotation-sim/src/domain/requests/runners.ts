/**
 * What the simulator's workers do: each kind of background request's work on the world's state, and
 * the `completed:request[…]` webhooks CVAT 2.73 sends when one ends.
 */
import type { Payload } from '../payloads';
import type { AnnotationState } from '../state';
import { attachTaskData } from '../tasks';
import { selectWebhooks } from '../webhooks';
import { renderBackgroundRequest } from './lifecycle';
import type { BackgroundRequest, RequestResult } from './model';
import type { RequestHooks, RequestsState } from './state';

/**
 * A failed job's `message`: `traceback.format_exception_only`, the exception's class and text and a
 * newline (`ValueError: No media data found\n`).
 */
function formattedException(exceptionClass: string, message: string): string {
  return `${exceptionClass}: ${message}\n`;
}

/** Task data creation: the worker cuts the data into jobs (their events carry the request's id). */
function createTaskData(
  state: AnnotationState,
  r: BackgroundRequest,
  at: number,
): RequestResult | { failed: string } {
  const work = r.work;
  const task = state.tasks.get(work.taskId);
  if (task === undefined) {
    return {
      failed: formattedException(
        'cvat.apps.engine.models.Task.DoesNotExist',
        'Task matching query does not exist.',
      ),
    };
  }
  attachTaskData(
    {
      state,
      now: at,
      actor: { kind: 'worker', ...r.owner, requestId: r.httpRequestId },
    },
    task,
    { size: work.size, image_quality: work.imageQuality, chunk_size: work.chunkSize },
  );
  return { resultId: null, resultPath: null };
}

/**
 * The hooks of a world's requests: `run` does the work by kind; `ended` sends
 * `{"event": "completed:request[<type>]", "request": <the request as GET answers it>, "webhook_id"}`
 * (no `sender`) to the active webhooks of the request's organization and project that subscribe to it.
 *
 * @example createRequestsState(requestHooks(state, () => requestsOf(state), (id, p) => engine.enqueue(id, p)))
 */
export function requestHooks(
  state: AnnotationState,
  registry: () => RequestsState,
  deliver: (webhookId: number, payload: Payload) => void,
): RequestHooks {
  return {
    run(r, at) {
      switch (r.work.kind) {
        case 'create:task':
          return createTaskData(state, r, at);
      }
    },
    ended(r) {
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
