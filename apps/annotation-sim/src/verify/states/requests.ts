/**
 * Background requests: a task's data sent through the API (`POST /api/tasks/{id}/data/`) and the
 * request that creates it, run by the world's worker until it is finished, a task's dataset exported,
 * and the message state whose delivery is that request's `completed:request[create:task]`.
 */
import { annotationStates, webhookMessageStates } from '@sims/contracts';
import { int, paramsOf, str } from '@sims/pact-verify';
import { actingUser, produce } from '../messages';
import { call, type StateContext, type StateTable, stateOf, tokenOf, userByName } from '../state-support';
import { seedTask } from './tasks';

const a = annotationStates;
const m = webhookMessageStates;

/** What the handlers send as a task's data: files on the share, counted (not read) by the simulator. */
const TASK_DATA = { image_quality: 70, server_files: ['frame_000.jpg', 'frame_001.jpg', 'frame_002.jpg'] };

/** CVAT's id of the request that creates the data of task `taskId`. */
const taskCreationRqId = (taskId: number) => `action=create&target=task&target_id=${taskId}`;

/** `action=create&target=task&target_id=<id>` → the task id. */
function taskOfRqId(rqId: string): number {
  const taskId = Number(new URLSearchParams(rqId).get('target_id'));
  if (!Number.isSafeInteger(taskId) || rqId !== taskCreationRqId(taskId)) {
    throw new Error(`rq_id "${rqId}" is not action=create&target=task&target_id=<task id>`);
  }
  return taskId;
}

/**
 * Sends the data of task `taskId` as `token` and brings its creation request to `finished`: at once with
 * the world's default timing (task creation takes no time), else through the control plane's
 * `/_sim/requests/complete`, as if the worker had done it now. Returns the request as
 * `GET /api/requests/{rq_id}` answers it then.
 */
async function createTaskDataFinished(ctx: StateContext, token: string, taskId: number) {
  const sent = await call(ctx, 'POST', `/api/tasks/${taskId}/data/`, TASK_DATA, token);
  const rqId = taskCreationRqId(taskId);
  if (sent?.rq_id !== rqId) throw new Error(`the data of task ${taskId} was sent as request ${sent?.rq_id}`);
  const path = `/api/requests/${encodeURIComponent(rqId)}`;
  let request = await call(ctx, 'GET', path, undefined, token);
  if (request?.status === 'queued' || request?.status === 'started') {
    await call(ctx, 'POST', '/_sim/requests/complete', { rq_id: rqId });
    request = await call(ctx, 'GET', path, undefined, token);
  }
  if (request?.status !== 'finished') {
    throw new Error(`the creation of task ${taskId} ended ${request?.status}: ${JSON.stringify(request)}`);
  }
  return request;
}

// ---- the REST API (annotation-sim)

/** The user sends the data of the task the rq_id names (a task state first); its creation has finished. */
async function taskCreationFinished(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.taskCreationFinished.template, 'rqId', 'username');
  const taskId = taskOfRqId(str(p.rqId, 'rqId'));
  if (!stateOf(ctx).tasks.has(taskId)) throw new Error(`no task ${taskId}: a task state must come first`);
  const username = str(p.username, 'username');
  const user = userByName(ctx, username);
  if (!user) throw new Error(`no user ${username}: a user state must come first`);
  await createTaskDataFinished(ctx, tokenOf(ctx, user.id), taskId);
}

/**
 * The user exports the (already created) task as a dataset in the format, without images, and the
 * request is ended now through the control plane, as if the worker had written the archive; `GET
 * /api/requests/{rq_id}` then answers it `finished` with its `result_url`.
 */
async function datasetExportFinished(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.datasetExportFinished.template, 'taskId', 'format', 'username');
  const taskId = int(p.taskId, 'taskId');
  const username = str(p.username, 'username');
  const user = userByName(ctx, username);
  if (!user) throw new Error(`no user ${username}: a user state must come first`);
  const token = tokenOf(ctx, user.id);
  const query = new URLSearchParams({ format: str(p.format, 'format'), save_images: 'false' });
  const asked = await call(ctx, 'POST', `/api/tasks/${taskId}/dataset/export?${query}`, undefined, token);
  const rqId = asked?.rq_id;
  if (typeof rqId !== 'string') throw new Error(`the export of task ${taskId} gave no rq_id`);
  await call(ctx, 'POST', `/_sim/requests/${encodeURIComponent(rqId)}/complete`, {});
  const request = await call(ctx, 'GET', `/api/requests/${encodeURIComponent(rqId)}`, undefined, token);
  if (request?.status !== 'finished')
    throw new Error(`the export of task ${taskId} ended ${request?.status}: ${JSON.stringify(request)}`);
}

// ---- messages (annotation-sim-webhooks)

/**
 * The acting user creates task `taskId` (without data) in the project and sends its data; the message is
 * the `completed:request[create:task]` payload the project's webhook gets when the request finishes:
 * `{event, request, webhook_id}`, `request` being what `GET /api/requests/{rq_id}` answers then.
 */
async function taskDataCreated(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, m.taskDataCreated.template, 'username', 'taskId', 'projectId');
  const projectId = int(p.projectId, 'projectId');
  const username = str(p.username, 'username');
  const { token } = await actingUser(ctx, username, projectId);
  const taskId = int(p.taskId, 'taskId');
  await seedTask(ctx, username, projectId, taskId, `Task ${taskId}`);
  const request = await createTaskDataFinished(ctx, token, taskId);
  const event = 'completed:request[create:task]';
  const hook = [...stateOf(ctx).webhooks.values()].find(
    (w) => w.type === 'project' && w.project_id === projectId && w.events.includes(event),
  );
  if (!hook) throw new Error(`no webhook of project ${projectId} subscribed to ${event}`);
  await produce(ctx, hook.id, { event, request, webhook_id: hook.id });
}

export const requestStates: StateTable = {
  [a.taskCreationFinished.template]: taskCreationFinished,
  [a.datasetExportFinished.template]: datasetExportFinished,
  [m.taskDataCreated.template]: taskDataCreated,
};
