import type { Context } from 'hono';
import { ApiFailure } from '../domain/errors';
import { type OrgContext, resolveOrgContext } from '../domain/org-context';
import type { AnnotationState } from '../domain/state';
import { queryValue } from './query-values';

export type { OrgContext };

/**
 * The organization context of a request, from query `org` (slug), query `org_id` or header
 * `X-Organization` (slug), like CVAT's IAM middleware (which reads them on every endpoint).
 * Throws ApiFailure (400 list, 404) that the route wrapper renders.
 *
 * @example const ctx = orgContextOf(c, state); if (ctx.org) ...
 */
export function orgContextOf(c: Context, state: AnnotationState): OrgContext {
  const q = new URL(c.req.url).searchParams;
  const header = c.req.header('x-organization');
  // `request.GET.get(...)`: the last of repeated values.
  const result = resolveOrgContext(state, {
    org: queryValue(q, 'org'),
    orgId: queryValue(q, 'org_id'),
    header: header === undefined ? undefined : header,
  });
  if (!result.ok) throw new ApiFailure(result.error);
  return result.value;
}
