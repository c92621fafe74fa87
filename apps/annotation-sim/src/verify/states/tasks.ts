/**
 * Tasks and jobs: seeding them (a task without data, for the REST API's task creation), the actions on
 * them through the API (each returning the one change it emitted), and the message states whose delivery
 * is such an action's.
 */
import { annotationStates, webhookMessageStates } from '@sims/contracts';
import { int, paramsOf, str } from '@sims/pact-verify';
import { actingUser, messageFor } from '../messages';
import {
  call,
  capture,
  nextIdWillBe,
  projectById,
  type StateContext,
  type StateTable,
  seed,
  stateOf,
} from '../state-support';

const a = annotationStates;
const m = webhookMessageStates;

/** Seeds task `taskId` in project `projectId`, with the single job `withJobId` when given. */
export async function seedTask(
  ctx: StateContext,
  owner: string,
  projectId: number,
  taskId: number,
  name: string,
  withJobId?: number,
) {
  const project = projectById(ctx, projectId);
  if (!project) throw new Error(`no project ${projectId}`);
  nextIdWillBe(ctx, 'tasks', taskId);
  if (withJobId !== undefined) nextIdWillBe(ctx, 'jobs', withJobId);
  await seed(ctx, {
    tasks: [
      {
        name,
        owner,
        project: project.name,
        ...(withJobId !== undefined ? { size: 10, segment_size: 10 } : {}),
      },
    ],
  });
  const { tasks, jobs } = stateOf(ctx);
  if (!tasks.get(taskId)) throw new Error(`seeding did not create task ${taskId}`);
  if (withJobId !== undefined && jobs.get(withJobId)?.task_id !== taskId)
    throw new Error(`seeding did not create job ${withJobId} of task ${taskId}`);
}

// ---- actions through the API, shared by past deliveries (HTTP pact) and messages

export async function createTask(
  ctx: StateContext,
  token: string,
  projectId: number,
  taskId: number,
  name: string,
) {
  nextIdWillBe(ctx, 'tasks', taskId);
  return capture(ctx, 'create:task', () =>
    call(ctx, 'POST', '/api/tasks', { name, project_id: projectId }, token),
  );
}

export async function renameTask(ctx: StateContext, token: string, taskId: number, name: string) {
  return capture(ctx, 'update:task', () => call(ctx, 'PATCH', `/api/tasks/${taskId}`, { name }, token));
}

export async function deleteTask(ctx: StateContext, token: string, taskId: number) {
  return capture(ctx, 'delete:task', () => call(ctx, 'DELETE', `/api/tasks/${taskId}`, undefined, token));
}

export async function moveJob(ctx: StateContext, token: string, jobId: number, state: string) {
  return capture(ctx, 'update:job', () => call(ctx, 'PATCH', `/api/jobs/${jobId}`, { state }, token));
}

// ---- the REST API (annotation-sim)

/** A task of the project's owner with that id and name, without data (no jobs): its data may be sent. */
async function taskWithoutData(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.taskWithoutData.template, 'taskId', 'taskName', 'projectId');
  const projectId = int(p.projectId, 'projectId');
  const project = projectById(ctx, projectId);
  if (!project) throw new Error(`no project ${projectId}: a project state must come first`);
  const owner = project.owner_id === null ? undefined : stateOf(ctx).users.get(project.owner_id);
  if (!owner) throw new Error(`project ${projectId} has no owner`);
  const taskId = int(p.taskId, 'taskId');
  await seedTask(ctx, owner.username, projectId, taskId, str(p.taskName, 'taskName'));
  const task = stateOf(ctx).tasks.get(taskId);
  if (task?.data_id !== null || task.size !== 0) throw new Error(`task ${taskId} was seeded with data`);
}

// ---- message states

async function taskCreated(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, m.taskCreated.template, 'username', 'taskId', 'taskName', 'projectId');
  const projectId = int(p.projectId, 'projectId');
  const { token } = await actingUser(ctx, str(p.username, 'username'), projectId);
  const change = await createTask(
    ctx,
    token,
    projectId,
    int(p.taskId, 'taskId'),
    str(p.taskName, 'taskName'),
  );
  await messageFor(ctx, change, projectId);
}

async function taskRenamed(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, m.taskRenamed.template, 'username', 'taskId', 'projectId', 'oldName', 'newName');
  const projectId = int(p.projectId, 'projectId');
  const username = str(p.username, 'username');
  const { token } = await actingUser(ctx, username, projectId);
  const taskId = int(p.taskId, 'taskId');
  await seedTask(ctx, username, projectId, taskId, str(p.oldName, 'oldName'));
  await messageFor(ctx, await renameTask(ctx, token, taskId, str(p.newName, 'newName')), projectId);
}

async function taskDeleted(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, m.taskDeleted.template, 'username', 'taskId', 'projectId');
  const projectId = int(p.projectId, 'projectId');
  const username = str(p.username, 'username');
  const { token } = await actingUser(ctx, username, projectId);
  const taskId = int(p.taskId, 'taskId');
  await seedTask(ctx, username, projectId, taskId, `Task ${taskId}`);
  await messageFor(ctx, await deleteTask(ctx, token, taskId), projectId);
}

/** The seeded job is moved to `fromState` first when seeding left it in another state. */
async function jobStateChanged(ctx: StateContext, params: unknown) {
  const p = paramsOf(
    params,
    m.jobStateChanged.template,
    'username',
    'jobId',
    'taskId',
    'projectId',
    'fromState',
    'toState',
  );
  const projectId = int(p.projectId, 'projectId');
  const username = str(p.username, 'username');
  const { token } = await actingUser(ctx, username, projectId);
  const jobId = int(p.jobId, 'jobId');
  await seedTask(ctx, username, projectId, int(p.taskId, 'taskId'), `Task ${p.taskId}`, jobId);
  const fromState = str(p.fromState, 'fromState');
  if (stateOf(ctx).jobs.get(jobId)?.state !== fromState) await moveJob(ctx, token, jobId, fromState);
  await messageFor(ctx, await moveJob(ctx, token, jobId, str(p.toState, 'toState')), projectId);
}

export const taskStates: StateTable = {
  [a.taskWithoutData.template]: taskWithoutData,
  [m.taskCreated.template]: taskCreated,
  [m.taskRenamed.template]: taskRenamed,
  [m.taskDeleted.template]: taskDeleted,
  [m.jobStateChanged.template]: jobStateChanged,
};
