import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type {
  AccessTokenWriteRequest,
  PatchedAccessTokenWriteRequest,
} from '@sims/annotation-schema/requests';
import {
  createAccessToken,
  findOwnToken,
  tokenInUse,
  tokenRead,
  tokensOf,
  updateAccessToken,
} from '../../domain/access-tokens';
import type { Result } from '../../domain/errors';
import type { AccessTokenRec } from '../../domain/model';
import type { ApiRequest } from '../api';
import { pageAnswer } from '../pagination';
import { cvatJson, noContent } from '../respond';
import { type RouteRow, refused, withBody } from '../route-table';

/** The caller's token the path's `:id` names: 404 for an id DRF would not route or another's token. */
function loadToken(r: ApiRequest): Result<AccessTokenRec> {
  const id = r.idParam('id');
  return id.ok ? findOwnToken(r.state, r.user().id, id.value) : id;
}

/** The caller's tokens, newest first. */
function handleListTokens(r: ApiRequest): Response {
  const tokens = tokensOf(r.state, r.user().id).sort((a, b) => b.id - a.id);
  return pageAnswer(r, tokens, (t) => tokenRead(r.state, t));
}

/** A new token, answered once with its raw value. */
function handleCreateToken(r: ApiRequest<AccessTokenWriteRequest>): Response {
  const user = r.user();
  const fields = r.body();
  if (!fields.ok) return refused(r, fields);
  const created = createAccessToken(r.state, r.now, (n) => r.world.ids.hex(n), user.id, fields.value);
  if (!created.ok) return refused(r, created);
  return cvatJson(r.c, tokenRead(r.state, created.value.token, created.value.value), 201);
}

/** The token the request authenticated with (404 for other credentials). */
function handleRetrieveSelfToken(r: ApiRequest): Response {
  const auth = r.auth();
  const t = tokenInUse(r.state, auth.scheme, auth.accessTokenId);
  return t.ok ? cvatJson(r.c, tokenRead(r.state, t.value)) : refused(r, t);
}

function handleRetrieveToken(r: ApiRequest): Response {
  const t = loadToken(r);
  return t.ok ? cvatJson(r.c, tokenRead(r.state, t.value)) : refused(r, t);
}

function handleUpdateToken(r: ApiRequest<PatchedAccessTokenWriteRequest>): Response {
  const t = loadToken(r);
  if (!t.ok) return refused(r, t);
  const fields = r.body();
  if (!fields.ok) return refused(r, fields);
  const updated = updateAccessToken(t.value, fields.value, r.now);
  return updated.ok ? cvatJson(r.c, tokenRead(r.state, updated.value)) : refused(r, updated);
}

function handleDestroyToken(r: ApiRequest): Response {
  const t = loadToken(r);
  if (!t.ok) return refused(r, t);
  r.state.accessTokens.delete(t.value.key);
  return noContent(r.c);
}

/** `/api/auth/access_tokens`: personal access tokens, the caller's own only. */
export const accessTokenRoutes: readonly RouteRow[] = [
  {
    method: 'get',
    path: '/api/auth/access_tokens',
    operation: 'auth.list_access_tokens',
    handle: handleListTokens,
  },
  withBody({
    method: 'post',
    path: '/api/auth/access_tokens',
    operation: 'auth.create_access_tokens',
    body: requestSchemas.AccessTokenWriteRequest,
    handle: handleCreateToken,
  }),
  {
    method: 'get',
    path: '/api/auth/access_tokens/self',
    operation: 'auth.retrieve_access_tokens_self',
    handle: handleRetrieveSelfToken,
  },
  {
    method: 'get',
    path: '/api/auth/access_tokens/:id',
    operation: 'auth.retrieve_access_tokens',
    handle: handleRetrieveToken,
  },
  withBody({
    method: 'patch',
    path: '/api/auth/access_tokens/:id',
    operation: 'auth.partial_update_access_tokens',
    body: requestSchemas.PatchedAccessTokenWriteRequest,
    handle: handleUpdateToken,
  }),
  {
    method: 'delete',
    path: '/api/auth/access_tokens/:id',
    operation: 'auth.destroy_access_tokens',
    handle: handleDestroyToken,
  },
];
