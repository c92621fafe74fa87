/**
 * The `import:annotations` worker: CVAT 2.73's `import_task_annotations` / `import_job_annotations`
 * (`dataset_manager/task.py`), each one transaction. The file is read whole by the format's importer
 * (`formats/index.ts`) against the target's labels and frames first; only annotations that were read
 * and checked are written, through the store's own write (`applyWrite`), so the job, task and project
 * dates, their `update:*` webhooks and the annotation events are those of a PUT or PATCH. `import_mode`
 * `replace` (the default) deletes the target's annotations first (`self.delete()`, then the importer's
 * `create`): the write of a PUT; `append` adds them: the write of `PATCH ?action=create`.
 */

import { recordAnnotationChanges } from '../annotations/change-events';
import type { DataIn, ShapeIn } from '../annotations/model';
import { applyWrite, checkWrite, type JobWriteInput, labelsOfTask } from '../annotations/store';
import { splitByJob } from '../annotations/task-split';
import type { Actor, ResourceChange } from '../changes';
import { frameOf } from '../data-meta';
import type { JobRec, TaskRec } from '../model';
import type { MutationContext } from '../mutation';
import { jobsOfTask } from '../relations';
import type { BackgroundRequest, ImportAnnotationsWork, RequestResult } from '../requests/model';
import type { AnnotationState } from '../state';
import { importerFor } from './formats/index';
import { ImportError, type ImportFrame } from './formats/types';

/** A failed job's `message` (`format_exception_only`). */
const failure = (exceptionClass: string, message: string) => ({ failed: `${exceptionClass}: ${message}\n` });

/** Frames `start`…`stop` of the task's data, numbered in the task. */
function framesOf(task: TaskRec, start: number, stop: number): ImportFrame[] {
  const frames: ImportFrame[] = [];
  for (let i = start; i <= stop; i++) frames.push({ index: i, frame: frameOf(task, i) });
  return frames;
}

/** The task's annotation jobs in id order (`TaskAnnotation.db_jobs`). */
const annotationJobs = (state: AnnotationState, task: TaskRec): JobRec[] =>
  jobsOfTask(state, task.id)
    .filter((j) => j.type === 'annotation')
    .sort((a, b) => a.id - b.id);

const hasMask = (shapes: readonly ShapeIn[]): boolean =>
  shapes.some((s) => s.type === 'mask' || hasMask(s.elements ?? []));

/**
 * Chosen (FIDELITY.md): masks are not converted to polygons; what was read is refused rather than
 * imported wrongly when `conv_mask_to_poly` asks for the conversion. The request's failure, or null.
 */
export function maskConversionRefused(
  data: Pick<DataIn, 'shapes' | 'tracks'>,
  convMaskToPoly: boolean,
): { failed: string } | null {
  if (!convMaskToPoly) return null;
  if (!hasMask(data.shapes) && !data.tracks.some((t) => t.shapes.some((s) => s.type === 'mask'))) return null;
  return failure(
    'NotImplementedError',
    'annotation-sim does not convert masks to polygons (conv_mask_to_poly); import with conv_mask_to_poly=false. See its FIDELITY.md.',
  );
}

/**
 * Imports the request's file into its task or job; `result_id` and `result_url` stay null (CVAT's
 * import function returns nothing). A file the importer refuses, a target deleted meanwhile or what the
 * simulator does not do fails the request and changes nothing.
 */
export function importAnnotations(
  state: AnnotationState,
  r: BackgroundRequest,
  work: ImportAnnotationsWork,
  at: number,
  dispatch: (changes: readonly ResourceChange[]) => void,
): RequestResult | { failed: string } {
  const job = work.target === 'job' ? state.jobs.get(work.targetId) : undefined;
  const task = state.tasks.get(job ? job.task_id : work.targetId);
  if (task === undefined || (work.target === 'job' && job === undefined)) {
    const model = work.target === 'job' ? 'Job' : 'Task';
    return failure(
      `cvat.apps.engine.models.${model}.DoesNotExist`,
      `${model} matching query does not exist.`,
    );
  }
  const importer = importerFor(work.format);
  if (importer === undefined) return failure('KeyError', `'${work.format}'`);
  const labels = labelsOfTask(state, task);
  let data: DataIn;
  try {
    const read = importer.read(
      { name: work.fileName, bytes: Buffer.from(work.file, 'base64') },
      {
        labels: [...labels.values()],
        frames: job ? framesOf(task, job.start_frame, job.stop_frame) : framesOf(task, 0, task.size - 1),
      },
    );
    data = { version: 0, tags: read.tags, shapes: read.shapes, tracks: read.tracks };
  } catch (err) {
    if (err instanceof ImportError) return failure(err.exceptionClass, err.message);
    throw err;
  }
  const masks = maskConversionRefused(data, work.convMaskToPoly);
  if (masks) return masks;
  let parts: JobWriteInput[];
  if (job) parts = [{ job, data }];
  else {
    const split = splitByJob(annotationJobs(state, task), data);
    if (split.crossing) {
      return failure(
        'NotImplementedError',
        "annotation-sim does not split a track across the task's jobs. See its FIDELITY.md.",
      );
    }
    parts = split.parts;
  }
  const action = work.mode === 'replace' ? 'put' : 'create';
  const checked = checkWrite(state, labels, parts, action);
  if (!checked.ok)
    return failure('cvat.apps.dataset_manager.bindings.CvatImportError', JSON.stringify(checked.error));
  const actor: Actor = { kind: 'worker', ...r.owner, requestId: r.httpRequestId };
  const changes: ResourceChange[] = [];
  const ctx: MutationContext = { state, now: at, actor, changes };
  try {
    // The annotation events first, then the saves' webhooks, as a PUT's view and its edge hand them on;
    // every job's deletion before any creation (`self.delete()` of the whole target, then the importer's).
    const made = parts.flatMap((p) => applyWrite(ctx, p, action).changes);
    const deletes = made.filter((c) => c.action === 'delete');
    recordAnnotationChanges(state, [...deletes, ...made.filter((c) => c.action !== 'delete')], actor, at);
  } finally {
    dispatch(changes);
  }
  return { resultId: null, resultPath: null };
}
