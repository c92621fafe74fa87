import {
  asObject,
  type CvatError,
  type CvatHttp,
  type CvatRequest,
  type CvatResult,
  expectStatus,
  readCvatRequest,
  str,
} from '../../cvat-http/src';

/** The data of a task, as files on CVAT's share (`server_files`), and the quality its chunks are cut at. */
export interface TaskData {
  /** 0–100. */
  readonly imageQuality: number;
  /** Paths relative to the share root, e.g. `street/frame_000.jpg`. */
  readonly serverFiles: readonly string[];
}

export type TaskDataReport =
  | {
      readonly outcome: 'created';
      readonly rqId: string;
      readonly polls: number;
      /** The finished request, as `GET /api/requests/{rq_id}` last answered it. */
      readonly request: CvatRequest;
    }
  | { readonly outcome: 'failed'; readonly rqId: string; readonly message: string }
  | { readonly outcome: 'timed-out'; readonly rqId: string; readonly polls: number }
  | { readonly outcome: 'rejected'; readonly error: CvatError };

export interface TaskCreatorOptions {
  readonly http: CvatHttp;
  readonly sleep: (ms: number) => Promise<void>;
  /** Default 1 s. */
  readonly pollIntervalMs?: number;
  /** Default 600 (10 min at 1 s). A request nobody works on stays queued forever. */
  readonly maxPolls?: number;
}

/**
 * Sends a task's data and follows the background request that creates it: `POST /api/tasks/{id}/data/`
 * answers 202 `{"rq_id": "action=create&target=task&target_id=<id>"}`, then `GET /api/requests/{rq_id}`
 * until the request is `finished` (the task has its jobs) or `failed` (its `message` says why).
 *
 * @example
 * const creator = createTaskCreator({ http: createCvatHttp({ baseUrl, token }), sleep });
 * const report = await creator.createTaskData(42, { imageQuality: 70, serverFiles: ['a.jpg'] });
 */
export function createTaskCreator(options: TaskCreatorOptions) {
  const { http, sleep } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const maxPolls = options.maxPolls ?? 600;

  /**
   * Sends the data; the result is the rq_id. A 409 carries the id of the same request, still queued or
   * started (the data was sent already): it is followed like a new one.
   */
  async function sendData(taskId: number, data: TaskData): Promise<CvatResult<string>> {
    const response = await http.request('POST', `/api/tasks/${taskId}/data/`, {
      json: { image_quality: data.imageQuality, server_files: data.serverFiles },
    });
    return expectStatus(response, [202, 409], (r) => str(asObject(r.body, 'data upload'), 'rq_id'));
  }

  async function getRequest(rqId: string): Promise<CvatResult<CvatRequest>> {
    // The rq_id holds `&` and `=` (`action=create&target=task&target_id=42`): encode it whole.
    const response = await http.request('GET', `/api/requests/${encodeURIComponent(rqId)}`);
    return expectStatus(response, 200, (r) => readCvatRequest(r.body));
  }

  async function createTaskData(taskId: number, data: TaskData): Promise<TaskDataReport> {
    const sent = await sendData(taskId, data);
    if (!sent.ok) return { outcome: 'rejected', error: sent.error };
    const rqId = sent.value;
    for (let polls = 1; polls <= maxPolls; polls++) {
      const request = await getRequest(rqId);
      if (!request.ok) return { outcome: 'rejected', error: request.error };
      const current = request.value;
      if (current.status === 'failed') return { outcome: 'failed', rqId, message: current.message };
      if (current.status === 'finished') return { outcome: 'created', rqId, polls, request: current };
      if (polls < maxPolls) await sleep(pollIntervalMs);
    }
    return { outcome: 'timed-out', rqId, polls: maxPolls };
  }

  return { sendData, getRequest, createTaskData };
}

export type TaskCreator = ReturnType<typeof createTaskCreator>;
