/**
 * Labelled tasks in no project and their annotations (the `pre-annotator`, `job-collector` and
 * `prediction-upload` pacts): seeded through `/_sim/seed`, annotations saved or imported through the
 * API as the named user.
 */
import { annotationStates, webhookMessageStates } from '@sims/contracts';
import { int, paramsOf, str, strings } from '@sims/pact-verify';
import { actingUser, messageFor } from '../messages';
import {
  call,
  capture,
  nextIdWillBe,
  type StateContext,
  type StateTable,
  seed,
  stateOf,
  tokenOf,
  userByName,
} from '../state-support';
import { seedTask } from './tasks';

const a = annotationStates;
const m = webhookMessageStates;

function ownerNamed(ctx: StateContext, username: string) {
  if (!userByName(ctx, username)) throw new Error(`no user ${username}: a user state must come first`);
  return username;
}

async function seedLabelledTask(
  ctx: StateContext,
  p: Record<string, unknown>,
  data?: { frames: number; jobId: number; firstLabelId: number },
) {
  const taskId = int(p.taskId, 'taskId');
  const labels = strings(p.labels, 'labels');
  nextIdWillBe(ctx, 'tasks', taskId);
  if (data) {
    nextIdWillBe(ctx, 'labels', data.firstLabelId);
    nextIdWillBe(ctx, 'jobs', data.jobId);
  }
  await seed(ctx, {
    tasks: [
      {
        name: str(p.taskName, 'taskName'),
        owner: ownerNamed(ctx, str(p.username, 'username')),
        labels: labels.map((name) => ({ name, type: 'rectangle' })),
        ...(data ? { size: data.frames, segment_size: data.frames } : {}),
      },
    ],
  });
  const s = stateOf(ctx);
  const task = s.tasks.get(taskId);
  if (!task) throw new Error(`seeding did not create task ${taskId}`);
  if (data) {
    if (s.jobs.get(data.jobId)?.task_id !== taskId)
      throw new Error(`seeding did not create job ${data.jobId} of task ${taskId}`);
    labels.forEach((name, i) => {
      const label = s.labels.get(data.firstLabelId + i);
      if (label?.name !== name || label.task_id !== taskId)
        throw new Error(
          `seeding did not give label ${name} of task ${taskId} the id ${data.firstLabelId + i}`,
        );
    });
  } else if (task.size !== 0) throw new Error(`task ${taskId} was seeded with data`);
}

async function labelledTaskWithoutData(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.labelledTaskWithoutData.template, 'taskId', 'taskName', 'username', 'labels');
  await seedLabelledTask(ctx, p);
}

async function labelledTaskWithImages(ctx: StateContext, params: unknown) {
  const p = paramsOf(
    params,
    a.labelledTaskWithImages.template,
    'taskId',
    'taskName',
    'username',
    'labels',
    'firstLabelId',
    'frames',
    'jobId',
  );
  await seedLabelledTask(ctx, p, {
    frames: int(p.frames, 'frames'),
    jobId: int(p.jobId, 'jobId'),
    firstLabelId: int(p.firstLabelId, 'firstLabelId'),
  });
}

/** `[frame, label id, x1, y1, x2, y2]` rows as the shapes of a `PUT …/annotations`. */
function rectangles(value: unknown, source: string): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new Error(`rectangles must be an array, got ${JSON.stringify(value)}`);
  return value.map((row) => {
    if (!Array.isArray(row) || row.length !== 6 || row.some((n) => typeof n !== 'number'))
      throw new Error(`a rectangle is [frame, label id, x1, y1, x2, y2], got ${JSON.stringify(row)}`);
    const [frame, labelId, ...points] = row as number[];
    return { type: 'rectangle', frame, label_id: labelId, points, source };
  });
}

async function saveRectangles(ctx: StateContext, path: string, p: Record<string, unknown>) {
  const user = userByName(ctx, str(p.username, 'username'));
  if (!user) throw new Error(`no user ${String(p.username)}: a user state must come first`);
  const shapes = rectangles(p.rectangles, str(p.source, 'source'));
  await call(ctx, 'PUT', path, { version: 0, tags: [], shapes, tracks: [] }, tokenOf(ctx, user.id));
}

