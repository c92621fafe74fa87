/**
 * Backups restored into new tasks and projects, as CVAT 2.73's worker runs `import_task` and
 * `import_project` (`cvat/apps/engine/backup.py`): the archive is read whole and checked first (CVAT's
 * import is one transaction: a refused archive leaves nothing behind), then the project with its labels,
 * each task with its labels, data (the frames under `data/`), jobs (their segments from the manifest's
 * jobs, their statuses) and each job's annotations (labels and attributes named in the archive, mapped to
 * the new ids). The creations are the worker's changes (webhooks and server events as a task created
 * through the API makes them, `sender` the request's owner), and `put_job_data`'s annotation events.
 */
import { readLabels as readLabelInput } from '../../http/label-input';
import { readLabeledData } from '../../http/routes/annotations-body';
import { recordAnnotationChanges } from '../annotations/change-events';
import type { AnnotationChange, DataIn } from '../annotations/model';
import { applyWrite, checkWrite, labelsOfTask } from '../annotations/store';
import type { Actor, ResourceChange } from '../changes';
import { ANNOTATION_FIELDS } from '../exports/backup';
import { FRAME_HEIGHT, FRAME_WIDTH } from '../exports/frames';
import { imageSize } from '../image-header';
import { type LabelOwner, labelsOfOwner } from '../label-read';
import type { LabelInput } from '../labels';
import type { FrameRec } from '../model';
import { type MutationContext, update } from '../mutation';
import { createProject } from '../projects';
import { jobsOfTask } from '../relations';
import type { BackgroundRequest, ImportBackupWork, RequestResult } from '../requests/model';
import type { AnnotationState } from '../state';
import { attachTaskData, createTask, keepUploadFrames, taskStatusFollowsJobs } from '../tasks';
import { openZip, ZipReadError, type ZipReader } from './zip-read';

/**
 * The worker reads the archive's labels and annotations with the edge's readers of a request's
 * (`LabelSerializer`, `LabeledDataSerializer`: CVAT's importer runs the same serializers).
 */
const readers = { labels: readLabelInput, annotations: readLabeledData };

/** The worker's failure: `traceback.format_exception_only` of the exception CVAT's importer raises. */
class Refusal extends Error {
  constructor(
    readonly exceptionClass: string,
    message: string,
  ) {
    super(message);
  }
}

const keyError = (key: string) => new Refusal('KeyError', `'${key}'`);
const validationError = (text: string) =>
  new Refusal('rest_framework.exceptions.ValidationError', `[ErrorDetail(string='${text}', code='invalid')]`);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A member parsed as DRF's `JSONParser` does (its `ParseError` on bad JSON). */
function readJson(zip: ZipReader, name: string): unknown {
  const text = zip.read(name).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Refusal('rest_framework.exceptions.ParseError', `JSON parse error - ${(err as Error).message}`);
  }
}

/** `dict.pop(key)`: the value, or Python's KeyError naming the key. */
function pop(o: Obj, key: string): unknown {
  if (!(key in o)) throw keyError(key);
  const v = o[key];
  delete o[key];
  return v;
}

/** `_read_version`: `version` popped and read as a PEP 440 version. */
function readVersion(manifest: Obj): void {
  const v = pop(manifest, 'version');
  if (typeof v !== 'string' || !/^v?\d+(\.\d+)*$/.test(v.trim())) {
    throw new Refusal('ValueError', `${String(v)} version is not supported`);
  }
}

/** A label name (with its parent's name before a sublabel's) to its id and its attributes' ids. */
type LabelMapping = Map<string, { value: number; attributes: Map<string, number> }>;

/** A mapping from the archive's labels before any is created (placeholder ids: the checks need ids only). */
function plannedMapping(labels: readonly LabelInput[]): LabelMapping {
  const out: LabelMapping = new Map();
  let next = 1;
  const walk = (list: readonly LabelInput[], parent: string) => {
    for (const l of list) {
      const attributes = new Map(l.attributes.map((a) => [a.name ?? '', next++]));
      out.set(parent + (l.name ?? ''), { value: next++, attributes });
      walk(l.sublabels, l.name ?? '');
    }
  };
  walk(labels, '');
  return out;
}

