/**
 * Invitations: who may invite, see, revoke, accept or decline them, what an invitation request may carry,
 * and the mutations behind them. An invitation holds an inactive membership until it is accepted.
 */
import type { InvitationWriteRequest } from '@sims/annotation-schema/requests';
import { canManageOrg, isAdmin, roleIn } from './access';
import { formatDrfDate } from './dates';
import { denied, fail, invalid, ok, type Result } from './errors';
import type { InvitationRec, MembershipRec, OrganizationRec, OrgRole, UserRec } from './model';
import { emit, type MutationContext, type Rec, represent, stamp } from './mutation';
import type { OrgContext } from './org-context';
import { createMembership, deleteMembership, updateMembership } from './organizations';
import { type AnnotationState, nextId } from './state';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export interface InvitationInput {
  email: string;
  role: OrgRole;
}

/** The membership an invitation holds (undefined once it is gone). */
const invitationMembership = (state: AnnotationState, inv: InvitationRec): MembershipRec | undefined =>
  state.memberships.get(inv.membership_id);

/** Inviting: only into an organization context, by its maintainers and above. */
export function mayInvite(state: AnnotationState, user: UserRec, ctx: OrgContext): Result<OrganizationRec> {
  return ctx.org && canManageOrg(state, user, ctx.org.id) ? ok(ctx.org) : fail(denied());
}

/**
 * An invitation from its checked fields: a valid address and a role the inviter may give (never `owner`;
 * `maintainer` only by the organization's owner or an admin).
 */
export function invitationRequest(
  state: AnnotationState,
  user: UserRec,
  org: OrganizationRec,
  f: InvitationWriteRequest,
): Result<InvitationInput> {
  const email = f.email;
  if (!EMAIL.test(email)) return fail(invalid({ email: ['Enter a valid email address.'] }));
  const role = f.role;
  if (
    role === 'owner' ||
    (role === 'maintainer' && roleIn(state, user.id, org.id) !== 'owner' && !isAdmin(user))
  )
    return fail(denied());
  return ok({ email, role });
}

/**
 * Invites `input.email` into `org`. An unknown address first gets an inactive placeholder account, as a
 * registration would (kept even when the invitation is then refused); someone already in the
 * organization is DRF's bare-list 400.
 */
export function invite(
  ctx: MutationContext,
  org: OrganizationRec,
  inviterId: number,
  input: InvitationInput,
): Result<InvitationRec> {
  const s = ctx.state;
  let invitee = [...s.users.values()].find((u) => u.email === input.email);
  if (!invitee) {
    invitee = {
      id: nextId(s, 'users'),
      username: input.email,
      first_name: '',
      last_name: '',
      email: input.email,
      password: '',
      privilege: 'worker',
      is_superuser: false,
      is_staff: false,
      is_active: false,
      date_joined: formatDrfDate(ctx.now),
      last_login: null,
    };
    s.users.set(invitee.id, invitee);
  }
  const inviteeId = invitee.id;
  if ([...s.memberships.values()].some((m) => m.user_id === inviteeId && m.organization_id === org.id))
    return fail({ code: 'INVALID_LIST', messages: ['The user is already a member of this organization.'] });
  return ok(createInvitation(ctx, org.id, inviteeId, input.role, inviterId));
}

/** The invitations a list shows: the context organization's, or those `user` sent, got or manages. */
export function invitationListed(
  state: AnnotationState,
  user: UserRec,
  ctx: OrgContext,
  inv: InvitationRec,
): boolean {
  const m = invitationMembership(state, inv);
  if (!m) return false;
  if (ctx.org) return m.organization_id === ctx.org.id;
  return m.user_id === user.id || inv.owner_id === user.id || canManageOrg(state, user, m.organization_id);
}

/** The invitation with this key, or DRF's 404. */
export function findInvitation(state: AnnotationState, key: string): Result<InvitationRec> {
  const inv = state.invitations.get(key);
  return inv ? ok(inv) : fail({ code: 'NOT_FOUND', detail: 'No Invitation matches the given query.' });
}

/** Seeing an invitation: its invitee, its sender, or a maintainer of its organization. */
export function mayViewInvitation(
  state: AnnotationState,
  user: UserRec,
  inv: InvitationRec,
): Result<InvitationRec> {
  const m = invitationMembership(state, inv);
  const allowed =
    m?.user_id === user.id || inv.owner_id === user.id || (m && canManageOrg(state, user, m.organization_id));
  return allowed ? ok(inv) : fail(denied());
}

/** Revoking an invitation: its sender, or a maintainer of its organization. */
export function mayRevokeInvitation(
  state: AnnotationState,
  user: UserRec,
  inv: InvitationRec,
): Result<InvitationRec> {
  const m = invitationMembership(state, inv);
  const allowed = inv.owner_id === user.id || (m && canManageOrg(state, user, m.organization_id));
  return allowed ? ok(inv) : fail(denied());
}

/** Accepting or declining: the invitee only. */
export function mayAnswerInvitation(
  state: AnnotationState,
  user: UserRec,
  inv: InvitationRec,
): Result<InvitationRec> {
  return invitationMembership(state, inv)?.user_id === user.id ? ok(inv) : fail(denied());
}

export function createInvitation(
  ctx: MutationContext,
  orgId: number,
  userId: number,
  role: OrgRole,
  ownerId: number,
): InvitationRec {
  const s = ctx.state;
  const m = createMembership(ctx, userId, orgId, role, false);
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

/** Activates the invitation's membership; the organization it leads into. */
export function acceptInvitation(ctx: MutationContext, inv: InvitationRec): OrganizationRec | undefined {
  const m = ctx.state.memberships.get(inv.membership_id);
  if (!m) return undefined;
  if (!m.is_active) updateMembership(ctx, m, { is_active: true, joined_date: stamp(ctx) });
  return ctx.state.organizations.get(m.organization_id);
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
