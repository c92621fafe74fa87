/**
 * What clients read around annotations: `data/meta` of tasks and jobs, their frames
 * (`GET …/data?type=frame&number=N&quality=…`), and the previews of tasks, jobs and projects, as
 * CVAT 2.73's TaskViewSet, JobViewSet and ProjectViewSet answer them.
 */
import { frameOf, jobDataMeta, taskDataMeta } from '../../domain/data-meta';
import { greyJpeg, greyPng, previewSize } from '../../domain/frames-image';
import type { JobRec, TaskRec } from '../../domain/model';
import { tasksOfProject } from '../../domain/relations';
import type { ApiRequest } from '../api';
import { cvatJson, djangoHtml, djangoServerError, emptyBody } from '../respond';
import { byId, type RouteRow, refused } from '../route-table';
import { loadRecord } from './resource-support';

/** An image answer (`HttpResponse(data, content_type=mime)`). */
const image = (r: ApiRequest, bytes: Uint8Array<ArrayBuffer>, mime: string) =>
  new Response(bytes, {
    status: 200,
    headers: { 'Content-Type': mime, 'X-Request-Id': r.sim.requestId },
  });

/**
 * A form of an operation the simulator does not carry out (chunks): the 501 every unsimulated operation
 * gets (`unsimulated.ts`, docs/decisions/0018), naming the operation and the form, nothing changed.
 */
const notSimulated = (r: ApiRequest, operationId: string, form: string) =>
  cvatJson(
    r.c,
    {
      detail:
        `${operationId} (${form}) is not simulated by annotation-sim, so the request is refused rather than ` +
        `answered wrongly. See annotation-sim's FIDELITY.md.`,
    },
    501,
    { 'X-Sim-Reason': `not-simulated: ${operationId}` },
  );

const taskOf = (r: ApiRequest) => loadRecord(r, 'task', r.state.tasks, 'Task', false);
const jobOf = (r: ApiRequest) => loadRecord(r, 'job', r.state.jobs, 'Job', false);

function handleTaskDataMeta(r: ApiRequest): Response {
  const t = taskOf(r);
  if (!t.ok) return refused(r, t);
  // CVAT 2.73's view checks the task's Data and its media type, which the data's request sets with the
  // mode: a task without data, or whose upload has not made its data yet, is a ValidationError.
  if (t.value.data_id === null || t.value.mode === '') {
    return cvatJson(r.c, ['Data is not uploaded for the task yet'], 400);
  }
  return cvatJson(r.c, taskDataMeta(r.state, t.value));
}

function handleJobDataMeta(r: ApiRequest): Response {
  const j = jobOf(r);
  if (!j.ok) return refused(r, j);
  const t = r.state.tasks.get(j.value.task_id) as TaskRec;
  return cvatJson(r.c, jobDataMeta(t, j.value));
}

/** The chunk form of each data operation, as its 501 names it. */
const CHUNK_FORMS: Record<string, string> = {
  tasks_retrieve_data: 'GET /api/tasks/{id}/data/?type=chunk',
  jobs_retrieve_data: 'GET /api/jobs/{id}/data?type=chunk',
};

/** `type`, `number`, `quality` as `_DataGetter.__init__` checks them (a ValidationError: DRF's list). */
function dataQuery(r: ApiRequest): { type: string; number: string | undefined; quality: string } | Response {
  const type = r.c.req.query('type');
  const number = r.c.req.query('number');
  const quality = r.c.req.query('quality') ?? 'compressed';
  if (type === undefined || !['chunk', 'frame', 'preview', 'context_image'].includes(type)) {
    return cvatJson(r.c, ['Data type not specified or has wrong value'], 400);
  }
  if (type === 'chunk' || type === 'frame' || type === 'preview') {
    if (number === undefined && type !== 'preview') return cvatJson(r.c, ['Number is not specified'], 400);
    if (!['compressed', 'original'].includes(quality)) return cvatJson(r.c, ['Wrong quality value'], 400);
  }
  return { type, number, quality };
}

/** Python's `int()` of a query value: optional sign, digits, surrounding blanks; else a ValueError. */
const pythonInt = (text: string): number | undefined =>
  /^\s*[+-]?\d+\s*$/.test(text) ? Number.parseInt(text, 10) : undefined;

/**
 * A frame of the data (`first`…`last`, task frame numbers), its preview, or its context images (the
 * simulator keeps none: CVAT's empty 404). Chunks are refused.
 */
function answerData(r: ApiRequest, t: TaskRec, first: number, last: number, operationId: string): Response {
  const query = dataQuery(r);
  if (query instanceof Response) return query;
  if (query.type === 'chunk') return notSimulated(r, operationId, `${CHUNK_FORMS[operationId]}`);
  if (query.type === 'preview') return preview(r, t, first, last);
  const n = pythonInt(query.number ?? '');
  if (n === undefined) {
    return djangoServerError(
      r.c,
      `ValueError: invalid literal for int() with base 10: '${query.number ?? ''}'`,
    );
  }
  // Caught by the getter: the message alone, as a JSON string.
  if (n < first || n > last || t.size === 0) {
    return cvatJson(r.c, `Incorrect requested frame number: ${n}`, 400);
  }
  if (query.type === 'context_image') return emptyBody(r.c, 404);
  const frame = frameOf(t, n);
  // The original is the file itself (its type guessed from its name); compressed frames are JPEG.
  if (query.quality === 'original' && /\.png$/i.test(frame.name)) {
    return image(r, greyPng(frame.width, frame.height), 'image/png');
  }
  return image(r, greyJpeg(frame.width, frame.height), 'image/jpeg');
}

