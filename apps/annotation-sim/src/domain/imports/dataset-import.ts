/**
 * A dataset imported into a project, as CVAT 2.73's worker runs `import_dataset_as_project`
 * (`dataset_manager/project.py`, `load_dataset_data` in `bindings.py`): one transaction that makes one
 * new task a subset of the archive (named after the subset, owned by the project's owner, in its
 * organization, its data the subset's images, `image_quality` 70), after the labels are settled (a
 * project without labels is given the dataset's, `type` any; else every dataset label must be the
 * project's), then the annotations the format's importer reads are created in the new tasks. Tasks the
 * project has are left as they are.
 *
 * As for backups (docs/decisions/0032), everything is read and checked before the first write: the
 * layout (`dataset-layout.ts`), the labels, each subset's images and its annotations read by the
 * importer against the frames and labels the tasks will have (placeholder ids for labels still to be
 * made). A refusal fails the request with the exception CVAT's worker raises and changes nothing.
 */

import { recordAnnotationChanges } from '../annotations/change-events';
import type { AnnotationChange, DataIn, ShapeIn, TrackIn } from '../annotations/model';
import { applyWrite, checkWrite, labelsOfTask } from '../annotations/store';
import { splitByJob } from '../annotations/task-split';
import type { Actor, ResourceChange } from '../changes';
import { FRAME_HEIGHT, FRAME_WIDTH } from '../exports/frames';
import { type ZipEntry, zipArchive } from '../exports/zip';
import { imageSize } from '../image-header';
import { labelsOfOwner } from '../label-read';
import { createLabels } from '../labels';
import type { FrameRec, LabelRec, ProjectRec } from '../model';
import type { MutationContext } from '../mutation';
import { jobsOfTask } from '../relations';
import type { BackgroundRequest, ImportDatasetWork, RequestResult } from '../requests/model';
import type { AnnotationState } from '../state';
import { attachTaskData, createTask, keepUploadFrames } from '../tasks';
import { maskConversionRefused } from './annotations-import';
import { type DatasetFound, type DatasetSubset, datasetLayout } from './dataset-layout';
import { importerFor } from './formats/index';
import {
  type AnnotationImporter,
  ImportError,
  type ImportedAnnotations,
  type ImportFrame,
} from './formats/types';
import { openZip, ZipReadError, type ZipReader } from './zip-read';

/** A refusal already in the request's `message` form (the annotation import's mask refusal). */
class MaskRefusal extends Error {
  constructor(readonly failed: string) {
    super(failed);
  }
}

/** `CvatImportError`, as the failed request names it. */
const cvatImportError = (message: string) =>
  new ImportError('cvat.apps.dataset_manager.bindings.CvatImportError', message);

/** One subset read and checked: its task's frames and the annotations the importer gave. */
interface SubsetPlan {
  name: string;
  frames: FrameRec[];
  annotations: ImportedAnnotations;
}

/** Placeholder label ids (below zero) for the labels a label-less project will be given, by name. */
function plannedLabels(project: ProjectRec, names: readonly string[]): LabelRec[] {
  return names.map((name, i) => ({
    id: -(i + 1),
    name,
    color: '',
    type: 'any',
    project_id: project.id,
    task_id: null,
    parent_id: null,
    svg: null,
    attributes: [],
  }));
}

/**
 * `load_dataset_data`'s labels: a project with none takes the dataset's; else a dataset label the
 * project lacks is `CvatImportError` (`background` excepted: Datumaro remaps it away).
 */
function settleLabels(state: AnnotationState, project: ProjectRec, names: readonly string[]) {
  const existing = labelsOfOwner(state, { project_id: project.id, task_id: null });
  if (existing.length === 0) return { labels: plannedLabels(project, names), create: [...names] };
  const known = new Set(existing.map((l) => l.name));
  for (const name of names) {
    if (!known.has(name) && name !== 'background') {
      throw cvatImportError(`Target project does not have label with name "${name}"`);
    }
  }
  return { labels: existing, create: [] as string[] };
}

/** The subset's part of the archive, as the importer reads one task's dataset: its members and the shared ones. */
function subsetFile(zip: ZipReader, subset: DatasetSubset, found: DatasetFound, at: number): Uint8Array {
  function* entries(): Generator<ZipEntry> {
    for (const name of found.shared) {
      const bytes = zip.read(name);
      yield { name, data: found.narrow ? found.narrow(name, subset.name, bytes) : bytes };
    }
    for (const name of subset.members) yield { name, data: zip.read(name) };
  }
  return zipArchive(entries(), at);
}

/** `add_task`'s data: the subset's images in lexicographical order, each one's size from its header. */
function subsetFrames(zip: ZipReader, subset: DatasetSubset): FrameRec[] {
  return subset.images.map((img) => {
    const size = imageSize(zip.read(img.member)) ?? { width: FRAME_WIDTH, height: FRAME_HEIGHT };
    return { name: img.name, width: size.width, height: size.height };
  });
}

