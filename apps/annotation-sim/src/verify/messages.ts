/**
 * Messages of the `annotation-sim-webhooks` pact: built by the pure payload factory the delivery engine
 * uses (`createEventPayload`, `createPingPayload`, `pythonJsonDumps`, `signWebhookBody`) from the change
 * an action emitted, and checked against what the engine actually delivered for the same change.
 */
import type { ProducedMessage } from '@sims/pact-verify';
import { basicUser } from '../domain/serializers';
import { createEventPayload, pythonJsonDumps, type ResourceChange, signWebhookBody } from '../index';
import {
  ensureProject,
  ensureUser,
  listeningReceiver,
  type StateContext,
  seedWebhook,
  settle,
  stateOf,
  tokenOf,
} from './state-support';

/** The BasicUser `sender` of a change made through the API (CVAT's BasicUserSerializer, as the app has it). */
export function senderOf(ctx: StateContext, userId: number) {
  const sender = basicUser(stateOf(ctx), userId);
  if (!sender) throw new Error(`no user ${userId}`);
  return sender;
}

/**
 * Makes `payload`, as webhook `webhookId` delivers it, the session's message, once the engine has
 * delivered the same bytes with the same signature (else the message would describe a payload no
 * receiver ever gets).
 */
export async function produce(ctx: StateContext, webhookId: number, payload: Record<string, unknown>) {
  const hook = stateOf(ctx).webhooks.get(webhookId);
  if (!hook) throw new Error(`no webhook ${webhookId}`);
  const body = pythonJsonDumps(payload);
  const signature = signWebhookBody(hook.secret, body);
  await settle(ctx);
  const sent = ctx.sent.filter((r) => r.url === hook.target_url);
  const last = sent.at(-1);
  if (!last) throw new Error(`the engine delivered nothing to webhook ${webhookId}`);
  // An action may send several events to the hook (an annotation save touches job, task and project):
  // the newest delivery with the factory's bytes is the message's.
  const delivered = sent.findLast((r) => r.body.toString('utf8') === body);
  if (!delivered) {
    throw new Error(
      `the factory's payload differs from the delivered one:\n factory:   ${body}\n delivered: ${last.body.toString('utf8')}`,
    );
  }
  const deliveredSignature = delivered.headers.find(([k]) => k === 'X-Signature-256')?.[1];
  if (deliveredSignature !== signature)
    throw new Error(`delivered signature ${deliveredSignature} is not ${signature}`);
  ctx.produced = { body, metadata: { 'Content-Type': 'application/json', 'X-Signature-256': signature } };
}

/** The message the interaction's states produced; an error when none did. */
export function producedMessage(ctx: StateContext): ProducedMessage {
  if (!ctx.produced) throw new Error('no state of this interaction produced a delivery');
  return ctx.produced;
}

/** Produces the event payload of `change` as the webhook of its project delivers it. */
export async function messageFor(ctx: StateContext, change: ResourceChange, projectId: number) {
  const hook = [...stateOf(ctx).webhooks.values()].find(
    (w) => w.type === 'project' && w.project_id === projectId,
  );
  if (!hook) throw new Error(`no webhook of project ${projectId}`);
  if (change.actor?.kind !== 'user') throw new Error(`${change.scope} was not made by a user`);
  await produce(ctx, hook.id, createEventPayload(change, hook.id, senderOf(ctx, change.actor.id)));
}

/**
 * The user acting in a message state, and a token of theirs. With `projectId`, they own that project
 * and every project of a planned webhook, and the planned webhooks are created.
 */
export async function actingUser(ctx: StateContext, username: string, projectId?: number) {
  const user = await ensureUser(ctx, username);
  if (projectId !== undefined) {
    await ensureProject(ctx, projectId, username);
    for (const h of ctx.plannedProjectHooks.splice(0)) {
      const project = await ensureProject(ctx, h.projectId, username);
      await seedWebhook(ctx, h.webhookId, {
        target_url: listeningReceiver(ctx, h.webhookId),
        type: 'project',
        events: h.events,
        owner: username,
        project: project.name,
        secret: h.secret,
      });
    }
  }
  return { user, token: tokenOf(ctx, user.id) };
}
