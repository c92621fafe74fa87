/**
 * Personal access tokens (CVAT ≥ 2.48): a user sees and changes only their own. What a create or
 * partial update may carry, the writes that store them, and their serialized form.
 */
import type {
  AccessTokenWriteRequest,
  PatchedAccessTokenWriteRequest,
} from '@sims/annotation-schema/requests';
import { formatDrfDate } from './dates';
import { fail, invalid, notFound, ok, type Result } from './errors';
import { parseIsoDateTime } from './events/time';
import type { AccessTokenRec } from './model';
import { basicUser } from './serializers';
import { type AnnotationState, nextId } from './state';

const WRONG_DATETIME =
  'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

/** A token as the API answers it; `value` (the raw key) only in the create call's answer. */
export function tokenRead(
  state: AnnotationState,
  t: AccessTokenRec,
  value?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id,
    name: t.name,
    created_date: t.created_date ?? formatDrfDate(0),
    updated_date: t.updated_date ?? t.created_date ?? formatDrfDate(0),
    expiry_date: t.expiry_date,
    last_used_date: null,
    read_only: t.read_only,
    owner: basicUser(state, t.user_id),
  };
  if (value !== undefined) out.value = value;
  return out;
}

/** The user's tokens, in table order. */
export function tokensOf(state: AnnotationState, userId: number): AccessTokenRec[] {
  return [...state.accessTokens.values()].filter((t) => t.user_id === userId);
}

/** One of the user's tokens by id; another's is as unknown as a missing one (404). */
export function findOwnToken(state: AnnotationState, userId: number, id: number): Result<AccessTokenRec> {
  const t = tokensOf(state, userId).find((x) => x.id === id);
  return t ? ok(t) : fail(notFound('AccessToken'));
}

/** The token a request authenticated with, or 404 "Not found." for any other kind of credentials. */
export function tokenInUse(
  state: AnnotationState,
  scheme: string,
  accessTokenId: number | undefined,
): Result<AccessTokenRec> {
  const t = [...state.accessTokens.values()].find((x) => x.id === accessTokenId);
  return scheme === 'access_token' && t ? ok(t) : fail({ code: 'NOT_FOUND', detail: 'Not found.' });
}

/** An `expiry_date` as stored (absent and null as they are), or DRF's datetime error. */
function expiryOf(v: string | null | undefined): Result<string | null | undefined> {
  if (v === undefined || v === null) return ok(v);
  const us = parseIsoDateTime(v);
  return us === undefined
    ? fail(invalid({ expiry_date: [WRONG_DATETIME] }))
    : ok(formatDrfDate(Math.floor(us / 1000)));
}

/**
 * Stores a new token for `userId`: its value is 48 lowercase hex characters (a chosen format: CVAT's own
 * is not in the reference). The value and the id are drawn before the expiry date is read, so a
 * refused expiry still uses them up, as the world's id sequence has always had it.
 */
export function createAccessToken(
  state: AnnotationState,
  now: number,
  hex: (n: number) => string,
  userId: number,
  fields: AccessTokenWriteRequest,
): Result<{ token: AccessTokenRec; value: string }> {
  const date = formatDrfDate(now);
  const value = hex(48);
  const id = nextId(state, 'accessTokens');
  const expiry = expiryOf(fields.expiry_date);
  if (!expiry.ok) return expiry;
  const token: AccessTokenRec = {
    id,
    key: value,
    user_id: userId,
    name: fields.name,
    read_only: fields.read_only ?? false,
    expiry_date: expiry.value ?? null,
    created_date: date,
    updated_date: date,
  };
  state.accessTokens.set(value, token);
  return ok({ token, value });
}

/**
 * Applies a partial update in field order: `name` and `read_only` are set before `expiry_date` is
 * read, so a refused expiry leaves them changed (and the update date as it was).
 */
export function updateAccessToken(
  t: AccessTokenRec,
  fields: PatchedAccessTokenWriteRequest,
  now: number,
): Result<AccessTokenRec> {
  if (fields.name !== undefined) t.name = fields.name;
  if (fields.read_only !== undefined) t.read_only = fields.read_only;
  if ('expiry_date' in fields) {
    const expiry = expiryOf(fields.expiry_date);
    if (!expiry.ok) return expiry;
    t.expiry_date = expiry.value ?? null;
  }
  t.updated_date = formatDrfDate(now);
  return ok(t);
}
