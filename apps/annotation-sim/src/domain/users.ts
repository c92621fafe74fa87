/**
 * Users and their sessions: logging in and out as CVAT's dj-rest-auth views do, the URL-signing request,
 * and which form of a user a caller sees.
 */
import type { LoginRequest } from '@sims/annotation-schema/requests';
import { isAdmin } from './access';
import { formatDrfDate } from './dates';
import { fail, invalid, ok, type Result } from './errors';
import type { UserRec } from './model';
import { membershipsOfOrg } from './relations';
import { basicUser, userRead } from './serializers';
import type { AnnotationState } from './state';

/** What a login stores: the user's API token and a new session with its CSRF token. */
export interface Login {
  key: string;
  session: string;
  csrf: string;
}

/** The user a login's checked fields name, if its password matches and the account is active; else DRF's 400. */
export function loginUser(state: AnnotationState, f: LoginRequest): Result<UserRec> {
  const { username, email, password } = f;
  if (!username && !email)
    return fail(invalid({ non_field_errors: ['Must include either "username" or "email" and "password".'] }));
  const user = [...state.users.values()].find((u) =>
    username ? u.username === username : u.email === email,
  );
  if (!user || user.password !== password || !user.is_active)
    return fail(invalid({ non_field_errors: ['Unable to log in with provided credentials.'] }));
  return ok(user);
}

/**
 * Logs `user` in: DRF's `Token.objects.get_or_create` (one key per user, stable across logins), a new
 * session, and the last-login time. `hex` draws the world's seeded random hex.
 */
export function logIn(state: AnnotationState, user: UserRec, now: number, hex: (n: number) => string): Login {
  let key = [...state.tokens.entries()].find(([, id]) => id === user.id)?.[0];
  if (!key) {
    key = hex(40);
    state.tokens.set(key, user.id);
  }
  const session = hex(32);
  const csrf = hex(32);
  state.sessions.set(session, { key: session, user_id: user.id, csrf });
  user.last_login = formatDrfDate(now);
  return { key, session, csrf };
}

/** Logs a user out everywhere: their API tokens and sessions are gone. */
export function logOut(state: AnnotationState, userId: number): void {
  for (const [k, id] of state.tokens) if (id === userId) state.tokens.delete(k);
  for (const [k, s] of state.sessions) if (s.user_id === userId) state.sessions.delete(k);
}

/**
 * The URL a signing request names (`{"url": ...}`; the edge gives the text, `''` when there is none), or
 * the bare-list 400 when it names none.
 */
export function signingTarget(url: string): Result<string> {
  return url ? ok(url) : fail({ code: 'INVALID_LIST', messages: ['Please provide `url` parameter'] });
}

/** The users an organization context shows: its members (active or not); without one, everyone. */
export function usersInContext(state: AnnotationState, orgId: number | null): UserRec[] {
  const users = [...state.users.values()];
  if (orgId === null) return users;
  const members = new Set(membershipsOfOrg(state, orgId).map((m) => m.user_id));
  return users.filter((u) => members.has(u.id));
}

/** CVAT's UserViewSet: admins (and a user reading themself) get the full User, everyone else BasicUser. */
export function userFor(state: AnnotationState, me: UserRec, u: UserRec, self = false): unknown {
  return isAdmin(me) || (self && me.id === u.id) ? userRead(state, u) : basicUser(state, u.id);
}
