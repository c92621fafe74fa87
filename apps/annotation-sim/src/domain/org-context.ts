import { type ApiError, fail, ok, type Result } from './errors';
import type { OrganizationRec } from './model';
import type { AnnotationData } from './state';

/** The organization a request acts in. `specified` is true when any selector was present, even empty. */
export interface OrgContext {
  specified: boolean;
  org: OrganizationRec | null;
}

export interface OrgSelectors {
  /** Query `org` (slug). */
  org?: string;
  /** Query `org_id`. */
  orgId?: string;
  /** Header `X-Organization` (slug). */
  header?: string;
}

const ORG_ID_CONFLICT =
  'You cannot specify "org_id" query parameter with "org" query parameter or "X-Organization" HTTP header at the same time.';
const ORG_SLUG_CONFLICT =
  'You cannot specify "org" query parameter and "X-Organization" HTTP header with different values.';

/**
 * CVAT's `iam/middleware.get_organization`: `org` and `X-Organization` may both be given only when
 * equal, `org_id` never with either (400 list bodies); an empty value means the sandbox; an unknown
 * organization is 404 `"<x> organization does not exist."`.
 */
export function resolveOrgContext(data: AnnotationData, sel: OrgSelectors): Result<OrgContext> {
  const { org, orgId, header } = sel;
  if (orgId !== undefined && (org !== undefined || header !== undefined)) {
    return fail({ code: 'INVALID_LIST', messages: [ORG_ID_CONFLICT] });
  }
  if (org !== undefined && header !== undefined && org !== header) {
    return fail({ code: 'INVALID_LIST', messages: [ORG_SLUG_CONFLICT] });
  }
  const specified = org !== undefined || orgId !== undefined || header !== undefined;
  if (!specified) return ok({ specified: false, org: null });
  if (orgId !== undefined) {
    if (orgId === '') return ok({ specified: true, org: null });
    // Faithful: a non-integer org_id makes CVAT fail with an unhandled ValueError.
    if (!/^-?\d+$/.test(orgId))
      return fail({ code: 'SERVER_ERROR', reason: `invalid literal for int(): ${orgId}` });
    const found = data.organizations.get(Number(orgId));
    return found ? ok({ specified: true, org: found }) : fail(orgMissing(orgId));
  }
  const slug = (org ?? header) as string;
  if (slug === '') return ok({ specified: true, org: null });
  const found = [...data.organizations.values()].find((o) => o.slug === slug);
  return found ? ok({ specified: true, org: found }) : fail(orgMissing(slug));
}

function orgMissing(ref: string): ApiError {
  return { code: 'NOT_FOUND', detail: `${ref} organization does not exist.` };
}
