import { isAdmin, roleIn } from '../../domain/access';
import { ok, type Result } from '../../domain/errors';
import type { EventsCaller } from '../../domain/events/export';
import { minimalExportDate } from '../../domain/events/minimal-date';
import { eventsOf } from '../../domain/events/state';
import type { AnnotationState } from '../../domain/state';
import type { ApiRequest } from '../api';
import { renderApiError } from '../respond';
import type { RouteRow } from '../route-table';
import type { EventsContext, EventsEdge } from './edge';
import { eventRoutes } from './routes';

/**
 * The caller as the events permission sees it: the authenticated user in the request's organization
 * context (or the context's 400/404).
 */
function eventsCaller(r: ApiRequest): Result<EventsCaller> {
  const auth = r.auth();
  const context = r.orgContext();
  if (!context.ok) return context;
  const ctx = context.value;
  const u = auth.user;
  return ok({
    id: u.id,
    username: u.username,
    email: u.email,
    isAdmin: isAdmin(u),
    privilege: u.is_superuser ? 'admin' : u.privilege,
    org: ctx.org ? { id: ctx.org.id, slug: ctx.org.slug } : null,
    role: ctx.org ? roleIn(r.state, u.id, ctx.org.id) : null,
    accessTokenId: auth.accessTokenId ?? null,
  });
}

/** The events API's state and dates on the annotation simulator. */
const ANNOTATION_EVENTS_EDGE: EventsEdge<AnnotationState> = {
  events: eventsOf,
  minimalFrom: minimalExportDate,
};

/**
 * The events API's rows on the annotation simulator's edge: each handler runs inside `api()` (Accept
 * negotiation, authentication, organization context, DRF's error bodies) with the caller it resolved.
 */
export function annotationEventRoutes(): readonly RouteRow[] {
  return eventRoutes(ANNOTATION_EVENTS_EDGE).map(
    (row): RouteRow => ({
      ...row,
      handle: (r: ApiRequest) => {
        const caller = eventsCaller(r);
        return caller.ok
          ? row.handle(r.c as EventsContext<AnnotationState>, caller.value)
          : renderApiError(r.c, caller.error);
      },
    }),
  );
}
