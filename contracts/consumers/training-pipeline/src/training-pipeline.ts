import {
  asArray,
  asObject,
  type CvatError,
  type CvatHttp,
  expectStatus,
  followRequest,
  num,
  str,
} from '../../cvat-http/src';
import { readZipEntry } from './zip';

/** The file of a COCO 1.0 export that holds a task's boxes (CVAT names it after the subset, `default`). */
export const COCO_INSTANCES = 'annotations/instances_default.json';

/** A box as a training job reads it from COCO: the image's file, the category's name, `[x, y, w, h]`. */
export interface TrainingBox {
  readonly image: string;
  readonly category: string;
  readonly bbox: readonly number[];
}

/** What the pipeline trains on: the images (file, size), the category names by id, the boxes. */
export interface TrainingSet {
  readonly images: readonly { readonly file: string; readonly width: number; readonly height: number }[];
  readonly categories: readonly string[];
  readonly boxes: readonly TrainingBox[];
}

export type TrainingReport =
  | { readonly outcome: 'exported'; readonly rqId: string; readonly polls: number; readonly set: TrainingSet }
  | { readonly outcome: 'failed'; readonly rqId: string; readonly message: string }
  | { readonly outcome: 'timed-out'; readonly rqId: string; readonly polls: number }
  | { readonly outcome: 'rejected'; readonly error: CvatError };

export interface TrainingPipelineOptions {
  readonly http: CvatHttp;
  readonly sleep: (ms: number) => Promise<void>;
  /** Default 1 s. */
  readonly pollIntervalMs?: number;
  /** Default 600 (10 min at 1 s). */
  readonly maxPolls?: number;
}

/**
 * Reads COCO's instances file (`images`, `categories`, `annotations` with `image_id`, `category_id`,
 * `bbox`) into the training set; throws on a shape the pipeline does not understand.
 */
export function readCocoInstances(json: unknown): TrainingSet {
  const coco = asObject(json, 'COCO instances');
  const images = new Map<number, { file: string; width: number; height: number }>();
  for (const value of asArray(coco.images, 'images')) {
    const image = asObject(value, 'image');
    images.set(num(image, 'id'), {
      file: str(image, 'file_name'),
      width: num(image, 'width'),
      height: num(image, 'height'),
    });
  }
  const categories = new Map<number, string>();
  for (const value of asArray(coco.categories, 'categories')) {
    const category = asObject(value, 'category');
    categories.set(num(category, 'id'), str(category, 'name'));
  }
  const boxes = asArray(coco.annotations, 'annotations').map((value) => {
    const annotation = asObject(value, 'annotation');
    const image = images.get(num(annotation, 'image_id'));
    const category = categories.get(num(annotation, 'category_id'));
    if (!image || category === undefined)
      throw new Error(`annotation ${JSON.stringify(annotation.id)} names no listed image or category`);
    const bbox = asArray(annotation.bbox, 'bbox').map((v) => {
      if (typeof v !== 'number') throw new Error(`expected "bbox" to hold numbers, got ${JSON.stringify(v)}`);
      return v;
    });
    return { image: image.file, category, bbox };
  });
  return { images: [...images.values()], categories: [...categories.values()], boxes };
}

/**
 * A training pipeline's input step: exports a task's dataset in COCO 1.0 without the images (`POST
 * /api/tasks/{id}/dataset/export?format=COCO%201.0&save_images=false` answers 202 `{"rq_id"}`), follows
 * the request (`GET /api/requests/{rq_id}`) until it is `finished` or `failed`, downloads the archive
 * from its `result_url` and reads `annotations/instances_default.json` from it.
 *
 * @example
 * const pipeline = createTrainingPipeline({ http: createCvatHttp({ baseUrl, token }), sleep });
 * const report = await pipeline.fetchTrainingSet(42);
 */
export function createTrainingPipeline(options: TrainingPipelineOptions) {
  const { http } = options;
  const poll = {
    sleep: options.sleep,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    maxPolls: options.maxPolls ?? 600,
  };

  /** Asks for the export; the result is the rq_id. */
  async function startExport(taskId: number) {
    const response = await http.request('POST', `/api/tasks/${taskId}/dataset/export`, {
      query: { format: 'COCO 1.0', save_images: 'false' },
    });
    return expectStatus(response, 202, (r) => str(asObject(r.body, 'export'), 'rq_id'));
  }

  /** The archive at `resultUrl`, its instances file read. */
  async function download(resultUrl: string) {
    return expectStatus(await http.download(resultUrl), 200, (r) => {
      const json = readZipEntry(r.body as Uint8Array, COCO_INSTANCES);
      if (!json) throw new Error(`the export holds no ${COCO_INSTANCES}`);
      return readCocoInstances(JSON.parse(Buffer.from(json).toString('utf8')));
    });
  }

  async function fetchTrainingSet(taskId: number): Promise<TrainingReport> {
    const started = await startExport(taskId);
    if (!started.ok) return { outcome: 'rejected', error: started.error };
    const rqId = started.value;
    const ended = await followRequest(http, rqId, poll);
    if (ended.outcome === 'rejected') return ended;
    if (ended.outcome === 'failed') return { outcome: 'failed', rqId, message: ended.message };
    if (ended.outcome === 'timed-out') return { outcome: 'timed-out', rqId, polls: ended.polls };
    const resultUrl = ended.request.resultUrl;
    if (resultUrl === null) throw new Error(`export ${rqId} finished without a result_url`);
    const set = await download(resultUrl);
    if (!set.ok) return { outcome: 'rejected', error: set.error };
    return { outcome: 'exported', rqId, polls: ended.polls, set: set.value };
  }

  return { startExport, download, fetchTrainingSet };
}

export type TrainingPipeline = ReturnType<typeof createTrainingPipeline>;
