import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type {
  OrganizationWriteRequest,
  PatchedMembershipWriteRequest,
  PatchedOrganizationWriteRequest,
} from '@sims/annotation-schema/requests';
import type { Result } from '../../domain/errors';
import type { MembershipRec, OrganizationRec, OrgRole } from '../../domain/model';
import {
  createOrganization,
  deleteMembership,
  deleteOrganization,
  isMember,
  mayChangeMembership,
  mayDeleteMembership,
  mayListInOrganization,
  mayUseOrganization,
  mayViewMembership,
  membershipListed,
  membershipPatch,
  organizationCreation,
  organizationPatch,
  updateMembership,
  updateOrganization,
} from '../../domain/organizations';
import { membershipRead, organizationRead } from '../../domain/serializers';
import type { ApiRequest } from '../api';
import { checkListQuery, pageAnswer } from '../pagination';
import { cvatJson, noContent } from '../respond';
import { byId, type RouteRow, refused, withBody } from '../route-table';
import { membershipTerms, organizationTerms, simpleFiltersOf } from './filter-terms';
import { invitationRoutes } from './invitations';
import { queryList } from './list-query';
import { username } from './resource-support';

/** OrganizationViewSet: the query's bounds first (after authentication), then its filter backends. */
function handleListOrganizations(r: ApiRequest): Response {
  const user = r.user();
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const mine = [...r.state.organizations.values()].filter((o) => isMember(r.state, user, o.id));
  const orgs = queryList(r, mine, {
    terms: organizationTerms(r.state),
    simpleFilters: simpleFiltersOf('/api/organizations'),
    search: [(o) => o.name, (o) => username(r, o.owner_id), (o) => o.slug],
    defaultOrder: '-id',
  });
  return orgs.ok ? pageAnswer(r, orgs.value, (o) => organizationRead(r.state, o)) : refused(r, orgs);
}

function handleCreateOrganization(r: ApiRequest<OrganizationWriteRequest>): Response {
  const user = r.user();
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const input = organizationCreation(r.state, body.value);
  if (!input.ok) return refused(r, input);
  const org = createOrganization(r.mutation(), user.id, input.value);
  return cvatJson(r.c, organizationRead(r.state, org), 201);
}

/** The organization the path names, if the caller is a member (`'member'`) or holds role `min`. */
function loadOrganization(r: ApiRequest, min: OrgRole | 'member'): Result<OrganizationRec> {
  const org = r.record(r.state.organizations, 'Organization');
  return org.ok ? mayUseOrganization(r.state, r.user(), org.value, min) : org;
}

function handleRetrieveOrganization(r: ApiRequest): Response {
  const org = loadOrganization(r, 'member');
  return org.ok ? cvatJson(r.c, organizationRead(r.state, org.value)) : refused(r, org);
}

function handleUpdateOrganization(r: ApiRequest<PatchedOrganizationWriteRequest>): Response {
  const org = loadOrganization(r, 'maintainer');
  if (!org.ok) return refused(r, org);
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const patch = organizationPatch(body.value);
  if (!patch.ok) return refused(r, patch);
  updateOrganization(r.mutation(), org.value, patch.value);
  return cvatJson(r.c, organizationRead(r.state, org.value));
}

function handleDestroyOrganization(r: ApiRequest): Response {
  const org = loadOrganization(r, 'owner');
  if (!org.ok) return refused(r, org);
  deleteOrganization(r.mutation(), org.value);
  return noContent(r.c);
}

/** MembershipViewSet: the query's bounds, the organization context, then its filter backends. */
function handleListMemberships(r: ApiRequest): Response {
  const user = r.user();
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const ctx = r.orgContext();
  if (!ctx.ok) return refused(r, ctx);
  const allowed = mayListInOrganization(r.state, user, ctx.value);
  if (!allowed.ok) return refused(r, allowed);
  const listed = [...r.state.memberships.values()].filter((m) =>
    membershipListed(r.state, user, ctx.value, m),
  );
  const rows = queryList(r, listed, {
    terms: membershipTerms(r.state),
    simpleFilters: simpleFiltersOf('/api/memberships'),
    search: [(m) => username(r, m.user_id)],
    defaultOrder: '-id',
  });
  return rows.ok ? pageAnswer(r, rows.value, (m) => membershipRead(r.state, m)) : refused(r, rows);
}

