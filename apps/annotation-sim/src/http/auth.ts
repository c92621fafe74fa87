import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { ApiFailure } from '../domain/errors';
import type { UserRec } from '../domain/model';
import type { AnnotationState } from '../domain/state';
import { verifyUrlToken } from '../domain/url-signing';

export interface AuthOptions {
  /** Serve `?sign=` signed URLs (CVAT ≤ 2.45). Default false: current CVAT removed them. */
  signedUrls: boolean;
  /** Django SECRET_KEY used for signed URLs. */
  secretKey: string;
  /** Origins accepted by the CSRF origin check besides the request's own. */
  trustedOrigins: string[];
}

/** How the caller authenticated (the events API records `access_token_id` for PATs). */
export interface Authenticated {
  user: UserRec;
  scheme: 'token' | 'access_token' | 'session' | 'basic' | 'signature';
  accessTokenId?: number;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const fail = (detail: string): never => {
  throw new ApiFailure({ code: 'AUTHENTICATION_FAILED', detail });
};

function activeUser(state: AnnotationState, id: number | undefined): UserRec | undefined {
  if (id === undefined) return undefined;
  return state.users.get(id);
}

/** `Authorization: <keyword> <credentials>` parsing shared by Token and Bearer (DRF's messages). */
function keywordAuth(header: string | undefined, keyword: string): string | undefined {
  if (!header) return undefined;
  const parts = header.trim().split(/\s+/);
  if ((parts[0] ?? '').toLowerCase() !== keyword) return undefined;
  if (parts.length === 1) fail('Invalid token header. No credentials provided.');
  if (parts.length > 2) fail('Invalid token header. Token string should not contain spaces.');
  return parts[1] as string;
}

/**
 * DRF authentication as CVAT configures it, classes tried in order: Token, Bearer access token,
 * Session (+ CSRF on unsafe methods), Basic, and (compat switch) signed URLs. Returns undefined for
 * an anonymous request; throws ApiFailure 401/403 for bad credentials.
 *
 * @example const auth = authenticate(c, state, options); if (!auth) throw notAuthenticated
 */
export function authenticate(
  c: Context,
  state: AnnotationState,
  options: AuthOptions,
  now: number,
): Authenticated | undefined {
  const header = c.req.header('authorization');

  const token = keywordAuth(header, 'token');
  if (token !== undefined) {
    const user = activeUser(state, state.tokens.get(token));
    if (!user) fail('Invalid token.');
    if (!user?.is_active) fail('User inactive or deleted.');
    return { user: user as UserRec, scheme: 'token' };
  }

  const bearer = keywordAuth(header, 'bearer');
  if (bearer !== undefined) {
    const pat = state.accessTokens.get(bearer);
    const user = activeUser(state, pat?.user_id);
    if (!pat || !user || (pat.expiry_date !== null && Date.parse(pat.expiry_date) <= now))
      fail('Invalid token.');
    if (!user?.is_active) fail('User inactive or deleted.');
    // Read-only personal access tokens may only use safe methods.
    if (pat?.read_only && !SAFE.has(c.req.method)) {
      throw new ApiFailure({ code: 'PERMISSION_DENIED' });
    }
    return { user: user as UserRec, scheme: 'access_token', accessTokenId: pat?.id as number };
  }

  const sessionKey = getCookie(c, 'sessionid');
  const session = sessionKey ? state.sessions.get(sessionKey) : undefined;
  const sessionUser = activeUser(state, session?.user_id);
  if (session && sessionUser?.is_active) {
    if (!SAFE.has(c.req.method)) enforceCsrf(c, options);
    return { user: sessionUser, scheme: 'session' };
  }

  if (header && (header.trim().split(/\s+/)[0] ?? '').toLowerCase() === 'basic') {
    const parts = header.trim().split(/\s+/);
    if (parts.length === 1) fail('Invalid basic header. No credentials provided.');
    if (parts.length > 2) fail('Invalid basic header. Credentials string should not contain spaces.');
    const decoded = Buffer.from(parts[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) fail('Invalid basic header. Credentials not correctly base64 encoded.');
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const user = [...state.users.values()].find((u) => u.username === username);
    if (!user || user.password !== password) fail('Invalid username/password.');
    if (!user?.is_active) fail('User inactive or deleted.');
    return { user: user as UserRec, scheme: 'basic' };
  }

  if (options.signedUrls) {
    const sign = new URL(c.req.url).searchParams.get('sign');
    if (sign) {
      const result = verifyUrlToken(sign, c.req.url, options.secretKey, now);
      if (!result.ok) fail(result.reason === 'expired' ? 'This URL has expired.' : 'Invalid signature.');
      const r = result as { userId: number; username: string };
      const user = state.users.get(r.userId);
      if (!user || user.username !== r.username) fail('Invalid signature.');
      if (!user?.is_active) fail('User inactive or deleted.');
      return { user: user as UserRec, scheme: 'signature' };
    }
  }
  return undefined;
}

/** Django's CsrfViewMiddleware checks, in its order, with its messages (DRF prefixes "CSRF Failed: "). */
function enforceCsrf(c: Context, options: AuthOptions): void {
  const deny = (reason: string): never => {
    throw new ApiFailure({ code: 'PERMISSION_DENIED', detail: `CSRF Failed: ${reason}` });
  };
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    const url = new URL(c.req.url);
    const host = c.req.header('host') ?? url.host;
    const good = `${url.protocol}//${host}`;
    if (origin !== good && !options.trustedOrigins.includes(origin)) {
      deny(`Origin checking failed - ${origin} does not match any trusted origins.`);
    }
  }
  const cookie = getCookie(c, 'csrftoken');
  if (!cookie) deny('CSRF cookie not set.');
  const given = c.req.header('x-csrftoken') ?? '';
  if (given === '') deny('CSRF token missing.');
  const source = "the 'X-Csrftoken' HTTP header";
  if (given.length !== 32 && given.length !== 64) deny(`CSRF token from ${source} has incorrect length.`);
  if (!/^[a-zA-Z0-9]+$/.test(given)) deny(`CSRF token from ${source} has invalid characters.`);
  if (given !== cookie) deny(`CSRF token from ${source} incorrect.`);
}

/** The authenticated user, or ApiFailure 401 "Authentication credentials were not provided.". */
export function requireAuth(
  c: Context,
  state: AnnotationState,
  options: AuthOptions,
  now: number,
): Authenticated {
  const auth = authenticate(c, state, options, now);
  if (!auth) throw new ApiFailure({ code: 'NOT_AUTHENTICATED' });
  return auth;
}
