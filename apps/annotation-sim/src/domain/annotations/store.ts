/**
 * A job's annotations: read as CVAT's `JobAnnotation.init_from_db` gives them, and the changes of
 * `put`, `create`, `update` and `delete` (dataset_manager/task.py), each checked whole before anything
 * is saved (CVAT runs them in one transaction). A change returns what it did per action, in the
 * serialized form (`AnnotationChange`), for the events of annotation changes.
 */
import { fail, ok, type Result } from '../errors';
import { labelsById } from '../label-read';
import type { JobRec, LabelRec, TaskRec } from '../model';
import { type MutationContext, update } from '../mutation';
import type { AnnotationState } from '../state';
import { buildRows, prepareTracks } from './build';
import { checkGivenIds, uniqueViolation } from './ids-in-use';
import { checkLabels } from './labels-check';
import {
  type AnnotationChange,
  type DataIn,
  isEmpty,
  type JobAnnotationsRec,
  type LabeledData,
  NONE,
  type ShapeRow,
  type TrackRow,
} from './model';

/** What a write does to one job: PUT replaces, a PATCH's `action` (`PatchAction`) the others. */
export type JobWriteAction = 'put' | 'create' | 'update' | 'delete';

/** A job's stored rows (none stored: empty). */
export function jobRecord(state: AnnotationState, jobId: number): JobAnnotationsRec {
  return state.annotations.get(jobId) ?? { job_id: jobId, tags: NONE, shapes: NONE, tracks: NONE };
}

const byFrame = <T extends { frame: number; id: number }>(a: T, b: T) => a.frame - b.frame || a.id - b.id;

/** The rows of `rec` left when the objects of `data` with those ids are gone (elements by their own ids). */
function withoutIds(rec: JobAnnotationsRec, data: DataIn): JobAnnotationsRec {
  const tagIds = new Set(data.tags.map((t) => t.id));
  const shapeIds = new Set(data.shapes.map((s) => s.id));
  const trackIds = new Set(data.tracks.map((t) => t.id));
  const shapes = (list: readonly ShapeRow[]): ShapeRow[] =>
    list
      .filter((s) => !shapeIds.has(s.id))
      .map((s) => (s.elements?.some((e) => shapeIds.has(e.id)) ? { ...s, elements: shapes(s.elements) } : s));
  const tracks = (list: readonly TrackRow[]): TrackRow[] =>
    list
      .filter((t) => !trackIds.has(t.id))
      .map((t) => (t.elements?.some((e) => trackIds.has(e.id)) ? { ...t, elements: tracks(t.elements) } : t));
  return {
    job_id: rec.job_id,
    tags: rec.tags.filter((t) => !tagIds.has(t.id)),
    shapes: shapes(rec.shapes),
    tracks: tracks(rec.tracks),
  };
}

/** A job's rows after a write, before its new objects are added. */
function remaining(rec: JobAnnotationsRec, data: DataIn, action: JobWriteAction): JobAnnotationsRec {
  if (action === 'put') return { job_id: rec.job_id, tags: NONE, shapes: NONE, tracks: NONE };
  if (action === 'create') return rec;
  return withoutIds(rec, data);
}

const asData = (d: { tags: readonly unknown[]; shapes: readonly unknown[]; tracks: readonly unknown[] }) =>
  ({ version: 0, tags: d.tags, shapes: d.shapes, tracks: d.tracks, intervals: NONE }) as LabeledData;

/** One job's part of a write, checked. */
export interface JobWriteInput {
  job: JobRec;
  data: DataIn;
}

/** What a write did to one job: its answer (CVAT's `annotation.data`) and its changes. */
export interface JobWriteOutcome {
  job: JobRec;
  data: LabeledData;
  changes: AnnotationChange[];
}

/**
 * The labels check of every part, then the ids given against those in use (with each part's job as it
 * will be), before anything is saved: the refusal CVAT's transaction would end in. Tracks are prepared
 * (frames synchronised, those without keyframes dropped) first, as CVAT does before its checks.
 */
