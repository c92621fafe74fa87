import { requestSchemas } from '@sims/annotation-schema/request-schemas';
import type { LoginRequest } from '@sims/annotation-schema/requests';
import { isPlainObject } from '@sims/sim-core';
import { setCookie } from 'hono/cookie';
import { userRead } from '../../domain/serializers';
import { signUrlToken } from '../../domain/url-signing';
import { logIn, loginUser, logOut, signingTarget, userFor, usersInContext } from '../../domain/users';
import type { ApiRequest, RouteDeps } from '../api';
import { checkListQuery, pageAnswer } from '../pagination';
import { cvatJson } from '../respond';
import { byId, type RouteRow, refused, withBody } from '../route-table';
import { simpleFiltersOf, userTerms } from './filter-terms';
import { queryList } from './list-query';

/** Answers the API token and sets the session and CSRF cookies Django's login sets. */
function handleLogin(r: ApiRequest<LoginRequest>): Response {
  const body = r.body();
  if (!body.ok) return refused(r, body);
  const user = loginUser(r.state, body.value);
  if (!user.ok) return refused(r, user);
  const { key, session, csrf } = logIn(r.state, user.value, r.now, (n) => r.world.ids.hex(n));
  const res = cvatJson(r.c, { key });
  res.headers.append('Set-Cookie', `csrftoken=${csrf}; Max-Age=31449600; Path=/; SameSite=Lax`);
  res.headers.append('Set-Cookie', `sessionid=${session}; HttpOnly; Max-Age=1209600; Path=/; SameSite=Lax`);
  return res;
}

/** Anyone may log out; a caller with credentials loses their tokens and sessions. */
function handleLogout(r: ApiRequest): Response {
  const auth = r.optionalAuth();
  if (!auth.ok) return refused(r, auth);
  if (auth.value) logOut(r.state, auth.value.user.id);
  const res = cvatJson(r.c, { detail: 'Successfully logged out.' });
  setCookie(r.c, 'sessionid', '', { maxAge: 0, path: '/' });
  return res;
}

/**
 * CVAT ≤ 2.45: `{"url": ...}` answered with the absolute URL plus `?sign=` (valid 30 s). The view reads
 * `request.data.get('url')` with no serializer: anything but a string is no URL.
 */
function handleSigning(r: ApiRequest): Response {
  const user = r.user();
  const body = r.parsedBody();
  if (!body.ok) return refused(r, body);
  const url = isPlainObject(body.value) ? body.value.url : undefined;
  const target = signingTarget(typeof url === 'string' ? url : '');
  if (!target.ok) return refused(r, target);
  const absolute = new URL(target.value, r.state.baseUrl).toString();
  const sign = signUrlToken(user, absolute, r.deps.auth.secretKey, r.now);
  const u = new URL(absolute);
  u.searchParams.append('sign', sign);
  return cvatJson(r.c, u.toString());
}

function handleRetrieveSelf(r: ApiRequest): Response {
  return cvatJson(r.c, userRead(r.state, r.user()));
}

/** UserViewSet: the query's bounds, the organization context, then its filter backends. */
function handleListUsers(r: ApiRequest): Response {
  const me = r.user();
  const bounded = checkListQuery(r);
  if (!bounded.ok) return refused(r, bounded);
  const ctx = r.orgContext();
  if (!ctx.ok) return refused(r, ctx);
  const users = queryList(r, usersInContext(r.state, ctx.value.org?.id ?? null), {
    terms: userTerms(r.state),
    simpleFilters: simpleFiltersOf('/api/users'),
    search: [(u) => u.username, (u) => u.first_name, (u) => u.last_name],
    defaultOrder: '-id',
  });
  return users.ok ? pageAnswer(r, users.value, (u) => userFor(r.state, me, u)) : refused(r, users);
}

function handleRetrieveUser(r: ApiRequest): Response {
  const me = r.user();
  const u = r.record(r.state.users, 'User');
  return u.ok ? cvatJson(r.c, userFor(r.state, me, u.value, true)) : refused(r, u);
}

/** `/api/auth` (login, logout, URL signing when `signedUrls`) and `/api/users`. */
export function authAndUserRoutes(deps: RouteDeps): readonly RouteRow[] {
  return [
    withBody({
      method: 'post',
      path: '/api/auth/login',
      operation: 'auth.create_login',
      body: requestSchemas.LoginRequest,
      handle: handleLogin,
      anonymous: true,
    }),
    {
      method: 'post',
      path: '/api/auth/logout',
      operation: 'auth.create_logout',
      handle: handleLogout,
      anonymous: true,
    },
    ...(deps.auth.signedUrls
      ? [
          {
            method: 'post',
            path: '/api/auth/signing',
            operation: 'auth.create_signing',
            handle: handleSigning,
          } as const,
        ]
      : []),
    { method: 'get', path: '/api/users/self', operation: 'users.retrieve_self', handle: handleRetrieveSelf },
    { method: 'get', path: '/api/users', operation: 'users.list', handle: handleListUsers },
    {
      method: 'get',
      path: '/api/users/:id',
      operation: 'users.retrieve',
      resource: byId('users'),
      handle: handleRetrieveUser,
    },
  ];
}
