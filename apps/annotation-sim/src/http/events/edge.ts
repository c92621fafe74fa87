import type { SimEnv } from '@sims/sim-core';
import type { Context, Handler } from 'hono';
import type { EventsCaller, ExportError } from '../../domain/events/export';
import type { IdFilter } from '../../domain/events/record';
import type { EventsState } from '../../domain/events/state';
import { cvatJson, djangoServerError, PERMISSION_DENIED } from '../respond';

/**
 * The events API (`POST /api/events`, the export flows) over any world state: what it
 * needs from the rest of the simulator is this edge. The annotation simulator runs each handler
 * inside its API wrapper (Accept negotiation, authentication, organization context, DRF errors).
 */
export interface EventsEdge<S> {
  /** The events API's part of a world's state. */
  events(state: S): EventsState;
  /** A route handler that runs `handler` with the authenticated caller (or answers 401, 404, … itself). */
  route(handler: (c: EventsContext<S>, caller: EventsCaller) => Response | Promise<Response>): Handler;
  /**
   * `find_minimal_date_for_filter` (epoch ms): the `created_date` of the most specific of job, task,
   * project; else the earliest of the organization and its projects and tasks; else 0. Default: 0.
   */
  minimalFrom?(state: S, ids: Partial<Record<IdFilter, number>>): number;
}

export type EventsContext<S> = Context<SimEnv<S>>;

/** A handler of the events API: the request, its authenticated caller, and the edge. */
export type EventsHandler<S> = (
  c: EventsContext<S>,
  caller: EventsCaller,
  edge: EventsEdge<S>,
) => Response | Promise<Response>;

/** Query parameters, first value of each (as DRF's `query_params.get`). */
export function params(c: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URL(c.req.url).searchParams) if (!(k in out)) out[k] = v;
  return out;
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
