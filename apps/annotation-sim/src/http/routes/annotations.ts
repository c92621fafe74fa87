import { recordAnnotationChanges } from '../../domain/annotations/change-events';
import type { AnnotationChange, DataIn, LabeledData } from '../../domain/annotations/model';
import { attributeDefaults, readRecord } from '../../domain/annotations/read';
import { labeledDataJson } from '../../domain/annotations/serialize';
import {
  applyWrite,
  checkWrite,
  clearJob,
  type JobWriteAction,
  type JobWriteOutcome,
  jobRecord,
  labelsOfTask,
} from '../../domain/annotations/store';
import { mergeJobs, splitByJob } from '../../domain/annotations/task-split';
import type { JobRec, TaskRec } from '../../domain/model';
import { jobsOfTask } from '../../domain/relations';
import type { ApiRequest } from '../api';
import { cvatJson, cvatJsonBytes, djangoHtml, noContent } from '../respond';
import { byId, type RouteRow, refused } from '../route-table';
import { annotationImportChunkRoutes, importAnnotationsView } from './annotation-import';
import { readLabeledData } from './annotations-body';
import { goneExportApi, goneProcessStatus } from './import-upload';
import { loadRecord } from './resource-support';

/**
 * `/api/jobs/{id}/annotations` and `/api/tasks/{id}/annotations`: CVAT's `annotations` actions of
 * JobViewSet and TaskViewSet (engine/views.py) over dataset_manager's `JobAnnotation` and
 * `TaskAnnotation` (domain/annotations/). Reading needs the job's or task's `view`, writing its
 * `update` (the access rules of resource-rules.ts). POST imports a file (routes/annotation-import.ts);
 * the old file flows (`GET ?format=`, `PUT ?format=`) answer CVAT 2.73's 410 pages.
 */

/** The 501 of a part of an operation the simulator does not simulate, naming it. */
function notSimulated(r: ApiRequest, what: string): Response {
  const detail = `${what} is not simulated by annotation-sim, so the request is refused rather than answered wrongly. See annotation-sim's FIDELITY.md.`;
  return cvatJson(r.c, { detail }, 501, { 'X-Sim-Reason': `not-simulated: ${what}` });
}

/** A read with a parameter of the old export flow (`format`, `filename`, `action`, `location`, `cloud_storage_id`): its 410. */
const exportQuery = (r: ApiRequest) =>
  ['format', 'filename', 'action', 'location', 'cloud_storage_id'].some((k) => r.query(k) !== undefined);

/** Where the changes of a write go: the server events CVAT's `handle_annotations_change` logs. */
function annotationsChanged(r: ApiRequest, changes: readonly AnnotationChange[]): void {
  recordAnnotationChanges(r.state, changes, r.actor(), r.now);
}

/** Annotations as the views answer them, made as bytes in pieces (domain/annotations/serialize.ts). */
const answer = (r: ApiRequest, data: LabeledData): Response => cvatJsonBytes(r.c, labeledDataJson(data));

/** The body as `LabeledDataSerializer` validates it, or the answer to a bad one. */
function bodyOf(r: ApiRequest): { data: DataIn } | { answer: Response } {
  const raw = r.parsedBody();
  if (!raw.ok) return { answer: refused(r, raw) };
  const read = readLabeledData(raw.value);
  if (read.ok) return { data: read.value };
  if ('intervals' in read) return { answer: notSimulated(r, 'annotation intervals') };
  return { answer: refused(r, read) };
}

/** PATCH's `action` (checked before the body, as CVAT's view does), or its 400. */
function patchAction(r: ApiRequest): JobWriteAction | Response {
  const action = r.query('action');
  if (action === 'create' || action === 'update' || action === 'delete') return action;
  return refused(r, {
    error: { code: 'INVALID_LIST', messages: ["Please specify a correct 'action' for the request"] },
  });
}

/** The write of a PUT or PATCH: its action and its checked body, or the answer that ends the request. */
function writeOf(r: ApiRequest): { action: JobWriteAction; data: DataIn } | Response {
  let action: JobWriteAction = 'put';
  if (r.c.req.method === 'PATCH') {
    const a = patchAction(r);
    if (a instanceof Response) return a;
    action = a;
  } else if (r.query('format') !== undefined || r.query('rq_id') !== undefined) {
    return goneProcessStatus(r, 'import');
  }
  const body = bodyOf(r);
  return 'answer' in body ? body.answer : { action, data: body.data };
}

function readJob(r: ApiRequest, job: JobRec, task: TaskRec): LabeledData {
  return readRecord(jobRecord(r.state, job.id), attributeDefaults(labelsOfTask(r.state, task).values()));
}

