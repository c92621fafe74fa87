import { setCookie } from 'hono/cookie';
import { isAdmin } from '../../domain/access';
import { formatDrfDate } from '../../domain/dates';
import { ApiFailure } from '../../domain/errors';
import type { UserRec } from '../../domain/model';
import { basicUser, userRead } from '../../domain/serializers';
import { signUrlToken } from '../../domain/url-signing';
import { validateFields } from '../../domain/validate';
import { api } from '../api';
import type { AppDeps, Kernel } from '../deps';
import { paginate, searchFilter, sortBy } from '../pagination';
import { cvatJson } from '../respond';

export function registerAuthAndUserRoutes(kernel: Kernel, deps: AppDeps): void {
  const { app, operation } = kernel;

  app.post(
    '/api/auth/login',
    operation('auth.create_login'),
    api(
      deps,
      (r) => {
        const v = validateFields(r.body(), {
          username: { kind: 'string', allowBlank: true },
          email: { kind: 'string', allowBlank: true },
          password: { kind: 'string', required: true },
        });
        if (!v.ok) throw new ApiFailure({ code: 'INVALID', errors: v.errors });
        const { username, email, password } = v.value as {
          username?: string;
          email?: string;
          password: string;
        };
        const user = [...r.state.users.values()].find((u) =>
          username ? u.username === username : email ? u.email === email : false,
        );
        if (!username && !email)
          throw new ApiFailure({
            code: 'INVALID',
            errors: { non_field_errors: ['Must include either "username" or "email" and "password".'] },
          });
        if (!user || user.password !== password || !user.is_active) {
          throw new ApiFailure({
            code: 'INVALID',
            errors: { non_field_errors: ['Unable to log in with provided credentials.'] },
          });
        }
        // DRF's Token.objects.get_or_create: one key per user, stable across logins.
        let key = [...r.state.tokens.entries()].find(([, id]) => id === user.id)?.[0];
        if (!key) {
          key = r.world.ids.hex(40);
          r.state.tokens.set(key, user.id);
        }
        const session = r.world.ids.hex(32);
        const csrf = r.world.ids.hex(32);
        r.state.sessions.set(session, { key: session, user_id: user.id, csrf });
        user.last_login = formatDrfDate(r.now);
        const res = cvatJson(r.c, { key });
        res.headers.append('Set-Cookie', `csrftoken=${csrf}; Max-Age=31449600; Path=/; SameSite=Lax`);
        res.headers.append(
          'Set-Cookie',
          `sessionid=${session}; HttpOnly; Max-Age=1209600; Path=/; SameSite=Lax`,
        );
        return res;
      },
      { anonymous: true },
    ),
  );

  app.post(
    '/api/auth/logout',
    operation('auth.create_logout'),
    api(
      deps,
      (r) => {
        const auth = r.optionalAuth();
        if (auth) {
          for (const [k, id] of r.state.tokens) if (id === auth.user.id) r.state.tokens.delete(k);
          for (const [k, s] of r.state.sessions) if (s.user_id === auth.user.id) r.state.sessions.delete(k);
        }
        const res = cvatJson(r.c, { detail: 'Successfully logged out.' });
        setCookie(r.c, 'sessionid', '', { maxAge: 0, path: '/' });
        return res;
      },
      { anonymous: true },
    ),
  );

  if (deps.auth.signedUrls) {
    // CVAT ≤ 2.45: POST /api/auth/signing {"url": ...} → the URL with ?sign= (valid 30 s).
    app.post(
      '/api/auth/signing',
      operation('auth.create_signing'),
      api(deps, (r) => {
        const user = r.user();
        const body = r.body() as Record<string, unknown>;
        const target = typeof body?.url === 'string' ? body.url : '';
        if (!target)
          throw new ApiFailure({ code: 'INVALID_LIST', messages: ['Please provide `url` parameter'] });
        const absolute = new URL(target, r.state.baseUrl).toString();
        const sign = signUrlToken(user, absolute, deps.auth.secretKey, r.now);
        const u = new URL(absolute);
        u.searchParams.append('sign', sign);
        return cvatJson(r.c, u.toString());
      }),
    );
  }

  app.get(
    '/api/users/self',
    operation('users.retrieve_self'),
    api(deps, (r) => cvatJson(r.c, userRead(r.state, r.user()))),
  );

  app.get(
    '/api/users',
    operation('users.list'),
    api(deps, (r) => {
      const me = r.user();
      const ctx = r.orgContext();
      let users = [...r.state.users.values()];
      if (ctx.org) {
        const orgId = ctx.org.id;
        users = users.filter((u) =>
          [...r.state.memberships.values()].some((m) => m.user_id === u.id && m.organization_id === orgId),
        );
      }
      users = searchFilter(users, r.query('search'), [
        (u) => u.username,
        (u) => u.first_name,
        (u) => u.last_name,
      ]);
      const username = r.query('username');
      if (username) users = users.filter((u) => u.username === username);
      users = sortBy(
        users,
        r.query('sort'),
        { id: (u: UserRec) => u.id, username: (u: UserRec) => u.username },
        'id',
      );
      // CVAT's UserViewSet: staff get the full User, everyone else BasicUser.
      return cvatJson(
        r.c,
        paginate(r, users, (u) => (isAdmin(me) ? userRead(r.state, u) : basicUser(r.state, u.id))),
      );
    }),
  );

  app.get(
    '/api/users/:id',
    operation('users.retrieve', (c) => `users/${c.req.param('id')}`),
    api(deps, (r) => {
      const me = r.user();
      const u = r.get(r.state.users, r.intParam('id'), 'User');
      return cvatJson(r.c, isAdmin(me) || me.id === u.id ? userRead(r.state, u) : basicUser(r.state, u.id));
    }),
  );
}