async function taskRectangles(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.taskRectangles.template, 'taskId', 'username', 'source', 'rectangles');
  await saveRectangles(ctx, `/api/tasks/${int(p.taskId, 'taskId')}/annotations`, p);
}

async function jobRectangles(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.jobRectangles.template, 'jobId', 'username', 'source', 'rectangles');
  await saveRectangles(ctx, `/api/jobs/${int(p.jobId, 'jobId')}/annotations`, p);
}

/**
 * The user imports COCO's instances (the JSON text given) as the task's annotations, as a file sent in
 * the multipart field `annotation_file` of `POST /api/tasks/{taskId}/annotations?format=…`, and the
 * import is ended now through the control plane when the world's timing left it running; `GET
 * /api/requests/{rq_id}` then answers it `finished`.
 */
async function annotationsImported(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.annotationsImported.template, 'taskId', 'format', 'username', 'instances');
  const taskId = int(p.taskId, 'taskId');
  const user = userByName(ctx, str(p.username, 'username'));
  if (!user) throw new Error(`no user ${String(p.username)}: a user state must come first`);
  const token = tokenOf(ctx, user.id);
  const form = new FormData();
  const file = new Blob([str(p.instances, 'instances')], { type: 'application/json' });
  form.set('annotation_file', file, 'instances_default.json');
  const query = new URLSearchParams({ format: str(p.format, 'format') });
  const res = await ctx.sim.app.request(`/api/tasks/${taskId}/annotations?${query}`, {
    method: 'POST',
    headers: { Accept: 'application/vnd.cvat+json', Authorization: `Token ${token}` },
    body: form,
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`the import into task ${taskId} answered ${res.status}: ${text}`);
  const path = `/api/requests/${encodeURIComponent((JSON.parse(text) as { rq_id: string }).rq_id)}`;
  let request = await call(ctx, 'GET', path, undefined, token);
  if (request?.status === 'queued' || request?.status === 'started') {
    await call(ctx, 'POST', '/_sim/requests/complete', { rq_id: request.id });
    request = await call(ctx, 'GET', path, undefined, token);
  }
  if (request?.status !== 'finished')
    throw new Error(`the import into task ${taskId} ended ${request?.status}: ${JSON.stringify(request)}`);
}

/**
 * The user saves one rectangle as the annotations of the (seeded) job: the write touches the job, whose
 * `update:job` (CVAT's `touch()`, `before_update` only `updated_date`) is the message. The project gets
 * a label for it first.
 */
async function jobAnnotationsSaved(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, m.jobAnnotationsSaved.template, 'username', 'jobId', 'taskId', 'projectId');
  const projectId = int(p.projectId, 'projectId');
  const username = str(p.username, 'username');
  const { token } = await actingUser(ctx, username, projectId);
  const jobId = int(p.jobId, 'jobId');
  const project = await call(
    ctx,
    'PATCH',
    `/api/projects/${projectId}`,
    { labels: [{ name: 'sign', type: 'rectangle' }] },
    token,
  );
  const label = await call(ctx, 'GET', `/api/labels?project_id=${projectId}`, undefined, token);
  const labelId = (label?.results as { id: number }[] | undefined)?.[0]?.id;
  if (project === undefined || labelId === undefined) throw new Error(`project ${projectId} got no label`);
  await seedTask(ctx, username, projectId, int(p.taskId, 'taskId'), `Task ${p.taskId}`, jobId);
  const shapes = [{ type: 'rectangle', frame: 0, label_id: labelId, points: [1.5, 2.5, 30.5, 40.5] }];
  // A second later than the seeding, as any save is: a touch that changes no date sends nothing.
  ctx.sim.world().clock.advance(1_000);
  const change = await capture(ctx, 'update:job', () =>
    call(ctx, 'PUT', `/api/jobs/${jobId}/annotations`, { version: 0, tags: [], shapes, tracks: [] }, token),
  );
  await messageFor(ctx, change, projectId);
}

export const annotationDataStates: StateTable = {
  [m.jobAnnotationsSaved.template]: jobAnnotationsSaved,
  [a.labelledTaskWithoutData.template]: labelledTaskWithoutData,
  [a.labelledTaskWithImages.template]: labelledTaskWithImages,
  [a.taskRectangles.template]: taskRectangles,
  [a.jobRectangles.template]: jobRectangles,
  [a.annotationsImported.template]: annotationsImported,
};
