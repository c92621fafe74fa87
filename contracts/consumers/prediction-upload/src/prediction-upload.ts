import {
  type Annotations,
  asObject,
  type CvatError,
  type CvatHttp,
  expectStatus,
  followRequest,
  readAnnotations,
  str,
} from '../../cvat-http/src';

/** A model's predictions as a file CVAT imports: its name and its bytes (a COCO archive or instances JSON). */
export interface PredictionFile {
  readonly name: string;
  readonly content: string | Uint8Array;
  /** The part's media type; default `application/json`. */
  readonly type?: string;
}

export type UploadReport =
  | {
      readonly outcome: 'imported';
      readonly rqId: string;
      readonly polls: number;
      /** The task's annotations read back once the import finished. */
      readonly readBack: Annotations;
    }
  | { readonly outcome: 'failed'; readonly rqId: string; readonly message: string }
  | { readonly outcome: 'timed-out'; readonly rqId: string; readonly polls: number }
  | { readonly outcome: 'rejected'; readonly error: CvatError };

export interface PredictionUploaderOptions {
  readonly http: CvatHttp;
  readonly sleep: (ms: number) => Promise<void>;
  /** Default 1 s. */
  readonly pollIntervalMs?: number;
  /** Default 600 (10 min at 1 s). */
  readonly maxPolls?: number;
}

/**
 * A model's predictions uploaded as a task's annotations: `POST /api/tasks/{id}/annotations?format=COCO%201.0`
 * with the file as the multipart field `annotation_file` answers 202 `{"rq_id"}` (409 with the same id
 * while an import of the task still runs: it is followed like a new one), then `GET /api/requests/{rq_id}`
 * until the import is `finished` or `failed`, then `GET /api/tasks/{id}/annotations` reads them back.
 *
 * @example
 * const uploader = createPredictionUploader({ http: createCvatHttp({ baseUrl, token }), sleep });
 * const report = await uploader.uploadPredictions(42, { name: 'predictions.json', content: json });
 */
export function createPredictionUploader(options: PredictionUploaderOptions) {
  const { http } = options;
  const poll = {
    sleep: options.sleep,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    maxPolls: options.maxPolls ?? 600,
  };

  /** Sends the file; the result is the rq_id of the import. */
  async function startImport(taskId: number, file: PredictionFile, format = 'COCO 1.0') {
    const form = new FormData();
    const blob = new Blob([file.content], { type: file.type ?? 'application/json' });
    form.set('annotation_file', blob, file.name);
    const response = await http.upload('POST', `/api/tasks/${taskId}/annotations`, form, { format });
    return expectStatus(response, [202, 409], (r) => str(asObject(r.body, 'import'), 'rq_id'));
  }

  async function readBack(taskId: number) {
    return expectStatus(await http.request('GET', `/api/tasks/${taskId}/annotations`), 200, (r) =>
      readAnnotations(r.body),
    );
  }

  async function uploadPredictions(taskId: number, file: PredictionFile): Promise<UploadReport> {
    const started = await startImport(taskId, file);
    if (!started.ok) return { outcome: 'rejected', error: started.error };
    const rqId = started.value;
    const ended = await followRequest(http, rqId, poll);
    if (ended.outcome === 'rejected') return ended;
    if (ended.outcome === 'failed') return { outcome: 'failed', rqId, message: ended.message };
    if (ended.outcome === 'timed-out') return { outcome: 'timed-out', rqId, polls: ended.polls };
    const annotations = await readBack(taskId);
    if (!annotations.ok) return { outcome: 'rejected', error: annotations.error };
    return { outcome: 'imported', rqId, polls: ended.polls, readBack: annotations.value };
  }

  return { startImport, readBack, uploadPredictions };
}

export type PredictionUploader = ReturnType<typeof createPredictionUploader>;
