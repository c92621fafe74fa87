/**
 * Organizations and memberships: who may see, change or leave them, what a create or partial update may
 * carry (checked as CVAT's serializers do), and the mutations that store them and emit their changes.
 * Invitations, which create inactive memberships, are in `invitations.ts`.
 */
import type {
  OrganizationWriteRequest,
  PatchedMembershipWriteRequest,
  PatchedOrganizationWriteRequest,
} from '@sims/annotation-schema/requests';
import { canManageOrg, isAdmin, roleIn } from './access';
import { denied, fail, invalid, ok, type Result } from './errors';
import type { MembershipRec, OrganizationRec, OrgRole, UserRec } from './model';
import {
  deleteWebhookCascade,
  emit,
  type MutationContext,
  type Rec,
  represent,
  stamp,
  update,
} from './mutation';
import type { OrgContext } from './org-context';
import { deleteProject } from './projects';
import { invitationsOfMembership, membershipsOfOrg } from './relations';
import { type AnnotationState, nextId } from './state';
import { deleteTask } from './tasks';

const SLUG = /^[-a-zA-Z0-9_]+$/;

export interface OrganizationInput {
  slug: string;
  name?: string;
  description?: string;
  contact?: Record<string, unknown>;
}

/** The slug field's validator error (Django's `validate_slug`). */
function invalidSlug() {
  return invalid({ slug: ['Enter a valid “slug” consisting of letters, numbers, underscores or hyphens.'] });
}

/** A member of the organization (any role), or an admin. */
export function isMember(state: AnnotationState, user: UserRec, orgId: number): boolean {
  return isAdmin(user) || roleIn(state, user.id, orgId) !== null;
}

/** A new organization from its checked fields: a valid slug no other organization has. */
export function organizationCreation(
  state: AnnotationState,
  f: OrganizationWriteRequest,
): Result<OrganizationInput> {
  const slug = f.slug;
  if (!SLUG.test(slug)) return fail(invalidSlug());
  if ([...state.organizations.values()].some((o) => o.slug === slug))
    return fail(invalid({ slug: ['organization with this slug already exists.'] }));
  return ok({
    slug,
    name: f.name ?? '',
    description: f.description ?? '',
    contact: (f.contact as Record<string, unknown> | undefined) ?? {},
  });
}

/** An organization's partial update from its checked fields. */
export function organizationPatch(f: PatchedOrganizationWriteRequest): Result<Partial<OrganizationRec>> {
  if (f.slug !== undefined && !SLUG.test(f.slug)) return fail(invalidSlug());
  return ok(f as Partial<OrganizationRec>);
}

/** The organization if `user` is a member (`min` `'member'`) or holds role `min` or above, else 403. */
export function mayUseOrganization(
  state: AnnotationState,
  user: UserRec,
  org: OrganizationRec,
  min: OrgRole | 'member',
): Result<OrganizationRec> {
  const allowed = min === 'member' ? isMember(state, user, org.id) : canManageOrg(state, user, org.id, min);
  return allowed ? ok(org) : fail(denied());
}

/** Listing memberships or invitations in an organization context: its members only. */
export function mayListInOrganization(state: AnnotationState, user: UserRec, ctx: OrgContext): Result<void> {
  return ctx.org && !isMember(state, user, ctx.org.id) ? fail(denied()) : ok(undefined);
}

/** The memberships a list shows: the context organization's, or those of every organization `user` is in. */
export function membershipListed(
  state: AnnotationState,
  user: UserRec,
  ctx: OrgContext,
  m: MembershipRec,
): boolean {
  return ctx.org ? m.organization_id === ctx.org.id : isMember(state, user, m.organization_id);
}

/** The membership if `user` is a member of its organization, else 403. */
export function mayViewMembership(
  state: AnnotationState,
  user: UserRec,
  m: MembershipRec,
): Result<MembershipRec> {
  return isMember(state, user, m.organization_id) ? ok(m) : fail(denied());
}

/** Changing a role: maintainers and above, never the owner's membership nor the caller's own. */
export function mayChangeMembership(state: AnnotationState, user: UserRec, m: MembershipRec): Result<void> {
  if (!canManageOrg(state, user, m.organization_id) || m.role === 'owner' || m.user_id === user.id)
    return fail(denied());
  return ok(undefined);
}

/** A membership's partial update from its checked fields: a new role, never `owner` (403). */
export function membershipPatch(f: PatchedMembershipWriteRequest): Result<{ role?: OrgRole }> {
  const role = f.role;
  if (role === 'owner') return fail(denied());
  return ok(role === undefined ? {} : { role });
}

/** Removing a membership: leaving one's own, or a maintainer removing another; never the owner's. */
export function mayDeleteMembership(state: AnnotationState, user: UserRec, m: MembershipRec): Result<void> {
  const self = m.user_id === user.id;
  if (m.role === 'owner' || (!self && !canManageOrg(state, user, m.organization_id))) return fail(denied());
  return ok(undefined);
}

export function createOrganization(
  ctx: MutationContext,
  ownerId: number,
  input: OrganizationInput,
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
  createMembership(ctx, ownerId, org.id, 'owner', true);
  return org;
}

/** Stores a membership: active (joined now) for an organization's owner, inactive for an invitee. */
export function createMembership(
  ctx: MutationContext,
  userId: number,
  orgId: number,
  role: OrgRole,
  active: boolean,
): MembershipRec {
  const m: MembershipRec = {
    id: nextId(ctx.state, 'memberships'),
    user_id: userId,
    organization_id: orgId,
    is_active: active,
    joined_date: active ? stamp(ctx) : null,
    role,
  };
  ctx.state.memberships.set(m.id, m);
  emit(ctx, 'create', 'membership', m as unknown as Rec);
  return m;
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
  for (const m of membershipsOfOrg(s, org.id)) deleteMembership(ctx, m);
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

/** Removes a membership and the invitations that created it. */
export function deleteMembership(ctx: MutationContext, m: MembershipRec): void {
  const s = ctx.state;
  for (const i of invitationsOfMembership(s, m.id)) {
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
  const snapshot = represent(ctx, 'membership', m as unknown as Rec);
  s.memberships.delete(m.id);
  emit(ctx, 'delete', 'membership', m as unknown as Rec, { resource: snapshot });
}
