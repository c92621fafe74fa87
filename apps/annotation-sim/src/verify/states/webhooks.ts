/**
 * Project webhooks, their receivers and deliveries: the `webhook-admin` pact's states (a webhook, what
 * its receiver answers, a past delivery) and the message states of a project webhook and of a ping.
 */
import { annotationStates, webhookMessageStates } from '@sims/contracts';
import { int, paramsOf, str, strings } from '@sims/pact-verify';
import { createPingPayload } from '../../index';
import { actingUser, produce, senderOf } from '../messages';
import {
  call,
  nextIdWillBe,
  projectById,
  type StateContext,
  type StateTable,
  seedWebhook,
  settle,
  stateOf,
  tokenOf,
  userByName,
} from '../state-support';
import { createTask, deleteTask, moveJob, renameTask, seedTask } from './tasks';

const a = annotationStates;
const m = webhookMessageStates;

/** Secret of webhooks whose state names none (the admin pact never reads it). */
const DEFAULT_SECRET = 'pact-provider-webhook-secret';

// ---- the REST API (annotation-sim)

/** An active project webhook owned by the project's owner, with SSL verification on. */
async function projectWebhookSends(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.projectWebhook.template, 'webhookId', 'projectId', 'events', 'targetUrl');
  const project = projectById(ctx, int(p.projectId, 'projectId'));
  if (!project) throw new Error(`no project ${p.projectId}: a project state must come first`);
  const owner = project.owner_id === null ? undefined : stateOf(ctx).users.get(project.owner_id);
  if (!owner) throw new Error(`project ${project.id} has no owner`);
  await seedWebhook(ctx, int(p.webhookId, 'webhookId'), {
    target_url: str(p.targetUrl, 'targetUrl'),
    type: 'project',
    events: strings(p.events, 'events'),
    owner: owner.username,
    project: project.name,
    secret: DEFAULT_SECRET,
    enable_ssl: true,
  });
}

/** Deliveries to the URL get that status from the injected sender (no network). */
async function receiverAnswers(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.receiverAnswers.template, 'targetUrl', 'statusCode');
  const status = int(p.statusCode, 'statusCode');
  if (status < 100 || status > 599) throw new Error(`statusCode ${status} is not an HTTP status`);
  ctx.answers.set(str(p.targetUrl, 'targetUrl'), status);
}

/** Makes `event` happen in project `projectId`: its owner acts through the API on a new task (or job). */
async function causeEvent(ctx: StateContext, event: string, projectId: number, owner: string) {
  const user = userByName(ctx, owner);
  if (!user) throw new Error(`no user ${owner}`);
  const token = tokenOf(ctx, user.id);
  const taskId = (stateOf(ctx).seq.tasks ?? 0) + 1;
  switch (event) {
    case 'create:task':
      await createTask(ctx, token, projectId, taskId, 'Delivered task');
      return;
    case 'update:task':
      await seedTask(ctx, owner, projectId, taskId, 'Delivered task');
      await renameTask(ctx, token, taskId, 'Delivered task (renamed)');
      return;
    case 'delete:task':
      await seedTask(ctx, owner, projectId, taskId, 'Delivered task');
      await deleteTask(ctx, token, taskId);
      return;
    case 'update:job': {
      const jobId = (stateOf(ctx).seq.jobs ?? 0) + 1;
      await seedTask(ctx, owner, projectId, taskId, 'Delivered task', jobId);
      await moveJob(ctx, token, jobId, 'in progress');
      return;
    }
    default:
      throw new Error(
        `these handlers cannot cause a ${event} delivery (they know create/update/delete:task, update:job)`,
      );
  }
}

/**
 * A past delivery: the event really happens, and the engine delivers it (recorded as `deliveryId`) while
 * the webhook's receiver answers `statusCode`; what the receiver answered before is restored afterwards.
 */
async function pastDelivery(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, a.delivery.template, 'webhookId', 'deliveryId', 'event', 'statusCode');
  const webhookId = int(p.webhookId, 'webhookId');
  const deliveryId = int(p.deliveryId, 'deliveryId');
  const event = str(p.event, 'event');
  const state = stateOf(ctx);
  const hook = state.webhooks.get(webhookId);
  if (!hook || hook.project_id === null)
    throw new Error(`no project webhook ${webhookId}: a webhook state must come first`);
  if (!hook.events.includes(event)) throw new Error(`webhook ${webhookId} is not subscribed to ${event}`);
  const owner = hook.owner_id === null ? undefined : state.users.get(hook.owner_id);
  if (!owner) throw new Error(`webhook ${webhookId} has no owner`);
  const before = ctx.answers.get(hook.target_url);
  ctx.answers.set(hook.target_url, int(p.statusCode, 'statusCode'));
  nextIdWillBe(ctx, 'deliveries', deliveryId);
  try {
    await causeEvent(ctx, event, hook.project_id, owner.username);
    await settle(ctx);
  } finally {
    if (before === undefined) ctx.answers.delete(hook.target_url);
    else ctx.answers.set(hook.target_url, before);
  }
  const rec = stateOf(ctx).deliveries.get(deliveryId);
  if (!rec || rec.webhook_id !== webhookId || rec.event !== event || rec.status_code !== p.statusCode) {
    throw new Error(`the delivery of ${event} was not recorded as ${deliveryId}: ${JSON.stringify(rec)}`);
  }
}

// ---- messages (annotation-sim-webhooks)

/** Noted only: the webhook (and its project) is created when the acting user of a later state is known. */
async function projectWebhookSubscribed(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, m.projectWebhook.template, 'webhookId', 'projectId', 'events', 'secret');
  ctx.plannedProjectHooks.push({
    webhookId: int(p.webhookId, 'webhookId'),
    projectId: int(p.projectId, 'projectId'),
    events: strings(p.events, 'events'),
    secret: str(p.secret, 'secret'),
  });
}

/** The message is the webhook's ping, sent through the API by the acting user (its owner, when planned). */
async function webhookPinged(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, m.webhookPinged.template, 'username', 'webhookId');
  const webhookId = int(p.webhookId, 'webhookId');
  const planned = ctx.plannedProjectHooks.find((h) => h.webhookId === webhookId);
  const { user, token } = await actingUser(ctx, str(p.username, 'username'), planned?.projectId);
  const webhook = await call(ctx, 'GET', `/api/webhooks/${webhookId}`, undefined, token);
  if (!webhook) throw new Error(`no webhook ${webhookId}`);
  await call(ctx, 'POST', `/api/webhooks/${webhookId}/ping`, undefined, token);
  await produce(ctx, webhookId, createPingPayload(webhook, senderOf(ctx, user.id)));
}

export const webhookStates: StateTable = {
  [a.projectWebhook.template]: projectWebhookSends,
  [a.receiverAnswers.template]: receiverAnswers,
  [a.delivery.template]: pastDelivery,
  [m.projectWebhook.template]: projectWebhookSubscribed,
  [m.webhookPinged.template]: webhookPinged,
};
