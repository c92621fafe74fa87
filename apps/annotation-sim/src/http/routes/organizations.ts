import { canManageOrg, isAdmin, roleIn } from '../../domain/access';
import { formatDrfDate } from '../../domain/dates';
import { ApiFailure, denied } from '../../domain/errors';
import type { InvitationRec, MembershipRec, OrganizationRec, OrgRole, UserRec } from '../../domain/model';
import {
  acceptInvitation,
  createInvitation,
  createOrganization,
  deleteInvitation,
  deleteMembership,
  deleteOrganization,
  updateMembership,
  updateOrganization,
} from '../../domain/resources';
import { invitationRead, membershipRead, organizationRead } from '../../domain/serializers';
import { nextId } from '../../domain/state';
import { validateFields } from '../../domain/validate';
import { type ApiRequest, api } from '../api';
import type { AppDeps, Kernel } from '../deps';
import { paginate, searchFilter, sortBy } from '../pagination';
import { cvatJson, noContent } from '../respond';

const ROLES = ['worker', 'supervisor', 'maintainer', 'owner'] as const;
const SLUG = /^[-a-zA-Z0-9_]+$/;

function isMember(r: ApiRequest, user: UserRec, orgId: number): boolean {
  return isAdmin(user) || roleIn(r.state, user.id, orgId) !== null;
}