/** The preview of data starting at frame `first`: its frame, scaled as CVAT's preview is. */
function preview(r: ApiRequest, t: TaskRec, first: number, last: number): Response {
  // Data whose upload has not made its frames yet: the frame provider's check, caught by the getter.
  if (first > last) return cvatJson(r.c, `Incorrect requested frame number: ${first}`, 400);
  const size = previewSize(frameOf(t, first));
  return image(r, greyJpeg(size.width, size.height), 'image/jpeg');
}

function handleTaskData(r: ApiRequest): Response {
  const t = taskOf(r);
  if (!t.ok) return refused(r, t);
  // The getter checks its parameters before it reads the task's data.
  const query = dataQuery(r);
  if (query instanceof Response) return query;
  if (t.value.data_id === null) {
    return djangoServerError(r.c, "AttributeError: 'NoneType' object has no attribute 'size'");
  }
  return answerData(r, t.value, 0, t.value.size - 1, 'tasks_retrieve_data');
}

function handleJobData(r: ApiRequest): Response {
  const j = jobOf(r);
  if (!j.ok) return refused(r, j);
  const t = r.state.tasks.get(j.value.task_id) as TaskRec;
  return answerData(r, t, j.value.start_frame, j.value.stop_frame, 'jobs_retrieve_data');
}

/**
 * A task's preview: its first frame. A task without data is the view's own 404; a task whose upload
 * has not made its frames is the frame provider's 400, as the getter answers it.
 */
function taskPreview(r: ApiRequest, t: TaskRec): Response {
  if (t.data_id === null) return djangoHtml(r.c, 404, 'Task image preview not found');
  return preview(r, t, 0, t.size - 1);
}

function handleTaskPreview(r: ApiRequest): Response {
  const t = taskOf(r);
  return t.ok ? taskPreview(r, t.value) : refused(r, t);
}

function handleJobPreview(r: ApiRequest): Response {
  const j = jobOf(r);
  if (!j.ok) return refused(r, j);
  const job: JobRec = j.value;
  return preview(r, r.state.tasks.get(job.task_id) as TaskRec, job.start_frame, job.stop_frame);
}

/** A project's preview: its newest task's (`tasks.order_by('-id').first()`). */
function handleProjectPreview(r: ApiRequest): Response {
  const p = loadRecord(r, 'project', r.state.projects, 'Project', false);
  if (!p.ok) return refused(r, p);
  const newest = tasksOfProject(r.state, p.value.id).reduce<TaskRec | undefined>(
    (a, t) => (a === undefined || t.id > a.id ? t : a),
    undefined,
  );
  if (newest === undefined) return djangoHtml(r.c, 404, 'Project image preview not found');
  // The getter reads the newest task's data without the task view's check: none is an AttributeError.
  if (newest.data_id === null) {
    return djangoServerError(r.c, "AttributeError: 'NoneType' object has no attribute 'size'");
  }
  return preview(r, newest, 0, newest.size - 1);
}

const TASK = byId('tasks');
const JOB = byId('jobs');

/** The media rows of tasks, jobs and projects. */
export const taskMediaRoutes: readonly RouteRow[] = [
  {
    method: 'get',
    path: '/api/tasks/:id/data/meta',
    operation: 'tasks.retrieve_data_meta',
    resource: TASK,
    handle: handleTaskDataMeta,
  },
  {
    method: 'get',
    path: '/api/jobs/:id/data/meta',
    operation: 'jobs.retrieve_data_meta',
    resource: JOB,
    handle: handleJobDataMeta,
  },
  {
    method: 'get',
    path: ['/api/tasks/:id/data/', '/api/tasks/:id/data'],
    operation: 'tasks.retrieve_data',
    resource: TASK,
    handle: handleTaskData,
  },
  {
    method: 'get',
    path: '/api/jobs/:id/data',
    operation: 'jobs.retrieve_data',
    resource: JOB,
    handle: handleJobData,
  },
  {
    method: 'get',
    path: '/api/tasks/:id/preview',
    operation: 'tasks.retrieve_preview',
    resource: TASK,
    handle: handleTaskPreview,
  },
  {
    method: 'get',
    path: '/api/jobs/:id/preview',
    operation: 'jobs.retrieve_preview',
    resource: JOB,
    handle: handleJobPreview,
  },
  {
    method: 'get',
    path: '/api/projects/:id/preview',
    operation: 'projects.retrieve_preview',
    resource: byId('projects'),
    handle: handleProjectPreview,
  },
];
