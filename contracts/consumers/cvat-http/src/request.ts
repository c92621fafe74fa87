import type { CvatError } from './cvat-error';
import { type CvatHttp, expectStatus } from './cvat-http';
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

/** How a followed request ended: finished or failed as CVAT says, or still running after the last poll. */
export type FollowedRequest =
  | { readonly outcome: 'finished'; readonly polls: number; readonly request: CvatRequest }
  | { readonly outcome: 'failed'; readonly polls: number; readonly message: string }
  | { readonly outcome: 'timed-out'; readonly polls: number }
  | { readonly outcome: 'rejected'; readonly error: CvatError };

/** Polling of a background request: the sleep between polls is injected, and the polls are bounded. */
export interface PollOptions {
  readonly sleep: (ms: number) => Promise<void>;
  readonly pollIntervalMs: number;
  readonly maxPolls: number;
}

/**
 * Polls `GET /api/requests/{rq_id}` until the request is `finished` or `failed`, at most `maxPolls`
 * times (a request nobody works on stays queued forever).
 *
 * @example
 * const ended = await followRequest(http, 'action=export&target=task&target_id=42&…', { sleep, pollIntervalMs: 1000, maxPolls: 600 });
 */
export async function followRequest(
  http: CvatHttp,
  rqId: string,
  poll: PollOptions,
): Promise<FollowedRequest> {
  // The rq_id holds `&` and `=`: encode it whole.
  const path = `/api/requests/${encodeURIComponent(rqId)}`;
  for (let polls = 1; polls <= poll.maxPolls; polls++) {
    const read = expectStatus(await http.request('GET', path), 200, (r) => readCvatRequest(r.body));
    if (!read.ok) return { outcome: 'rejected', error: read.error };
    const request = read.value;
    if (request.status === 'failed') return { outcome: 'failed', polls, message: request.message };
    if (request.status === 'finished') return { outcome: 'finished', polls, request };
    if (polls < poll.maxPolls) await poll.sleep(poll.pollIntervalMs);
  }
  return { outcome: 'timed-out', polls: poll.maxPolls };
}
