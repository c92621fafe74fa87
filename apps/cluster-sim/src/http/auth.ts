import { globMatch } from '@sims/sim-core';
import { fail, ok, type Result } from '../domain/errors';
import type { AuthSettings } from '../domain/state';
import type { HttpError } from './errors';

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const CONTAINER_SCOPE = 'https://www.googleapis.com/auth/container';
const READ_ONLY_SCOPE = 'https://www.googleapis.com/auth/container.read-only';

export interface Credentials {
  authorization?: string;
  /** `?access_token=` (a Google system parameter). */
  accessToken?: string;
  /** `?key=` (an API key, which this API does not accept as a principal). */
  apiKey?: string;
}

export interface AuthCheck {
  permission: string;
  /** The resource the permission is checked on, as the error message names it. */
  resource: string;
  readOnly: boolean;
}

/**
 * Authenticates and authorises a request. By default any Bearer token is a principal with the
 * cloud-platform scope and every permission; configured principals narrow scopes and permissions;
 * configured rejected tokens answer 401.
 */
export function authorize(
  creds: Credentials,
  check: AuthCheck,
  settings: AuthSettings,
): Result<string, HttpError> {
  let token: string | undefined;
  if (creds.authorization !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(creds.authorization);
    if (!m) return fail({ code: 'CREDENTIALS_INVALID', reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED' });
    token = m[1] as string;
  } else if (creds.accessToken) token = creds.accessToken;
  if (token === undefined) return fail({ code: 'CREDENTIALS_MISSING', apiKey: creds.apiKey !== undefined });
  // Own entries only: a token named `toString` or `__proto__` is a token like any other.
  const rejected = Object.hasOwn(settings.rejectedTokens, token) ? settings.rejectedTokens[token] : undefined;
  if (rejected) return fail({ code: 'CREDENTIALS_INVALID', reason: rejected });
  const principal = Object.hasOwn(settings.principals, token) ? settings.principals[token] : undefined;
  if (!principal) {
    return settings.denyUnknownTokens
      ? fail({ code: 'CREDENTIALS_INVALID', reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED' })
      : ok(token);
  }
  const scopes = principal.scopes ?? [CLOUD_PLATFORM_SCOPE];
  const scoped =
    scopes.includes(CLOUD_PLATFORM_SCOPE) ||
    scopes.includes(CONTAINER_SCOPE) ||
    (check.readOnly && scopes.includes(READ_ONLY_SCOPE));
  if (!scoped) return fail({ code: 'SCOPE_INSUFFICIENT' });
  const matches = (entry: string) => {
    const at = entry.indexOf('@');
    const permission = at === -1 ? entry : entry.slice(0, at);
    const resource = at === -1 ? '**' : entry.slice(at + 1);
    return globMatch(permission, check.permission) && globMatch(resource, check.resource);
  };
  const allowed =
    (principal.permissions ?? ['*']).some(matches) && !(principal.deniedPermissions ?? []).some(matches);
  return allowed
    ? ok(token)
    : fail({ code: 'PERMISSION_DENIED', permission: check.permission, resource: check.resource });
}