function handleJobAnnotations(r: ApiRequest): Response {
  const method = r.c.req.method;
  const job = loadRecord(r, 'job', r.state.jobs, 'Job', method !== 'GET' && method !== 'HEAD');
  if (!job.ok) return refused(r, job);
  const task = r.state.tasks.get(job.value.task_id) as TaskRec;
  if (method === 'GET' || method === 'HEAD') {
    if (exportQuery(r)) return goneExportApi(r, '/api/jobs/id/dataset/export?save_images=False');
    return answer(r, readJob(r, job.value, task));
  }
  if (method === 'DELETE') {
    const outcome = clearJob(r.mutation(), job.value);
    annotationsChanged(r, outcome.changes);
    return noContent(r.c);
  }
  const write = writeOf(r);
  if (write instanceof Response) return write;
  const part = { job: job.value, data: write.data };
  const checked = checkWrite(r.state, labelsOfTask(r.state, task), [part], write.action);
  if (!checked.ok) return refused(r, checked);
  const outcome = applyWrite(r.mutation(), part, write.action);
  annotationsChanged(r, outcome.changes);
  return answer(r, outcome.data);
}

/** The task's annotation jobs in id order (CVAT's `TaskAnnotation.db_jobs`). */
const annotationJobs = (r: ApiRequest, task: TaskRec): JobRec[] =>
  jobsOfTask(r.state, task.id)
    .filter((j) => j.type === 'annotation')
    .sort((a, b) => a.id - b.id);

function handleTaskAnnotations(r: ApiRequest): Response {
  const method = r.c.req.method;
  const task = loadRecord(r, 'task', r.state.tasks, 'Task', method !== 'GET' && method !== 'HEAD');
  if (!task.ok) return refused(r, task);
  const t = task.value;
  const jobs = annotationJobs(r, t);
  const overlap = t.overlap ?? 0;
  if (method === 'GET' || method === 'HEAD') {
    if (t.data_id === null)
      return djangoHtml(r.c, 400, 'Exporting annotations from a task without data is not allowed');
    if (exportQuery(r)) return goneExportApi(r, '/api/tasks/id/dataset/export?save_images=False');
    return answer(
      r,
      mergeJobs(
        jobs.map((j) => ({ job: j, data: readJob(r, j, t) })),
        overlap,
      ),
    );
  }
  // `TaskAnnotation` reads `task.data.validation_mode` first: without data an AttributeError, which
  // only PATCH catches (400 with its text); PUT and DELETE end in Django's 500.
  const noData = "'NoneType' object has no attribute 'validation_mode'";
  if (method === 'DELETE') {
    if (t.data_id === null)
      return refused(r, { error: { code: 'SERVER_ERROR', reason: `AttributeError: ${noData}` } });
    const ctx = r.mutation();
    for (const j of jobs) annotationsChanged(r, clearJob(ctx, j).changes);
    return noContent(r.c);
  }
  const write = writeOf(r);
  if (write instanceof Response) return write;
  if (t.data_id === null)
    return refused(r, {
      error:
        write.action === 'put'
          ? { code: 'SERVER_ERROR', reason: `AttributeError: ${noData}` }
          : { code: 'INVALID_STRING', message: noData },
    });
  const split = splitByJob(jobs, write.data);
  if (split.crossing) return notSimulated(r, "splitting a track across the task's jobs");
  const checked = checkWrite(r.state, labelsOfTask(r.state, t), split.parts, write.action);
  if (!checked.ok) return refused(r, checked);
  const ctx = r.mutation();
  const outcomes: JobWriteOutcome[] = split.parts.map((p) => applyWrite(ctx, p, write.action));
  annotationsChanged(
    r,
    outcomes.flatMap((o) => o.changes),
  );
  return answer(r, mergeJobs(outcomes, overlap));
}

const JOB = byId('jobs');
const TASK = byId('tasks');
const JOB_PATH = '/api/jobs/:id/annotations';
const TASK_PATH = '/api/tasks/:id/annotations';

/** The rows of both: CVAT routes `annotations/?$`, so both forms of the path are the one view. */
const rows = (
  path: string,
  kind: 'jobs' | 'tasks',
  resource: typeof JOB,
  handle: (r: ApiRequest) => Response,
) =>
  (
    [
      ['get', 'retrieve'],
      ['put', 'update'],
      ['patch', 'partial_update'],
      ['delete', 'destroy'],
    ] as const
  ).map(
    ([method, verb]): RouteRow => ({
      method,
      path: [path, `${path}/`],
      operation: `${kind}.${verb}_annotations`,
      resource,
      handle,
    }),
  );

/** `POST …/annotations`: an import from a file (routes/annotation-import.ts). */
const importRow = (path: string, kind: 'jobs' | 'tasks', resource: typeof JOB): RouteRow => ({
  method: 'post',
  path: [path, `${path}/`],
  operation: `${kind}.create_annotations`,
  resource,
  handle: importAnnotationsView(kind === 'jobs' ? 'job' : 'task'),
});

/** The annotation rows of jobs and tasks, the imports' TUS chunks with them. */
export const annotationRoutes: readonly RouteRow[] = [
  ...rows(JOB_PATH, 'jobs', JOB, handleJobAnnotations),
  importRow(JOB_PATH, 'jobs', JOB),
  ...rows(TASK_PATH, 'tasks', TASK, handleTaskAnnotations),
  importRow(TASK_PATH, 'tasks', TASK),
  ...annotationImportChunkRoutes,
];
