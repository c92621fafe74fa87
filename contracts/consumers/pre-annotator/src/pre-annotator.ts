import {
  type Annotations,
  asObject,
  type CvatError,
  type CvatHttp,
  type CvatResult,
  expectStatus,
  type Label,
  listLabels,
  num,
  readAnnotations,
} from '../../cvat-http/src';
import { createTaskCreator, type TaskData } from '../../task-creator/src';

/** A model's prediction: a box on one frame, by its label's name. */
export interface Prediction {
  readonly label: string;
  readonly frame: number;
  /** `[x1, y1, x2, y2]` in pixels, as CVAT's rectangles are. */
  readonly box: readonly [number, number, number, number];
}

export type PreAnnotationReport =
  | {
      readonly outcome: 'uploaded';
      readonly taskId: number;
      /** What the PUT answered: the shapes with the ids CVAT gave them. */
      readonly saved: Annotations;
      /** What a GET of the task's annotations read back afterwards. */
      readonly readBack: Annotations;
    }
  | { readonly outcome: 'rejected'; readonly step: string; readonly error: CvatError }
  | { readonly outcome: 'data-failed'; readonly taskId: number; readonly detail: string }
  | { readonly outcome: 'unknown-label'; readonly taskId: number; readonly label: string };

export interface PreAnnotatorOptions {
  readonly http: CvatHttp;
  readonly sleep: (ms: number) => Promise<void>;
  readonly pollIntervalMs?: number;
  readonly maxPolls?: number;
}

/**
 * A pre-annotation service: makes a task with the model's labels, sends its images, then uploads the
 * model's boxes as the task's annotations (`PUT /api/tasks/{id}/annotations`, `source: "auto"`) for
 * people to correct, and reads them back.
 *
 * @example
 * const annotator = createPreAnnotator({ http: createCvatHttp({ baseUrl, token }), sleep });
 * await annotator.preAnnotate('Street signs', ['sign'], data, [{ label: 'sign', frame: 0, box: [1, 2, 30, 40] }]);
 */
export function createPreAnnotator(options: PreAnnotatorOptions) {
  const { http } = options;
  const creator = createTaskCreator(options);

  async function createTask(name: string, labels: readonly string[]): Promise<CvatResult<number>> {
    const response = await http.request('POST', '/api/tasks', {
      json: { name, labels: labels.map((label) => ({ name: label, type: 'rectangle' })) },
    });
    return expectStatus(response, 201, (r) => num(asObject(r.body, 'task'), 'id'));
  }

  /** Every label of the task, following `next` pages. */
  const labelsOf = (taskId: number): Promise<CvatResult<Label[]>> => listLabels(http, { task_id: taskId });

  async function putAnnotations(
    taskId: number,
    shapes: readonly Record<string, unknown>[],
  ): Promise<CvatResult<Annotations>> {
    const response = await http.request('PUT', `/api/tasks/${taskId}/annotations`, {
      json: { version: 0, tags: [], shapes, tracks: [] },
    });
    return expectStatus(response, 200, (r) => readAnnotations(r.body));
  }

  async function annotationsOf(taskId: number): Promise<CvatResult<Annotations>> {
    const response = await http.request('GET', `/api/tasks/${taskId}/annotations`);
    return expectStatus(response, 200, (r) => readAnnotations(r.body));
  }

  async function preAnnotate(
    name: string,
    labels: readonly string[],
    data: TaskData,
    predictions: readonly Prediction[],
  ): Promise<PreAnnotationReport> {
    const task = await createTask(name, labels);
    if (!task.ok) return { outcome: 'rejected', step: 'create task', error: task.error };
    const taskId = task.value;
    const made = await creator.createTaskData(taskId, data);
    if (made.outcome === 'rejected') return { outcome: 'rejected', step: 'send data', error: made.error };
    if (made.outcome !== 'created')
      return {
        outcome: 'data-failed',
        taskId,
        detail: made.outcome === 'failed' ? made.message : 'timed out',
      };
    const known = await labelsOf(taskId);
    if (!known.ok) return { outcome: 'rejected', step: 'read labels', error: known.error };
    const ids = new Map(known.value.map((l) => [l.name, l.id]));
    const shapes: Record<string, unknown>[] = [];
    for (const p of predictions) {
      const labelId = ids.get(p.label);
      if (labelId === undefined) return { outcome: 'unknown-label', taskId, label: p.label };
      shapes.push({
        type: 'rectangle',
        frame: p.frame,
        label_id: labelId,
        points: [...p.box],
        source: 'auto',
      });
    }
    const saved = await putAnnotations(taskId, shapes);
    if (!saved.ok) return { outcome: 'rejected', step: 'put annotations', error: saved.error };
    const readBack = await annotationsOf(taskId);
    if (!readBack.ok) return { outcome: 'rejected', step: 'read annotations', error: readBack.error };
    return { outcome: 'uploaded', taskId, saved: saved.value, readBack: readBack.value };
  }

  return { createTask, labelsOf, putAnnotations, annotationsOf, preAnnotate };
}

export type PreAnnotator = ReturnType<typeof createPreAnnotator>;
