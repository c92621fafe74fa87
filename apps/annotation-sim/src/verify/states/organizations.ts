/** Organizations of the message states: an organization webhook, and a member joining. */
import { webhookMessageStates } from '@sims/contracts';
import { int, paramsOf, str, strings } from '@sims/pact-verify';
import { createEventPayload } from '../../index';
import { produce, senderOf } from '../messages';
import {
  call,
  capture,
  ensureUser,
  listeningReceiver,
  nextIdWillBe,
  type StateContext,
  type StateTable,
  seed,
  seedWebhook,
  stateOf,
  tokenOf,
} from '../state-support';

const m = webhookMessageStates;

/** The organization with that id and slug (owned by user `<slug>-owner`, seeded if missing) and its webhook. */
async function organizationWebhookSubscribed(ctx: StateContext, params: unknown) {
  const p = paramsOf(
    params,
    m.organizationWebhook.template,
    'webhookId',
    'orgId',
    'orgSlug',
    'events',
    'secret',
  );
  const slug = str(p.orgSlug, 'orgSlug');
  const owner = `${slug}-owner`;
  await ensureUser(ctx, owner);
  nextIdWillBe(ctx, 'organizations', int(p.orgId, 'orgId'));
  await seed(ctx, { organizations: [{ slug, name: slug, owner }] });
  const webhookId = int(p.webhookId, 'webhookId');
  await seedWebhook(ctx, webhookId, {
    target_url: listeningReceiver(ctx, webhookId),
    type: 'organization',
    events: strings(p.events, 'events'),
    owner,
    org: slug,
    secret: str(p.secret, 'secret'),
  });
}

/**
 * The organization's owner invites the user: CVAT creates the (inactive) membership with the invitation,
 * and that is when create:membership fires. An owner membership cannot be made this way (it is created
 * with its organization, before any organization webhook can exist).
 */
async function memberJoined(ctx: StateContext, params: unknown) {
  const p = paramsOf(params, m.memberJoined.template, 'username', 'orgSlug', 'role');
  const slug = str(p.orgSlug, 'orgSlug');
  const role = str(p.role, 'role');
  if (role === 'owner')
    throw new Error(
      'an owner membership is created with its organization, before any organization webhook can exist',
    );
  const state = stateOf(ctx);
  const org = [...state.organizations.values()].find((o) => o.slug === slug);
  if (!org || org.owner_id === null)
    throw new Error(`no organization ${slug}: an organization webhook state must come first`);
  const member = await ensureUser(ctx, str(p.username, 'username'));
  const ownerToken = tokenOf(ctx, org.owner_id);
  const change = await capture(ctx, 'create:membership', () =>
    call(ctx, 'POST', '/api/invitations', { role, email: member.email }, ownerToken, slug),
  );
  const hook = [...state.webhooks.values()].find(
    (w) => w.type === 'organization' && w.organization_id === org.id,
  );
  if (!hook) throw new Error(`no webhook of organization ${slug}`);
  if (change.actor?.kind !== 'user') throw new Error('the invitation was not made by a user');
  await produce(ctx, hook.id, createEventPayload(change, hook.id, senderOf(ctx, change.actor.id)));
}

export const organizationStates: StateTable = {
  [m.organizationWebhook.template]: organizationWebhookSubscribed,
  [m.memberJoined.template]: memberJoined,
};
