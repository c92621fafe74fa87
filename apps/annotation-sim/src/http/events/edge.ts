import type { RouteRow, SimEnv } from '@sims/sim-core';
import type { Context } from 'hono';
import type { EventsCaller, ExportError } from '../../domain/events/export';
import type { IdFilter } from '../../domain/events/record';
import type { EventsState } from '../../domain/events/state';
import { lastQueryValues } from '../query-values';
import { cvatJson, djangoServerError, PERMISSION_DENIED } from '../respond';

/**
 * The events API (`POST /api/events`, the export flows) over any world state: what it
 * needs from the rest of the simulator is this edge. The annotation simulator runs each of its rows'
 * handlers inside its API wrapper (Accept negotiation, authentication, organization context, DRF errors)
 * with the caller it resolved.
 */
export interface EventsEdge<S> {
  /** The events API's part of a world's state. */
  events(state: S): EventsState;
  /**
   * `find_minimal_date_for_filter` (epoch ms): the `created_date` of the most specific of job, task,
   * project; else the earliest of the organization and its projects and tasks; else 0. Default: 0.
   */
  minimalFrom?(state: S, ids: Partial<Record<IdFilter, number>>): number;
}

export type EventsContext<S> = Context<SimEnv<S>>;

/**
 * A route row of the events API (sim-core's): its handler takes the request and its authenticated
 * caller; `resource` is what the journal records and fault rules match on.
 */
export type EventsRow<S> = RouteRow<
  (c: EventsContext<S>, caller: EventsCaller) => Response | Promise<Response>,
  never,
  { resource?: (c: Context) => string | undefined }
>;

/** A handler of the events API: the request, its authenticated caller, and the edge. */
export type EventsHandler<S> = (
  c: EventsContext<S>,
  caller: EventsCaller,
  edge: EventsEdge<S>,
) => Response | Promise<Response>;

/**
 * Query parameters, the last value of each: CVAT reads the events API's (`query_id`, `action`,
 * `filename`, `location`, `cloud_storage_id`, `rq_id`, the id filters, `from`, `to`) with
 * `query_params.get`, a QueryDict's last value.
 */
export function params(c: Context): Record<string, string> {
  return lastQueryValues(new URL(c.req.url).searchParams);
}

/** The one place export errors become responses. */
export function renderExportError(c: Context, error: ExportError): Response {
  switch (error.code) {
    case 'FORBIDDEN':
      return cvatJson(c, { detail: error.detail ?? PERMISSION_DENIED }, 403);
    case 'INVALID_LIST':
      return cvatJson(c, error.messages, 400);
    case 'CONFLICT':
      return cvatJson(c, { rq_id: error.rqId }, 409);
    case 'SERVER_ERROR':
      return djangoServerError(c, error.reason);
  }
}