export function registerOrganizationRoutes(kernel: Kernel, deps: AppDeps): void {
  const { app, operation } = kernel;
  const idRes = (kind: string) => (c: { req: { param(n: string): string | undefined } }) =>
    `${kind}/${c.req.param('id') ?? c.req.param('key')}`;

  app.get(
    '/api/organizations',
    operation('organizations.list'),
    api(deps, (r) => {
      const user = r.user();
      let orgs = [...r.state.organizations.values()].filter((o) => isMember(r, user, o.id));
      orgs = searchFilter(orgs, r.query('search'), [(o) => o.slug, (o) => o.name]);
      for (const f of ['slug', 'name'] as const) {
        const v = r.query(f);
        if (v) orgs = orgs.filter((o) => o[f] === v);
      }
      orgs = sortBy(
        orgs,
        r.query('sort'),
        {
          id: (o: OrganizationRec) => o.id,
          slug: (o: OrganizationRec) => o.slug,
          name: (o: OrganizationRec) => o.name,
        },
        '-id',
      );
      return cvatJson(
        r.c,
        paginate(r, orgs, (o) => organizationRead(r.state, o)),
      );
    }),
  );

  app.post(
    '/api/organizations',
    operation('organizations.create'),
    api(deps, (r) => {
      const user = r.user();
      const v = validateFields(r.body(), {
        slug: { kind: 'string', required: true, maxLength: 16 },
        name: { kind: 'string', allowBlank: true, maxLength: 64 },
        description: { kind: 'string', allowBlank: true },
        contact: { kind: 'any' },
      });
      if (!v.ok) throw new ApiFailure({ code: 'INVALID', errors: v.errors });
      const slug = v.value.slug as string;
      if (!SLUG.test(slug))
        throw new ApiFailure({
          code: 'INVALID',
          errors: { slug: ['Enter a valid “slug” consisting of letters, numbers, underscores or hyphens.'] },
        });
      if ([...r.state.organizations.values()].some((o) => o.slug === slug)) {
        throw new ApiFailure({
          code: 'INVALID',
          errors: { slug: ['organization with this slug already exists.'] },
        });
      }
      const org = createOrganization(r.mutation(), user.id, {
        slug,
        name: (v.value.name as string | undefined) ?? '',
        description: (v.value.description as string | undefined) ?? '',
        contact: (v.value.contact as Record<string, unknown> | undefined) ?? {},
      });
      return cvatJson(r.c, organizationRead(r.state, org), 201);
    }),
  );

  const loadOrg = (r: ApiRequest, min: OrgRole | 'member') => {
    const org = r.get(r.state.organizations, r.intParam('id'), 'Organization');
    const user = r.user();
    if (min === 'member' ? !isMember(r, user, org.id) : !canManageOrg(r.state, user, org.id, min))
      throw new ApiFailure(denied());
    return org;
  };

  app.get(
    '/api/organizations/:id',
    operation('organizations.retrieve', idRes('organizations')),
    api(deps, (r) => cvatJson(r.c, organizationRead(r.state, loadOrg(r, 'member')))),
  );

  app.patch(
    '/api/organizations/:id',
    operation('organizations.partial_update', idRes('organizations')),
    api(deps, (r) => {
      const org = loadOrg(r, 'maintainer');
      const v = validateFields(
        r.body(),
        {
          slug: { kind: 'string', maxLength: 16 },
          name: { kind: 'string', allowBlank: true, maxLength: 64 },
          description: { kind: 'string', allowBlank: true },
          contact: { kind: 'any' },
        },
        true,
      );
      if (!v.ok) throw new ApiFailure({ code: 'INVALID', errors: v.errors });
      updateOrganization(r.mutation(), org, v.value as Partial<OrganizationRec>);
      return cvatJson(r.c, organizationRead(r.state, org));
    }),
  );

  app.delete(
    '/api/organizations/:id',
    operation('organizations.destroy', idRes('organizations')),
    api(deps, (r) => {
      deleteOrganization(r.mutation(), loadOrg(r, 'owner'));
      return noContent(r.c);
    }),
  );

  // ---- memberships ----

  app.get(
    '/api/memberships',
    operation('memberships.list'),
    api(deps, (r) => {
      const user = r.user();
      const ctx = r.orgContext();
      if (ctx.org && !isMember(r, user, ctx.org.id)) throw new ApiFailure(denied());
      let rows = [...r.state.memberships.values()].filter((m) =>
        ctx.org ? m.organization_id === ctx.org.id : isMember(r, user, m.organization_id),
      );
      const role = r.query('role');
      if (role) rows = rows.filter((m) => m.role === role);
      const uname = r.query('user');
      if (uname) rows = rows.filter((m) => r.state.users.get(m.user_id)?.username === uname);
      rows = sortBy(
        rows,
        r.query('sort'),
        { id: (m: MembershipRec) => m.id, role: (m: MembershipRec) => m.role },
        'id',
      );
      return cvatJson(
        r.c,
        paginate(r, rows, (m) => membershipRead(r.state, m)),
      );
    }),
  );

  const loadMembership = (r: ApiRequest) => {
    const m = r.get(r.state.memberships, r.intParam('id'), 'Membership');
    if (!isMember(r, r.user(), m.organization_id)) throw new ApiFailure(denied());
    return m;
  };

  app.get(
    '/api/memberships/:id',
    operation('memberships.retrieve', idRes('memberships')),
    api(deps, (r) => cvatJson(r.c, membershipRead(r.state, loadMembership(r)))),
  );

  app.patch(
    '/api/memberships/:id',
    operation('memberships.partial_update', idRes('memberships')),
    api(deps, (r) => {
      const m = loadMembership(r);
      const user = r.user();
      if (!canManageOrg(r.state, user, m.organization_id) || m.role === 'owner' || m.user_id === user.id)
        throw new ApiFailure(denied());
      const v = validateFields(r.body(), { role: { kind: 'choice', choices: ROLES } }, true);
      if (!v.ok) throw new ApiFailure({ code: 'INVALID', errors: v.errors });
      if (v.value.role === 'owner') throw new ApiFailure(denied());
      if (v.value.role !== undefined) updateMembership(r.mutation(), m, { role: v.value.role as OrgRole });
      return cvatJson(r.c, membershipRead(r.state, m));
    }),
  );

  app.delete(
    '/api/memberships/:id',
    operation('memberships.destroy', idRes('memberships')),
    api(deps, (r) => {
      const m = loadMembership(r);
      const user = r.user();
      const self = m.user_id === user.id;
      if (m.role === 'owner' || (!self && !canManageOrg(r.state, user, m.organization_id)))
        throw new ApiFailure(denied());
      deleteMembership(r.mutation(), m);
      return noContent(r.c);
    }),
  );

  // ---- invitations ----

  app.get(
    '/api/invitations',
    operation('invitations.list'),
    api(deps, (r) => {
      const user = r.user();
      const ctx = r.orgContext();
      if (ctx.org && !isMember(r, user, ctx.org.id)) throw new ApiFailure(denied());
      const orgOf = (i: InvitationRec) => r.state.memberships.get(i.membership_id);
      let rows = [...r.state.invitations.values()].filter((i) => {
        const m = orgOf(i);
        if (!m) return false;
        if (ctx.org) return m.organization_id === ctx.org.id;
        return (
          m.user_id === user.id || i.owner_id === user.id || canManageOrg(r.state, user, m.organization_id)
        );
      });
      rows = sortBy(
        rows,
        r.query('sort'),
        { created_date: (i: InvitationRec) => i.created_date },
        '-created_date',
      );
      return cvatJson(
        r.c,
        paginate(r, rows, (i) => invitationRead(r.state, i, r.now)),
      );
    }),
  );

  app.post(
    '/api/invitations',
    operation('invitations.create'),
    api(deps, (r) => {
      const user = r.user();
      const ctx = r.orgContext();
      if (!ctx.org || !canManageOrg(r.state, user, ctx.org.id)) throw new ApiFailure(denied());
      const v = validateFields(r.body(), {
        role: { kind: 'choice', required: true, choices: ROLES },
        email: { kind: 'string', required: true },
      });
      if (!v.ok) throw new ApiFailure({ code: 'INVALID', errors: v.errors });
      const email = v.value.email as string;
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
        throw new ApiFailure({ code: 'INVALID', errors: { email: ['Enter a valid email address.'] } });
      const role = v.value.role as OrgRole;
      if (
        role === 'owner' ||
        (role === 'maintainer' && roleIn(r.state, user.id, ctx.org.id) !== 'owner' && !isAdmin(user))
      ) {
        throw new ApiFailure(denied());
      }
      let invitee = [...r.state.users.values()].find((u) => u.email === email);
      if (!invitee) {
        // Chosen: an unknown address gets an inactive placeholder account, as a registration would.
        invitee = {
          id: nextId(r.state, 'users'),
          username: email,
          first_name: '',
          last_name: '',
          email,
          password: '',
          privilege: 'worker',
          is_superuser: false,
          is_staff: false,
          is_active: false,
          date_joined: formatDrfDate(r.now),
          last_login: null,
        };
        r.state.users.set(invitee.id, invitee);
      }
      const orgId = ctx.org.id;
      const inviteeId = invitee.id;
      if (
        [...r.state.memberships.values()].some((m) => m.user_id === inviteeId && m.organization_id === orgId)
      ) {
        throw new ApiFailure({
          code: 'INVALID_LIST',
          messages: ['The user is already a member of this organization.'],
        });
      }
      const inv = createInvitation(r.mutation(), orgId, inviteeId, role, user.id);
      return cvatJson(r.c, invitationRead(r.state, inv, r.now), 201);
    }),
  );

  const loadInvitation = (r: ApiRequest) => {
    const key = r.c.req.param('key') ?? '';
    const inv = r.state.invitations.get(key);
    if (!inv) throw new ApiFailure({ code: 'NOT_FOUND', detail: 'No Invitation matches the given query.' });
    return inv;
  };
  const invitationOrg = (r: ApiRequest, inv: InvitationRec) => r.state.memberships.get(inv.membership_id);

  app.get(
    '/api/invitations/:key',
    operation('invitations.retrieve', idRes('invitations')),
    api(deps, (r) => {
      const inv = loadInvitation(r);
      const m = invitationOrg(r, inv);
      const user = r.user();
      if (
        !(
          m?.user_id === user.id ||
          inv.owner_id === user.id ||
          (m && canManageOrg(r.state, user, m.organization_id))
        )
      )
        throw new ApiFailure(denied());
      return cvatJson(r.c, invitationRead(r.state, inv, r.now));
    }),
  );

  app.delete(
    '/api/invitations/:key',
    operation('invitations.destroy', idRes('invitations')),
    api(deps, (r) => {
      const inv = loadInvitation(r);
      const m = invitationOrg(r, inv);
      const user = r.user();
      if (!(inv.owner_id === user.id || (m && canManageOrg(r.state, user, m.organization_id))))
        throw new ApiFailure(denied());
      deleteInvitation(r.mutation(), inv);
      return noContent(r.c);
    }),
  );

  app.post(
    '/api/invitations/:key/accept',
    operation('invitations.accept', idRes('invitations')),
    api(deps, (r) => {
      const inv = loadInvitation(r);
      const m = invitationOrg(r, inv);
      if (m?.user_id !== r.user().id) throw new ApiFailure(denied());
      acceptInvitation(r.mutation(), inv);
      const org = r.state.organizations.get(m.organization_id);
      return cvatJson(r.c, { organization_slug: org?.slug ?? '' });
    }),
  );

  app.post(
    '/api/invitations/:key/decline',
    operation('invitations.decline', idRes('invitations')),
    api(deps, (r) => {
      const inv = loadInvitation(r);
      const m = invitationOrg(r, inv);
      if (m?.user_id !== r.user().id) throw new ApiFailure(denied());
      deleteInvitation(r.mutation(), inv);
      return noContent(r.c);
    }),
  );
}