/** Read and check everything; throws the refusal CVAT's worker would end in. */
function plan(
  state: AnnotationState,
  project: ProjectRec,
  work: ImportDatasetWork,
  importer: AnnotationImporter,
  at: number,
) {
  const bytes = Buffer.from(work.file, 'base64');
  const zip = openZip(bytes);
  const found = datasetLayout(work.format, zip);
  if (found === undefined || found.subsets.length === 0) {
    // No dataset of the format: the importer's detection names what is missing.
    importer.read({ name: work.fileName, bytes }, { labels: [], frames: [] });
    return { labels: [], create: [], subsets: [] as SubsetPlan[] };
  }
  const { labels, create } = settleLabels(state, project, found.labels);
  const subsets = found.subsets.map((subset): SubsetPlan => {
    const frames = subsetFrames(zip, subset);
    // `_validate_data` of a task with no media.
    if (frames.length === 0) throw new ImportError('ValueError', 'No media data found');
    const importFrames: ImportFrame[] = frames.map((frame, index) => ({ index, frame }));
    const file = { name: work.fileName, bytes: subsetFile(zip, subset, found, at) };
    const annotations = importer.read(file, { labels, frames: importFrames });
    const masks = maskConversionRefused(annotations, work.convMaskToPoly);
    if (masks) throw new MaskRefusal(masks.failed);
    return { name: subset.name, frames, annotations };
  });
  return { labels, create, subsets };
}

/** Placeholder label ids replaced by the ids of the labels made (sublabels and elements too). */
function relabel(data: ImportedAnnotations, ids: ReadonlyMap<number, number>): DataIn {
  const id = (v: number) => ids.get(v) ?? v;
  const shape = (s: ShapeIn): ShapeIn => ({
    ...s,
    label_id: id(s.label_id),
    ...(s.elements ? { elements: s.elements.map(shape) } : {}),
  });
  const track = (t: TrackIn): TrackIn => ({
    ...t,
    label_id: id(t.label_id),
    ...(t.elements ? { elements: t.elements.map(track) } : {}),
  });
  return {
    version: 0,
    tags: data.tags.map((t) => ({ ...t, label_id: id(t.label_id) })),
    shapes: data.shapes.map(shape),
    tracks: data.tracks.map(track),
  };
}

/** `add_task` then the subset's annotations created in the new task's jobs. */
function makeTask(
  ctx: MutationContext,
  project: ProjectRec,
  subset: SubsetPlan,
  labelIds: ReadonlyMap<number, number>,
): AnnotationChange[] {
  const task = createTask(ctx, {
    name: subset.name,
    project_id: project.id,
    owner_id: project.owner_id,
    organization_id: project.organization_id,
    subset: subset.name,
  });
  keepUploadFrames(task, subset.frames);
  attachTaskData(ctx, task, { size: subset.frames.length, image_quality: 70 });
  const jobs = jobsOfTask(ctx.state, task.id).sort((a, b) => a.id - b.id);
  const { parts } = splitByJob(jobs, relabel(subset.annotations, labelIds));
  const checked = checkWrite(ctx.state, labelsOfTask(ctx.state, task), parts, 'create');
  if (!checked.ok)
    throw new ImportError('rest_framework.exceptions.ValidationError', JSON.stringify(checked.error));
  return parts.flatMap((p) => applyWrite(ctx, p, 'create').changes);
}

/**
 * The `import:dataset` worker: the archive imported into the project as new tasks. Finished with no
 * result (`result_id` and `result_url` null); a refusal fails it with `"<class>: <message>\n"`.
 */
export function importDataset(
  state: AnnotationState,
  r: BackgroundRequest,
  work: ImportDatasetWork,
  at: number,
  dispatch: (changes: readonly ResourceChange[]) => void,
): RequestResult | { failed: string } {
  const project = state.projects.get(work.projectId);
  if (project === undefined) {
    return {
      failed: 'cvat.apps.engine.models.Project.DoesNotExist: Project matching query does not exist.\n',
    };
  }
  const importer = importerFor(work.format);
  if (importer === undefined) return { failed: `ValueError: Unknown input format '${work.format}'\n` };
  let planned: ReturnType<typeof plan>;
  try {
    planned = plan(state, project, work, importer, at);
  } catch (err) {
    if (err instanceof ImportError || err instanceof ZipReadError) {
      return { failed: `${err.exceptionClass}: ${err.message}\n` };
    }
    if (err instanceof MaskRefusal) return { failed: err.failed };
    throw err;
  }
  const actor: Actor = { kind: 'worker', ...r.owner, requestId: r.httpRequestId };
  const changes: ResourceChange[] = [];
  const ctx: MutationContext = { state, now: at, actor, changes };
  const annotationChanges: AnnotationChange[] = [];
  try {
    const labelIds = new Map<number, number>();
    if (planned.create.length > 0) {
      const owner = { project_id: project.id, task_id: null };
      createLabels(
        ctx,
        owner,
        planned.create.map((name) => ({ name, type: 'any', attributes: [], sublabels: [] })),
      );
      const made = new Map(labelsOfOwner(state, owner).map((l) => [l.name, l.id]));
      for (const l of planned.labels) labelIds.set(l.id, made.get(l.name) ?? l.id);
    }
    for (const subset of planned.subsets) annotationChanges.push(...makeTask(ctx, project, subset, labelIds));
  } catch (err) {
    if (err instanceof ImportError) return { failed: `${err.exceptionClass}: ${err.message}\n` };
    throw err;
  } finally {
    dispatch(changes);
  }
  recordAnnotationChanges(state, annotationChanges, actor, at);
  return { resultId: null, resultPath: null };
}
