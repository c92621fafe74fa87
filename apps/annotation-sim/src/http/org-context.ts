import type { Context } from 'hono';
import type { Result } from '../domain/errors';
import { type OrgContext, resolveOrgContext } from '../domain/org-context';
import type { AnnotationState } from '../domain/state';
import { queryValue } from './query-values';

export type { OrgContext };

/**
 * The organization context of a request, from query `org` (slug), query `org_id` or header
 * `X-Organization` (slug), like CVAT's IAM middleware (which reads them on every endpoint).
 * A context naming no organization is a 400 list or a 404, as CVAT answers it.
 *
 * @example const ctx = orgContextOf(c, state); if (ctx.ok && ctx.value.org) ...
 */
export function orgContextOf(c: Context, state: AnnotationState): Result<OrgContext> {
  const q = new URL(c.req.url).searchParams;
  const header = c.req.header('x-organization');
  // `request.GET.get(...)`: the last of repeated values.
  return resolveOrgContext(state, {
    org: queryValue(q, 'org'),
    orgId: queryValue(q, 'org_id'),
    header: header === undefined ? undefined : header,
  });
}
