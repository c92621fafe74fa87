import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type { InvitationWriteRequest } from '@sims/annotation-schema/requests';
import type { Context } from 'hono';
import type { Result } from '../../domain/errors';
import {
  acceptInvitation,
  deleteInvitation,
  findInvitation,
  invitationListed,
  invitationRequest,
  invite,
  mayAnswerInvitation,
  mayInvite,
  mayRevokeInvitation,
  mayViewInvitation,
} from '../../domain/invitations';
import type { InvitationRec, UserRec } from '../../domain/model';
import { mayListInOrganization } from '../../domain/organizations';
import { invitationRead } from '../../domain/serializers';
import type { AnnotationState } from '../../domain/state';
import type { ApiRequest } from '../api';
import { columnOf, orderingOf } from '../json-logic-columns';
import { checkListQuery, pageAnswer } from '../pagination';
import { cvatJson, noContent } from '../respond';
import { type RouteRow, refused, withBody } from '../route-table';
import { invitationTerms, simpleFiltersOf } from './filter-terms';
import { queryList } from './list-query';
import { username } from './resource-support';

/**
 * InvitationViewSet: the query's bounds, the organization context, then its filter backends. Its
 * `ordering_fields` are its terms and `created_date`, not `id`.
 */
function handleListInvitations(r: ApiRequest): Response {
  const user = r.user();
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const ctx = r.orgContext();
  if (!ctx.ok) return refused(r, ctx);
  const allowed = mayListInOrganization(r.state, user, ctx.value);
  if (!allowed.ok) return refused(r, allowed);
  const listed = [...r.state.invitations.values()].filter((i) =>
    invitationListed(r.state, user, ctx.value, i),
  );
  const terms = invitationTerms(r.state);
  const rows = queryList(r, listed, {
    terms,
    simpleFilters: simpleFiltersOf('/api/invitations'),
    search: [(i) => username(r, i.owner_id)],
    ordering: {
      ...orderingOf(terms),
      created_date: columnOf<InvitationRec>({ type: 'datetime', get: (i) => i.created_date }).read,
    },
    defaultOrder: '-created_date',
  });
  return rows.ok ? pageAnswer(r, rows.value, (i) => invitationRead(r.state, i, r.now)) : refused(r, rows);
}

function handleCreateInvitation(r: ApiRequest<InvitationWriteRequest>): Response {
  const user = r.user();
  const ctx = r.orgContext();
  if (!ctx.ok) return refused(r, ctx);
  const org = mayInvite(r.state, user, ctx.value);
  if (!org.ok) return refused(r, org);
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const input = invitationRequest(r.state, user, org.value, body.value);
  if (!input.ok) return refused(r, input);
  const inv = invite(r.mutation(), org.value, user.id, input.value);
  return inv.ok ? cvatJson(r.c, invitationRead(r.state, inv.value, r.now), 201) : refused(r, inv);
}

/** The invitation the path's `:key` names, if `decide` lets the caller act on it: 404 before 403. */
function loadInvitation(
  r: ApiRequest,
  decide: (state: AnnotationState, user: UserRec, inv: InvitationRec) => Result<InvitationRec>,
): Result<InvitationRec> {
  const inv = findInvitation(r.state, r.c.req.param('key') ?? '');
  return inv.ok ? decide(r.state, r.user(), inv.value) : inv;
}

function handleRetrieveInvitation(r: ApiRequest): Response {
  const inv = loadInvitation(r, mayViewInvitation);
  return inv.ok ? cvatJson(r.c, invitationRead(r.state, inv.value, r.now)) : refused(r, inv);
}

function handleDestroyInvitation(r: ApiRequest): Response {
  const inv = loadInvitation(r, mayRevokeInvitation);
  if (!inv.ok) return refused(r, inv);
  deleteInvitation(r.mutation(), inv.value);
  return noContent(r.c);
}

/** Accepting activates the membership and answers the slug of the organization joined. */
function handleAcceptInvitation(r: ApiRequest): Response {
  const inv = loadInvitation(r, mayAnswerInvitation);
  if (!inv.ok) return refused(r, inv);
  const org = acceptInvitation(r.mutation(), inv.value);
  return cvatJson(r.c, { organization_slug: org?.slug ?? '' });
}

/** Declining removes the invitation and its inactive membership. */
function handleDeclineInvitation(r: ApiRequest): Response {
  const inv = loadInvitation(r, mayAnswerInvitation);
  if (!inv.ok) return refused(r, inv);
  deleteInvitation(r.mutation(), inv.value);
  return noContent(r.c);
}

const INVITATION = (c: Context): string => `invitations/${c.req.param('key')}`;

/** `/api/invitations`: CVAT's InvitationViewSet (list, create, retrieve, destroy, accept, decline). */
export const invitationRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/invitations', operation: 'invitations.list', handle: handleListInvitations },
  withBody({
    method: 'post',
    path: '/api/invitations',
    operation: 'invitations.create',
    body: requestSchemas.InvitationWriteRequest,
    handle: handleCreateInvitation,
  }),
  {
    method: 'get',
    path: '/api/invitations/:key',
    operation: 'invitations.retrieve',
    resource: INVITATION,
    handle: handleRetrieveInvitation,
  },
  {
    method: 'delete',
    path: '/api/invitations/:key',
    operation: 'invitations.destroy',
    resource: INVITATION,
    handle: handleDestroyInvitation,
  },
  {
    method: 'post',
    path: '/api/invitations/:key/accept',
    operation: 'invitations.accept',
    resource: INVITATION,
    handle: handleAcceptInvitation,
  },
  {
    method: 'post',
    path: '/api/invitations/:key/decline',
    operation: 'invitations.decline',
    resource: INVITATION,
    handle: handleDeclineInvitation,
  },
];