/** The membership the path names, if the caller is a member of its organization. */
function loadMembership(r: ApiRequest): Result<MembershipRec> {
  const m = r.record(r.state.memberships, 'Membership');
  return m.ok ? mayViewMembership(r.state, r.user(), m.value) : m;
}

function handleRetrieveMembership(r: ApiRequest): Response {
  const m = loadMembership(r);
  return m.ok ? cvatJson(r.c, membershipRead(r.state, m.value)) : refused(r, m);
}

function handleUpdateMembership(r: ApiRequest<PatchedMembershipWriteRequest>): Response {
  const m = loadMembership(r);
  if (!m.ok) return refused(r, m);
  const allowed = mayChangeMembership(r.state, r.user(), m.value);
  if (!allowed.ok) return refused(r, allowed);
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const patch = membershipPatch(body.value);
  if (!patch.ok) return refused(r, patch);
  if (patch.value.role !== undefined) updateMembership(r.mutation(), m.value, { role: patch.value.role });
  return cvatJson(r.c, membershipRead(r.state, m.value));
}

function handleDestroyMembership(r: ApiRequest): Response {
  const m = loadMembership(r);
  if (!m.ok) return refused(r, m);
  const allowed = mayDeleteMembership(r.state, r.user(), m.value);
  if (!allowed.ok) return refused(r, allowed);
  deleteMembership(r.mutation(), m.value);
  return noContent(r.c);
}

const ORGANIZATION = byId('organizations');
const MEMBERSHIP = byId('memberships');

/** `/api/organizations`: CVAT's OrganizationViewSet (list, create, retrieve, partial update, destroy). */
const organizationRoutes: readonly RouteRow[] = [
  {
    method: 'get',
    path: '/api/organizations',
    operation: 'organizations.list',
    handle: handleListOrganizations,
  },
  withBody({
    method: 'post',
    path: '/api/organizations',
    operation: 'organizations.create',
    body: requestSchemas.OrganizationWriteRequest,
    handle: handleCreateOrganization,
  }),
  {
    method: 'get',
    path: '/api/organizations/:id',
    operation: 'organizations.retrieve',
    resource: ORGANIZATION,
    handle: handleRetrieveOrganization,
  },
  withBody({
    method: 'patch',
    path: '/api/organizations/:id',
    operation: 'organizations.partial_update',
    resource: ORGANIZATION,
    body: requestSchemas.PatchedOrganizationWriteRequest,
    handle: handleUpdateOrganization,
  }),
  {
    method: 'delete',
    path: '/api/organizations/:id',
    operation: 'organizations.destroy',
    resource: ORGANIZATION,
    handle: handleDestroyOrganization,
  },
];

/** `/api/memberships`: CVAT's MembershipViewSet (list, retrieve, partial update, destroy). */
const membershipRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/memberships', operation: 'memberships.list', handle: handleListMemberships },
  {
    method: 'get',
    path: '/api/memberships/:id',
    operation: 'memberships.retrieve',
    resource: MEMBERSHIP,
    handle: handleRetrieveMembership,
  },
  withBody({
    method: 'patch',
    path: '/api/memberships/:id',
    operation: 'memberships.partial_update',
    resource: MEMBERSHIP,
    body: requestSchemas.PatchedMembershipWriteRequest,
    handle: handleUpdateMembership,
  }),
  {
    method: 'delete',
    path: '/api/memberships/:id',
    operation: 'memberships.destroy',
    resource: MEMBERSHIP,
    handle: handleDestroyMembership,
  },
];

/** Organizations, memberships and invitations, in that order. */
export const organizationTableRoutes: readonly RouteRow[] = [
  ...organizationRoutes,
  ...membershipRoutes,
  ...invitationRoutes,
];