/** The mapping of the labels an owner has now (`_create_labels`' return). */
function createdMapping(state: AnnotationState, owner: LabelOwner): LabelMapping {
  const all = labelsOfOwner(state, owner);
  const byId = new Map(all.map((l) => [l.id, l]));
  return new Map(
    all.map((l) => [
      (l.parent_id === null ? '' : (byId.get(l.parent_id)?.name ?? '')) + l.name,
      { value: l.id, attributes: new Map(l.attributes.map((a) => [a.name, a.id])) },
    ]),
  );
}

/**
 * One job's annotations as `_prepare_annotations` makes them: labels by name (a sublabel after its
 * parent's name) to ids, attributes by name to `spec_id`, other fields dropped (a copy: the archive's
 * JSON is read again for the real ids). A name the mapping lacks is Python's KeyError.
 */
function prepareAnnotations(raw: unknown, mapping: LabelMapping): Obj {
  const data: Obj = isObj(raw) ? structuredClone(raw) : {};
  const entry = (key: string) => {
    const m = mapping.get(key);
    if (!m) throw keyError(key);
    return m;
  };
  // A `label_id` is looked up in a mapping keyed by names: CVAT's KeyError.
  const label = (o: Obj, parent: string): string => {
    if (!('label' in o)) throw new Refusal('KeyError', String(o.label_id ?? "'label'"));
    const key = parent + String(pop(o, 'label'));
    o.label_id = entry(key).value;
    return key;
  };
  const attributes = (o: Obj, key: string) => {
    for (const a of Array.isArray(o.attributes) ? o.attributes : []) {
      if (!isObj(a) || !('name' in a)) continue;
      const name = String(pop(a, 'name'));
      const spec = entry(key).attributes.get(name);
      if (spec === undefined) throw keyError(name);
      a.spec_id = spec;
    }
  };
  const trim = (o: Obj) => {
    for (const k of Object.keys(o)) if (!ANNOTATION_FIELDS.has(k)) delete o[k];
  };
  const shapes = (list: unknown, parent: string) => {
    for (const s of Array.isArray(list) ? list.filter(isObj) : []) {
      const key = label(s, parent);
      attributes(s, key);
      shapes(s.elements, key);
      trim(s);
    }
  };
  const tracks = (list: unknown, parent: string) => {
    for (const t of Array.isArray(list) ? list.filter(isObj) : []) {
      const key = label(t, parent);
      for (const s of Array.isArray(t.shapes) ? t.shapes.filter(isObj) : []) {
        attributes(s, key);
        trim(s);
      }
      tracks(t.elements, key);
      attributes(t, key);
      trim(t);
    }
  };
  for (const tag of Array.isArray(data.tags) ? data.tags.filter(isObj) : []) {
    attributes(tag, label(tag, ''));
    trim(tag);
  }
  shapes(data.shapes, '');
  tracks(data.tracks, '');
  return data;
}

/** One task of the archive, read and checked. */
interface TaskPlan {
  prefix: string;
  name: string;
  bugTracker: string;
  subset: string;
  labels: LabelInput[];
  imageQuality: number | undefined;
  chunkSize: number | undefined;
  segmentSize: number;
  overlap: number;
  jobStatuses: string[];
  annotations: unknown[];
  frames: FrameRec[];
}

const JOB_TYPES = new Set(['annotation', 'ground_truth', 'consensus_replica']);

/** The labels of a manifest as `LabelSerializer` reads them (its 400 as the worker's ValidationError). */
function readLabels(v: unknown): LabelInput[] {
  const labels = readers.labels(Array.isArray(v) ? v : []);
  if (!labels.ok) {
    throw new Refusal('rest_framework.exceptions.ValidationError', JSON.stringify(labels.error));
  }
  return labels.value ?? [];
}