export function checkWrite(
  state: AnnotationState,
  labels: Map<number, LabelRec>,
  parts: readonly JobWriteInput[],
  action: JobWriteAction,
): Result<true> {
  for (const part of parts) {
    if (action !== 'delete') part.data.tracks = prepareTracks(part.data.tracks);
    if (action === 'delete') continue;
    const checked = checkLabels(labels, part.data);
    if (!checked.ok) return checked;
  }
  if (action === 'delete') return ok(true);
  const replaced = new Map(
    parts.map((p) => [p.job.id, remaining(jobRecord(state, p.job.id), p.data, action)]),
  );
  const all: DataIn = {
    version: 0,
    tags: parts.flatMap((p) => p.data.tags),
    shapes: parts.flatMap((p) => p.data.shapes),
    tracks: parts.flatMap((p) => p.data.tracks),
  };
  const ids = checkGivenIds(state, all, replaced);
  if (ids.ok) return ok(true);
  // PUT does not catch the IntegrityError (Django's 500); a PATCH answers its text.
  return action === 'put'
    ? fail({ code: 'SERVER_ERROR', reason: `IntegrityError: ${uniqueViolation(ids.error)}` })
    : fail({ code: 'INVALID_STRING', message: uniqueViolation(ids.error) });
}

/**
 * `_set_updated_date`: the job, its task and the task's project are touched (`touch()`: a save of
 * `updated_date` alone). Each save sends its `update:<kind>` webhook, `before_update` holding only
 * `updated_date`, and logs no server event (CVAT's event handlers skip such saves): the changes are
 * marked `logged: false`. A save whose date did not change (the clock did not move) sends nothing.
 */
function touch(ctx: MutationContext, job: JobRec): void {
  const from = ctx.changes?.length ?? 0;
  update(ctx, 'job', job, {});
  const task = ctx.state.tasks.get(job.task_id);
  if (task) {
    update(ctx, 'task', task, {});
    const project = task.project_id === null ? undefined : ctx.state.projects.get(task.project_id);
    if (project) update(ctx, 'project', project, {});
  }
  if (!ctx.changes) return;
  // A save that changed nothing (a second write at the same instant of the clock) sends nothing: the
  // webhooks' receiver returns when the instance's diff is empty.
  const made = ctx.changes.splice(from);
  for (const change of made) {
    change.logged = false;
    if (change.changes !== undefined && Object.keys(change.changes).length > 0) ctx.changes.push(change);
  }
}

/** Saves one checked part ({@link checkWrite}): the job's rows replaced, its dates touched as CVAT does. */
export function applyWrite(
  ctx: MutationContext,
  part: JobWriteInput,
  action: JobWriteAction,
): JobWriteOutcome {
  const { job, data } = part;
  const before = jobRecord(ctx.state, job.id);
  const kept = remaining(before, data, action);
  const changes: AnnotationChange[] = [];
  if (action === 'put') changes.push({ action: 'delete', jobId: job.id, data: asData(before) });
  if (action === 'delete') {
    const deleted = asData(data);
    ctx.state.annotations.set(job.id, kept);
    if (!isEmpty(data)) touch(ctx, job);
    changes.push({ action: 'delete', jobId: job.id, data: deleted });
    return { job, data: deleted, changes };
  }
  const rows = buildRows(ctx.state, data);
  ctx.state.annotations.set(job.id, {
    job_id: job.id,
    tags: [...kept.tags, ...rows.tags].sort(byFrame),
    shapes: [...kept.shapes, ...rows.shapes].sort(byFrame),
    tracks: [...kept.tracks, ...rows.tracks].sort((a, b) => a.id - b.id),
  });
  const created = asData(rows);
  // `update` is logged before the change, with the objects as the request gave them and the job's
  // tracks as they were (`handle_annotations_change` counts their visible shapes against them).
  changes.push(
    action === 'update'
      ? { action: 'update', jobId: job.id, data: asData(data), storedTracks: before.tracks }
      : { action: 'create', jobId: job.id, data: created },
  );
  if (!isEmpty(rows) || (action === 'put' && !isEmpty(before))) touch(ctx, job);
  return { job, data: created, changes };
}

/** `DELETE …/annotations` of one job: everything removed, the job touched if it had any. */
export function clearJob(ctx: MutationContext, job: JobRec): JobWriteOutcome {
  const before = jobRecord(ctx.state, job.id);
  ctx.state.annotations.delete(job.id);
  if (!isEmpty(before)) touch(ctx, job);
  return { job, data: asData(before), changes: [{ action: 'delete', jobId: job.id, data: asData(before) }] };
}

/** The labels a job's (or task's) annotations may name: the task's, sublabels included. */
export const labelsOfTask = (state: AnnotationState, task: TaskRec): Map<number, LabelRec> =>
  labelsById(state, task);
