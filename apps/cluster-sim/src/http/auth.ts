import { compileGlob, type GlobMatcher } from '@sims/sim-core';
import { fail, ok, type Result } from '../domain/errors';
import type { AuthSettings, Principal } from '../domain/state';
import type { HttpError } from './errors';

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The OAuth scopes each API's methods list in its discovery document (`@googleapis/container` 26.0.0,
 * `@googleapis/compute` 42.0.0): every method takes `cloud-platform` and the API's own scope, a read
 * also the API's read-only one. Neither lists `cloud-platform.read-only`, so the front end refuses it.
 */
const API_SCOPES = {
  container: {
    any: [CLOUD_PLATFORM_SCOPE, 'https://www.googleapis.com/auth/container'],
    read: 'https://www.googleapis.com/auth/container.read-only',
  },
  compute: {
    any: [CLOUD_PLATFORM_SCOPE, 'https://www.googleapis.com/auth/compute'],
    read: 'https://www.googleapis.com/auth/compute.readonly',
  },
} as const;

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
  /** Whose scopes the method lists: the container API's (the default) or Compute Engine's. */
  api?: keyof typeof API_SCOPES;
}

/** A permission entry (`permission` or `permission@resource`, each a glob) compiled. */
interface PermissionMatcher {
  permission: GlobMatcher;
  resource: GlobMatcher;
}

interface CompiledPrincipal {
  permissions: PermissionMatcher[];
  denied: PermissionMatcher[];
}

/**
 * Where an AuthSettings object keeps its principals compiled: a non-enumerable property, so that
 * `GET /_sim/settings`, snapshots, spreads and clones never see it. Settings are replaced, never
 * changed in place, so a settings object's principals are compiled once, at their first request.
 */
const COMPILED = Symbol('compiled principals');

type WithCompiled = AuthSettings & { [COMPILED]?: ReadonlyMap<string, CompiledPrincipal> };

function compileEntry(entry: string): PermissionMatcher {
  const at = entry.indexOf('@');
  return {
    permission: compileGlob(at === -1 ? entry : entry.slice(0, at)),
    resource: compileGlob(at === -1 ? '**' : entry.slice(at + 1)),
  };
}

function compilePrincipal(principal: Principal): CompiledPrincipal {
  return {
    permissions: (principal.permissions ?? ['*']).map(compileEntry),
    denied: (principal.deniedPermissions ?? []).map(compileEntry),
  };
}

function compiledPrincipals(settings: WithCompiled): ReadonlyMap<string, CompiledPrincipal> {
  const held = settings[COMPILED];
  if (held) return held;
  const compiled = new Map(
    Object.entries(settings.principals).map(([token, p]) => [token, compilePrincipal(p)]),
  );
  if (Object.isExtensible(settings)) Object.defineProperty(settings, COMPILED, { value: compiled });
  return compiled;
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
  const listed = API_SCOPES[check.api ?? 'container'];
  const scoped =
    listed.any.some((scope) => scopes.includes(scope)) || (check.readOnly && scopes.includes(listed.read));
  if (!scoped) return fail({ code: 'SCOPE_INSUFFICIENT' });
  // A principal added in place after the settings' first request is compiled for this request alone.
  const compiled = compiledPrincipals(settings).get(token) ?? compilePrincipal(principal);
  const matches = (m: PermissionMatcher) => m.permission(check.permission) && m.resource(check.resource);
  const allowed = compiled.permissions.some(matches) && !compiled.denied.some(matches);
  return allowed
    ? ok(token)
    : fail({ code: 'PERMISSION_DENIED', permission: check.permission, resource: check.resource });
}