/** A job's annotations as `LabeledDataSerializer` checks them, with `mapping`'s ids. */
function checkedAnnotations(raw: unknown, mapping: LabelMapping): DataIn {
  const read = readers.annotations(prepareAnnotations(raw, mapping));
  if (read.ok) return read.value;
  const error = 'error' in read ? read.error : { intervals: 'not simulated' };
  throw new Refusal('rest_framework.exceptions.ValidationError', JSON.stringify(error));
}

/** `TaskImporter` up to its first write: the manifest, annotations and media of `prefix` (`''`, `task_0/`). */
function planTask(zip: ZipReader, prefix: string, project?: LabelMapping): TaskPlan {
  const manifest = readJson(zip, `${prefix}task.json`);
  const annotations = readJson(zip, `${prefix}annotations.json`);
  if (!isObj(manifest)) throw new Refusal('TypeError', "'list' object is not subscriptable");
  readVersion(manifest);
  const data = pop(manifest, 'data');
  const labels = readLabels(pop(manifest, 'labels'));
  const jobs = pop(manifest, 'jobs');
  const jobList = (Array.isArray(jobs) ? jobs : []).filter(isObj);
  for (const j of jobList) {
    const type = String(j.type ?? 'annotation');
    if (!JOB_TYPES.has(type)) throw validationError(`Unexpected job type ${type}`);
    if (type !== 'annotation') {
      throw new Refusal('NotImplementedError', `${type} jobs are not simulated by annotation-sim`);
    }
  }
  // `_calculate_segment_size`: from the first two annotation jobs.
  const first = jobList[0];
  const second = jobList[1];
  const span = (j: Obj | undefined, k: string) => Number(j?.[k] ?? 0);
  const segmentSize = first ? span(first, 'stop_frame') - span(first, 'start_frame') + 1 : 0;
  const overlap = second ? span(first, 'stop_frame') - span(second, 'start_frame') + 1 : 0;
  const files = zip
    .names()
    .filter((n) => n.startsWith(`${prefix}data/`) && !n.endsWith('/'))
    .sort();
  if (files.length === 0) throw new Refusal('ValueError', 'No media data found');
  const frames = files.map((n) => {
    const size = imageSize(zip.read(n)) ?? { width: FRAME_WIDTH, height: FRAME_HEIGHT };
    return { name: n.slice(`${prefix}data/`.length), width: size.width, height: size.height };
  });
  const annotationList = Array.isArray(annotations) ? annotations : [];
  const mapping = project ?? plannedMapping(labels);
  for (const a of annotationList.slice(0, jobList.length)) checkedAnnotations(a, mapping);
  const d = isObj(data) ? data : {};
  return {
    prefix,
    name: String(manifest.name ?? ''),
    bugTracker: String(manifest.bug_tracker ?? ''),
    subset: String(manifest.subset ?? ''),
    labels,
    imageQuality: typeof d.image_quality === 'number' ? d.image_quality : undefined,
    chunkSize: typeof d.chunk_size === 'number' ? d.chunk_size : undefined,
    segmentSize,
    overlap,
    jobStatuses: jobList.map((j) => String(j.status ?? 'annotation')),
    annotations: annotationList,
    frames,
  };
}

