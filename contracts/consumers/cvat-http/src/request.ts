import { asObject, numOrNull, str, strOrNull } from './read';

/** `RequestStatus` (deferred and scheduled RQ jobs are reported as `queued`). */
export type CvatRequestStatus = 'queued' | 'started' | 'finished' | 'failed';

const STATUSES: readonly string[] = ['queued', 'started', 'finished', 'failed'];

/**
 * The fields of a CVAT `Request` (a background job behind `GET /api/requests/{id}`, also the `request`
 * of a `completed:request[…]` webhook payload) that the consumers use.
 */
export interface CvatRequest {
  /** The rq_id, e.g. `action=create&target=task&target_id=42`. */
  readonly id: string;
  readonly status: CvatRequestStatus;
  /** `""` unless failed; then the worker's exception as Python formats it (`ValueError: …\n`). */
  readonly message: string;
  /** `operation.type`: `create:task`, `export:events`, `export:dataset`, … */
  readonly type: string;
  readonly taskId: number | null;
  readonly projectId: number | null;
  /** ISO 8601; null while the request runs. */
  readonly finishedDate: string | null;
  /** Where the result is downloaded from; null for task creation. */
  readonly resultUrl: string | null;
}

/**
 * Reads a `Request` object (reference cvat-webhooks-events.md §1.5, §2.4); throws on a shape the
 * consumers do not understand.
 *
 * @example
 * readCvatRequest({ id: 'action=create&target=task&target_id=42', status: 'finished', message: '',
 *   operation: { type: 'create:task', target: 'task', task_id: 42 } }).taskId; // 42
 */
export function readCvatRequest(body: unknown): CvatRequest {
  const request = asObject(body, 'request');
  const status = str(request, 'status');
  if (!STATUSES.includes(status)) throw new Error(`unknown request status ${JSON.stringify(status)}`);
  const operation = asObject(request['operation'], 'request.operation');
  return {
    id: str(request, 'id'),
    status: status as CvatRequestStatus,
    message: strOrNull(request, 'message') ?? '',
    type: str(operation, 'type'),
    taskId: numOrNull(operation, 'task_id'),
    projectId: numOrNull(operation, 'project_id'),
    finishedDate: strOrNull(request, 'finished_date'),
    resultUrl: strOrNull(request, 'result_url'),
  };
}
