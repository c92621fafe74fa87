import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type {
  CommentWriteRequest,
  IssueWriteRequest,
  PatchedCommentWriteRequest,
  PatchedIssueWriteRequest,
} from '@sims/annotation-schema/requests';
import {
  commentCreation,
  commentPatch,
  createComment,
  createIssue,
  deleteComment,
  deleteIssue,
  issueCreation,
  issuePatch,
  updateComment,
  updateIssue,
} from '../../domain/issues';
import type { CommentRec, IssueRec } from '../../domain/model';
import type { MutationContext } from '../../domain/mutation';
import { commentRead, issueRead } from '../../domain/serializers';
import type { ApiRequest } from '../api';
import { byId, type RouteRow, withBody } from '../route-table';
import { simpleFiltersOf } from './filter-terms';
import {
  createResource,
  destroyResource,
  type ListSpec,
  listResources,
  retrieveResource,
  updateResource,
  username,
} from './resource-support';

const ISSUES: ListSpec<IssueRec> = {
  kind: 'issue',
  model: 'Issue',
  map: (r) => r.state.issues,
  serialize: (r, i) => issueRead(r.state, i),
  simpleFilters: simpleFiltersOf('/api/issues'),
  search: [(r, i) => username(r, i.owner_id), (r, i) => username(r, i.assignee_id)],
};

const COMMENTS: ListSpec<CommentRec> = {
  kind: 'comment',
  model: 'Comment',
  map: (r) => r.state.comments,
  serialize: (r, c) => commentRead(r.state, c),
  simpleFilters: simpleFiltersOf('/api/comments'),
  // CVAT's search_fields: the owner only (not the message).
  search: [(r, c) => username(r, c.owner_id)],
};

function handleListIssues(r: ApiRequest): Response {
  return listResources(r, ISSUES);
}

function handleCreateIssue(r: ApiRequest<IssueWriteRequest>): Response {
  const user = r.user();
  return createResource(r, ISSUES, (body) => issueCreation(r.state, user, body), createIssue);
}

function handleRetrieveIssue(r: ApiRequest): Response {
  return retrieveResource(r, ISSUES);
}

function handleUpdateIssue(r: ApiRequest<PatchedIssueWriteRequest>): Response {
  return updateResource(r, ISSUES, (body) => issuePatch(r.state, body), updateIssue);
}

function handleDestroyIssue(r: ApiRequest): Response {
  return destroyResource(r, ISSUES, deleteIssue);
}

function handleListComments(r: ApiRequest): Response {
  return listResources(r, COMMENTS);
}

function handleCreateComment(r: ApiRequest<CommentWriteRequest>): Response {
  const user = r.user();
  return createResource(r, COMMENTS, (body) => commentCreation(r.state, user, body), createComment);
}

function handleRetrieveComment(r: ApiRequest): Response {
  return retrieveResource(r, COMMENTS);
}

/** A body without `message` saves nothing: no update is emitted. */
function saveComment(ctx: MutationContext, c: CommentRec, patch: Partial<CommentRec>): void {
  if (patch.message !== undefined) updateComment(ctx, c, patch);
}

function handleUpdateComment(r: ApiRequest<PatchedCommentWriteRequest>): Response {
  return updateResource(r, COMMENTS, commentPatch, saveComment);
}

function handleDestroyComment(r: ApiRequest): Response {
  return destroyResource(r, COMMENTS, deleteComment);
}

const ISSUE = byId('issues');
const COMMENT = byId('comments');

/** `/api/issues`: CVAT's IssueViewSet (list, create, retrieve, partial update, destroy). */
export const issueRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/issues', operation: 'issues.list', handle: handleListIssues },
  withBody({
    method: 'post',
    path: '/api/issues',
    operation: 'issues.create',
    body: requestSchemas.IssueWriteRequest,
    handle: handleCreateIssue,
  }),
  {
    method: 'get',
    path: '/api/issues/:id',
    operation: 'issues.retrieve',
    resource: ISSUE,
    handle: handleRetrieveIssue,
  },
  withBody({
    method: 'patch',
    path: '/api/issues/:id',
    operation: 'issues.partial_update',
    resource: ISSUE,
    body: requestSchemas.PatchedIssueWriteRequest,
    handle: handleUpdateIssue,
  }),
  {
    method: 'delete',
    path: '/api/issues/:id',
    operation: 'issues.destroy',
    resource: ISSUE,
    handle: handleDestroyIssue,
  },
];

/** `/api/comments`: CVAT's CommentViewSet (list, create, retrieve, partial update, destroy). */
export const commentRoutes: readonly RouteRow[] = [
  { method: 'get', path: '/api/comments', operation: 'comments.list', handle: handleListComments },
  withBody({
    method: 'post',
    path: '/api/comments',
    operation: 'comments.create',
    body: requestSchemas.CommentWriteRequest,
    handle: handleCreateComment,
  }),
  {
    method: 'get',
    path: '/api/comments/:id',
    operation: 'comments.retrieve',
    resource: COMMENT,
    handle: handleRetrieveComment,
  },
  withBody({
    method: 'patch',
    path: '/api/comments/:id',
    operation: 'comments.partial_update',
    resource: COMMENT,
    body: requestSchemas.PatchedCommentWriteRequest,
    handle: handleUpdateComment,
  }),
  {
    method: 'delete',
    path: '/api/comments/:id',
    operation: 'comments.destroy',
    resource: COMMENT,
    handle: handleDestroyComment,
  },
];
