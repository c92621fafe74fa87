import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { type ApiError, fail, ok, type Result } from '../domain/errors';
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
/** DRF's `AuthenticationFailed(detail)`: 401. */
const failed = (detail: string): Result<never> => fail({ code: 'AUTHENTICATION_FAILED', detail });

function activeUser(state: AnnotationState, id: number | undefined): UserRec | undefined {
  if (id === undefined) return undefined;
  return state.users.get(id);
}

/**
 * `Authorization: <keyword> <credentials>` parsing shared by Token and Bearer (DRF's messages): the
 * credentials, undefined for another keyword, or the 401 for a malformed header.
 */
function keywordAuth(header: string | undefined, keyword: string): Result<string | undefined> {
  if (!header) return ok(undefined);
  const parts = header.trim().split(/\s+/);
  if ((parts[0] ?? '').toLowerCase() !== keyword) return ok(undefined);
  if (parts.length === 1) return failed('Invalid token header. No credentials provided.');
  if (parts.length > 2) return failed('Invalid token header. Token string should not contain spaces.');
  return ok(parts[1] as string);
}

/**
 * DRF authentication as CVAT configures it, classes tried in order: Token, Bearer access token,
 * Session (+ CSRF on unsafe methods), Basic, and (compat switch) signed URLs. Gives undefined for
 * an anonymous request, or the 401/403 for bad credentials.
 *
 * @example const auth = authenticate(c, state, options, now); if (!auth.ok) return renderApiError(c, auth.error)
 */
export function authenticate(
  c: Context,
  state: AnnotationState,
  options: AuthOptions,
  now: number,
): Result<Authenticated | undefined> {
  const header = c.req.header('authorization');

  const token = keywordAuth(header, 'token');
  if (!token.ok) return token;
  if (token.value !== undefined) {
    const user = activeUser(state, state.tokens.get(token.value));
    if (!user) return failed('Invalid token.');
    if (!user.is_active) return failed('User inactive or deleted.');
    return ok({ user, scheme: 'token' });
  }

  const bearer = keywordAuth(header, 'bearer');
  if (!bearer.ok) return bearer;
  if (bearer.value !== undefined) {
    const pat = state.accessTokens.get(bearer.value);
    const user = activeUser(state, pat?.user_id);
    if (!pat || !user || (pat.expiry_date !== null && Date.parse(pat.expiry_date) <= now))
      return failed('Invalid token.');
    if (!user.is_active) return failed('User inactive or deleted.');
    // Read-only personal access tokens may only use safe methods.
    if (pat.read_only && !SAFE.has(c.req.method)) return fail({ code: 'PERMISSION_DENIED' });
    return ok({ user, scheme: 'access_token', accessTokenId: pat.id });
  }

  const sessionKey = getCookie(c, 'sessionid');
  const session = sessionKey ? state.sessions.get(sessionKey) : undefined;
  const sessionUser = activeUser(state, session?.user_id);
  if (session && sessionUser?.is_active) {
    if (!SAFE.has(c.req.method)) {
      const refused = csrfRefusal(c, options);
      if (refused !== undefined) return fail(refused);
    }
    return ok({ user: sessionUser, scheme: 'session' });
  }

  if (header && (header.trim().split(/\s+/)[0] ?? '').toLowerCase() === 'basic') {
    const parts = header.trim().split(/\s+/);
    if (parts.length === 1) return failed('Invalid basic header. No credentials provided.');
    if (parts.length > 2)
      return failed('Invalid basic header. Credentials string should not contain spaces.');
    const decoded = Buffer.from(parts[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return failed('Invalid basic header. Credentials not correctly base64 encoded.');
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const user = [...state.users.values()].find((u) => u.username === username);
    if (!user || user.password !== password) return failed('Invalid username/password.');
    if (!user.is_active) return failed('User inactive or deleted.');
    return ok({ user, scheme: 'basic' });
  }

  if (options.signedUrls) {
    const sign = new URL(c.req.url).searchParams.get('sign');
    if (sign) {
      const result = verifyUrlToken(sign, c.req.url, options.secretKey, now);
      if (!result.ok)
        return failed(result.reason === 'expired' ? 'This URL has expired.' : 'Invalid signature.');
      const user = state.users.get(result.userId);
      if (!user || user.username !== result.username) return failed('Invalid signature.');
      if (!user.is_active) return failed('User inactive or deleted.');
      return ok({ user, scheme: 'signature' });
    }
  }
  return ok(undefined);
}

/**
 * Django's CsrfViewMiddleware checks, in its order, with its messages (DRF prefixes "CSRF Failed: "):
 * the 403 of the first that fails, or undefined when the request passes.
 */
function csrfRefusal(c: Context, options: AuthOptions): ApiError | undefined {
  const deny = (reason: string): ApiError => ({
    code: 'PERMISSION_DENIED',
    detail: `CSRF Failed: ${reason}`,
  });
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    const url = new URL(c.req.url);
    const host = c.req.header('host') ?? url.host;
    const good = `${url.protocol}//${host}`;
    if (origin !== good && !options.trustedOrigins.includes(origin)) {
      return deny(`Origin checking failed - ${origin} does not match any trusted origins.`);
    }
  }
  const cookie = getCookie(c, 'csrftoken');
  if (!cookie) return deny('CSRF cookie not set.');
  const given = c.req.header('x-csrftoken') ?? '';
  if (given === '') return deny('CSRF token missing.');
  const source = "the 'X-Csrftoken' HTTP header";
  if (given.length !== 32 && given.length !== 64)
    return deny(`CSRF token from ${source} has incorrect length.`);
  if (!/^[a-zA-Z0-9]+$/.test(given)) return deny(`CSRF token from ${source} has invalid characters.`);
  if (given !== cookie) return deny(`CSRF token from ${source} incorrect.`);
  return undefined;
}
