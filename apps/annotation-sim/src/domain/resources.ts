/**
 * Organizations, memberships and invitations: the mutations that store them and emit their changes.
 * The other resources' rules and mutations live in `projects.ts`, `tasks.ts`, `jobs.ts` and `issues.ts`
 * (the change machinery in `mutation.ts`); the few the seed and the webhook routes use are re-exported.
 */
import type { InvitationRec, MembershipRec, OrganizationRec, OrgRole } from './model';
import {
  deleteWebhookCascade,
  emit,
  type MutationContext,
  type Rec,
  represent,
  stamp,
  update,
} from './mutation';
import { deleteProject } from './projects';
import { nextId } from './state';
import { deleteTask } from './tasks';

export { deleteWebhookCascade, type MutationContext } from './mutation';
export { createProject } from './projects';
export { attachTaskData, createTask } from './tasks';

export function createOrganization(
  ctx: MutationContext,
  ownerId: number,
  input: { slug: string; name?: string; description?: string; contact?: Record<string, unknown> },
): OrganizationRec {
  const s = ctx.state;
  const org: OrganizationRec = {
    id: nextId(s, 'organizations'),
    slug: input.slug,
    name: input.name ?? '',
    description: input.description ?? '',
    contact: input.contact ?? {},
    owner_id: ownerId,
    created_date: stamp(ctx),
    updated_date: stamp(ctx),
  };
  s.organizations.set(org.id, org);
  emit(ctx, 'create', 'organization', org as unknown as Rec);
  const m: MembershipRec = {
    id: nextId(s, 'memberships'),
    user_id: ownerId,
    organization_id: org.id,
    is_active: true,
    joined_date: stamp(ctx),
    role: 'owner',
  };
  s.memberships.set(m.id, m);
  emit(ctx, 'create', 'membership', m as unknown as Rec);
  return org;
}

export function updateOrganization(
  ctx: MutationContext,
  org: OrganizationRec,
  patch: Partial<OrganizationRec>,
): OrganizationRec {
  return update(ctx, 'organization', org, patch);
}

export function deleteOrganization(ctx: MutationContext, org: OrganizationRec): void {
  const s = ctx.state;
  // Webhooks of the organization go first and silently (cascade): they receive nothing of this.
  for (const w of [...s.webhooks.values()]) if (w.organization_id === org.id) deleteWebhookCascade(s, w.id);
  for (const p of [...s.projects.values()]) if (p.organization_id === org.id) deleteProject(ctx, p);
  for (const t of [...s.tasks.values()]) if (t.organization_id === org.id) deleteTask(ctx, t);
  for (const m of [...s.memberships.values()]) if (m.organization_id === org.id) deleteMembership(ctx, m);
  const snapshot = represent(ctx, 'organization', org as unknown as Rec);
  s.organizations.delete(org.id);
  emit(ctx, 'delete', 'organization', org as unknown as Rec, {
    resource: snapshot,
    scope: { orgId: org.id, projectId: null, taskId: null, jobId: null },
  });
}

export function updateMembership(
  ctx: MutationContext,
  m: MembershipRec,
  patch: Partial<MembershipRec>,
): MembershipRec {
  return update(ctx, 'membership', m, patch, false);
}

export function deleteMembership(ctx: MutationContext, m: MembershipRec): void {
  const s = ctx.state;
  for (const i of [...s.invitations.values()]) {
    if (i.membership_id === m.id) {
      const snap = represent(ctx, 'invitation', i as unknown as Rec);
      s.invitations.delete(i.key);
      emit(
        ctx,
        'delete',
        'invitation',
        { ...(i as unknown as Rec), __org: m.organization_id },
        { resource: snap, scope: { orgId: m.organization_id, projectId: null, taskId: null, jobId: null } },
      );
    }
  }
  const snapshot = represent(ctx, 'membership', m as unknown as Rec);
  s.memberships.delete(m.id);
  emit(ctx, 'delete', 'membership', m as unknown as Rec, { resource: snapshot });
}

export function createInvitation(
  ctx: MutationContext,
  orgId: number,
  userId: number,
  role: OrgRole,
  ownerId: number,
): InvitationRec {
  const s = ctx.state;
  const m: MembershipRec = {
    id: nextId(s, 'memberships'),
    user_id: userId,
    organization_id: orgId,
    is_active: false,
    joined_date: null,
    role,
  };
  s.memberships.set(m.id, m);
  emit(ctx, 'create', 'membership', m as unknown as Rec);
  const hex = ctx.hex ?? ((n: number) => String(nextId(s, 'invitation-keys')).padStart(n, '0'));
  const inv: InvitationRec = {
    key: hex(64),
    created_date: stamp(ctx),
    sent_date: stamp(ctx),
    owner_id: ownerId,
    membership_id: m.id,
  };
  s.invitations.set(inv.key, inv);
  emit(ctx, 'create', 'invitation', inv as unknown as Rec);
  return inv;
}

export function acceptInvitation(ctx: MutationContext, inv: InvitationRec): void {
  const m = ctx.state.memberships.get(inv.membership_id);
  if (m && !m.is_active) updateMembership(ctx, m, { is_active: true, joined_date: stamp(ctx) });
}

/** Deleting (revoking) or declining an invitation removes it and its inactive membership. */
export function deleteInvitation(ctx: MutationContext, inv: InvitationRec): void {
  const s = ctx.state;
  const m = s.memberships.get(inv.membership_id);
  if (m && !m.is_active) {
    deleteMembership(ctx, m);
    return;
  }
  const snap = represent(ctx, 'invitation', inv as unknown as Rec);
  s.invitations.delete(inv.key);
  emit(
    ctx,
    'delete',
    'invitation',
    { ...(inv as unknown as Rec), __org: m?.organization_id ?? null },
    { resource: snap },
  );
}
