import { formatDrfDate } from '../../domain/dates';
import { ApiFailure, notFound } from '../../domain/errors';
import type { AccessTokenRec } from '../../domain/model';
import { basicUser } from '../../domain/serializers';
import { nextId } from '../../domain/state';
import { validateFields } from '../../domain/validate';
import { type ApiRequest, api } from '../api';
import type { AppDeps, Kernel } from '../deps';
import { paginate } from '../pagination';
import { cvatJson, noContent } from '../respond';

function tokenRead(r: ApiRequest, t: AccessTokenRec, value?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id,
    name: t.name,
    created_date: t.created_date ?? formatDrfDate(0),
    updated_date: t.updated_date ?? t.created_date ?? formatDrfDate(0),
    expiry_date: t.expiry_date,
    last_used_date: null,
    read_only: t.read_only,
    owner: basicUser(r.state, t.user_id),
  };
  // The raw value is returned once, by the create call.
  if (value !== undefined) out.value = value;
  return out;
}

const FIELDS = {
  name: { kind: 'string', required: true, maxLength: 50 },
  expiry_date: { kind: 'string', nullable: true },
  read_only: { kind: 'boolean' },
} as const;

/** Personal access tokens (`/api/auth/access_tokens`, CVAT ≥ 2.48): the caller's own tokens only. */
export function registerAccessTokenRoutes(kernel: Kernel, deps: AppDeps): void {
  const { app, operation } = kernel;
  const mine = (r: ApiRequest) => [...r.state.accessTokens.values()].filter((t) => t.user_id === r.user().id);
  const load = (r: ApiRequest) => {
    const id = r.intParam('id');
    const t = mine(r).find((x) => x.id === id);
    if (!t) throw new ApiFailure(notFound('AccessToken'));
    return t;
  };
  const parseExpiry = (v: unknown): string | null | undefined => {
    if (v === undefined || v === null) return v as null | undefined;
    const t = Date.parse(String(v));
    if (Number.isNaN(t)) {
      throw new ApiFailure({
        code: 'INVALID',
        errors: {
          expiry_date: [
            'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
          ],
        },
      });
    }
    return formatDrfDate(t);
  };

  app.get(
    '/api/auth/access_tokens',
    operation('auth.list_access_tokens'),
    api(deps, (r) =>
      cvatJson(
        r.c,
        paginate(
          r,
          mine(r).sort((a, b) => b.id - a.id),
          (t) => tokenRead(r, t),
        ),
      ),
    ),
  );
  app.post(
    '/api/auth/access_tokens',
    operation('auth.create_access_tokens'),
    api(deps, (r) => {
      const user = r.user();
      const v = validateFields(r.body(), FIELDS);
      if (!v.ok) throw new ApiFailure({ code: 'INVALID', errors: v.errors });
      const now = formatDrfDate(r.now);
      // Chosen format: 48 lowercase hex characters (CVAT's own token format is not in the reference).
      const value = r.world.ids.hex(48);
      const t: AccessTokenRec = {
        id: nextId(r.state, 'accessTokens'),
        key: value,
        user_id: user.id,
        name: v.value.name as string,
        read_only: (v.value.read_only as boolean | undefined) ?? false,
        expiry_date: parseExpiry(v.value.expiry_date) ?? null,
        created_date: now,
        updated_date: now,
      };
      r.state.accessTokens.set(value, t);
      return cvatJson(r.c, tokenRead(r, t, value), 201);
    }),
  );
  app.get(
    '/api/auth/access_tokens/self',
    operation('auth.retrieve_access_tokens_self'),
    api(deps, (r) => {
      const auth = r.auth();
      const t = [...r.state.accessTokens.values()].find((x) => x.id === auth.accessTokenId);
      if (auth.scheme !== 'access_token' || !t)
        throw new ApiFailure({ code: 'NOT_FOUND', detail: 'Not found.' });
      return cvatJson(r.c, tokenRead(r, t));
    }),
  );
  app.get(
    '/api/auth/access_tokens/:id',
    operation('auth.retrieve_access_tokens'),
    api(deps, (r) => cvatJson(r.c, tokenRead(r, load(r)))),
  );
  app.patch(
    '/api/auth/access_tokens/:id',
    operation('auth.partial_update_access_tokens'),
    api(deps, (r) => {
      const t = load(r);
      const v = validateFields(r.body(), FIELDS, true);
      if (!v.ok) throw new ApiFailure({ code: 'INVALID', errors: v.errors });
      if (v.value.name !== undefined) t.name = v.value.name as string;
      if (v.value.read_only !== undefined) t.read_only = v.value.read_only as boolean;
      if ('expiry_date' in v.value) t.expiry_date = parseExpiry(v.value.expiry_date) ?? null;
      t.updated_date = formatDrfDate(r.now);
      return cvatJson(r.c, tokenRead(r, t));
    }),
  );
  app.delete(
    '/api/auth/access_tokens/:id',
    operation('auth.destroy_access_tokens'),
    api(deps, (r) => {
      const t = load(r);
      r.state.accessTokens.delete(t.key);
      return noContent(r.c);
    }),
  );
}