/** A task made from its plan: labels (its own, unless in a project), data, jobs, then annotations. */
function makeTask(
  ctx: MutationContext,
  plan: TaskPlan,
  owner: { ownerId: number; orgId: number | null; projectId: number | null },
): { taskId: number; annotationChanges: AnnotationChange[] } {
  const task = createTask(ctx, {
    name: plan.name,
    project_id: owner.projectId,
    owner_id: owner.ownerId,
    bug_tracker: plan.bugTracker,
    organization_id: owner.orgId,
    overlap: plan.overlap,
    segment_size: plan.segmentSize,
    subset: plan.subset,
    labels: owner.projectId === null ? plan.labels : undefined,
  });
  keepUploadFrames(task, plan.frames);
  attachTaskData(ctx, task, {
    size: plan.frames.length,
    image_quality: plan.imageQuality,
    chunk_size: plan.chunkSize,
  });
  const jobs = jobsOfTask(ctx.state, task.id).sort((a, b) => a.id - b.id);
  jobs.forEach((job, i) => {
    const status = plan.jobStatuses[i];
    if (status !== undefined && status !== job.status) {
      update(ctx, 'job', job, { status: status as typeof job.status });
    }
  });
  taskStatusFollowsJobs(ctx, task.id);
  const mapping = createdMapping(
    ctx.state,
    owner.projectId === null
      ? { project_id: null, task_id: task.id }
      : { project_id: owner.projectId, task_id: null },
  );
  const parts = jobs
    .map((job, i) => ({ job, raw: plan.annotations[i] }))
    .filter((p) => p.raw !== undefined)
    .map((p) => ({ job: p.job, data: checkedAnnotations(p.raw, mapping) }));
  const labels = labelsOfTask(ctx.state, task);
  const checked = checkWrite(ctx.state, labels, parts, 'put');
  if (!checked.ok)
    throw new Refusal('rest_framework.exceptions.ValidationError', JSON.stringify(checked.error));
  const annotationChanges = parts.flatMap((p) => applyWrite(ctx, p, 'put').changes);
  return { taskId: task.id, annotationChanges };
}

/** The `task_<n>/` folders of a project's archive in their numbers' order (`_import_tasks`' `get_tasks`). */
function taskFolders(zip: ZipReader): string[] {
  const found = new Map<number, string>();
  for (const name of zip.names()) {
    const m = /^task_(\d+)\//.exec(name);
    if (m) found.set(Number(m[1]), m[0]);
  }
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}

/**
 * The `import:backup` worker: the archive restored into a new task or project owned by the request's
 * owner in its organization; `result_id` is the new one's id. A refused archive fails the request with
 * the exception CVAT's importer raises, and changes nothing.
 */
export function restoreBackup(
  state: AnnotationState,
  r: BackgroundRequest,
  work: ImportBackupWork,
  at: number,
  dispatch: (changes: readonly ResourceChange[]) => void,
): RequestResult | { failed: string } {
  const actor: Actor = { kind: 'worker', ...r.owner, requestId: r.httpRequestId };
  let project: { name: string; bugTracker: string; labels: LabelInput[] } | undefined;
  let plans: TaskPlan[];
  try {
    const zip = openZip(Buffer.from(work.archive, 'base64'));
    if (work.target === 'project') {
      const manifest = readJson(zip, 'project.json');
      if (!isObj(manifest)) throw new Refusal('TypeError', "'list' object is not subscriptable");
      readVersion(manifest);
      const labels = readLabels(pop(manifest, 'labels'));
      project = { name: String(manifest.name ?? ''), bugTracker: String(manifest.bug_tracker ?? ''), labels };
      const mapping = plannedMapping(labels);
      plans = taskFolders(zip).map((prefix) => planTask(zip, prefix, mapping));
    } else plans = [planTask(zip, '')];
  } catch (err) {
    if (err instanceof Refusal || err instanceof ZipReadError) {
      return { failed: `${err.exceptionClass}: ${err.message}\n` };
    }
    throw err;
  }
  const changes: ResourceChange[] = [];
  const ctx: MutationContext = { state, now: at, actor, changes };
  const annotationChanges: AnnotationChange[] = [];
  let resultId: number;
  try {
    let projectId: number | null = null;
    if (project) {
      const p = createProject(ctx, {
        name: project.name,
        owner_id: r.owner.id,
        bug_tracker: project.bugTracker,
        organization_id: work.orgId,
        labels: project.labels,
      });
      projectId = p.id;
    }
    const taskIds = plans.map((plan) => {
      const made = makeTask(ctx, plan, { ownerId: r.owner.id, orgId: work.orgId, projectId });
      annotationChanges.push(...made.annotationChanges);
      return made.taskId;
    });
    resultId = projectId ?? (taskIds[0] as number);
  } catch (err) {
    if (err instanceof Refusal) return { failed: `${err.exceptionClass}: ${err.message}\n` };
    throw err;
  } finally {
    dispatch(changes);
  }
  recordAnnotationChanges(state, annotationChanges, actor, at);
  return { resultId, resultPath: null };
}
