import type { Context } from 'hono';
import { processClientEvents } from '../../domain/events/client-events';
import type { EventsCaller } from '../../domain/events/export';
import { recordEvents } from '../../domain/events/state';
import { annotationEffects } from '../../domain/fault-effects';
import { PythonJsonError, parsePythonJson } from '../../domain/python-json-parse';
import { JSON_MEDIA_TYPE, PYTHON_MESSAGE_MAX_CHARS } from '../api';
import { cvatJson, djangoServerError } from '../respond';
import type { EventsContext, EventsEdge, EventsHandler, EventsRow } from './edge';
import { createExport, downloadExport, legacyExport } from './exports';

/** `POST /api/events`: a client's batch of events, validated as `ClientEventsSerializer` does. */
async function createClientEvents<S>(
  c: EventsContext<S>,
  caller: EventsCaller,
  edge: EventsEdge<S>,
): Promise<Response> {
  const sim = c.var.sim;
  let body: unknown = {};
  // DRF picks a parser by Content-Type before parsing (only JSONParser is configured).
  const type = c.req.header('content-type');
  // A body of another type is kept as bytes by the kernel (annotation-sim's `limits.bytesBodies`).
  const present = sim.bodyBytes !== undefined ? sim.bodyBytes.byteLength > 0 : Boolean(sim.rawBody);
  if (present && type !== undefined && !JSON_MEDIA_TYPE.test(type)) {
    return cvatJson(c, { detail: `Unsupported media type "${type}" in request.` }, 415);
  }
  if (sim.jsonOverBudget !== undefined) {
    // Past the simulator's JSON budget: DRF's parse error, as in the API's other routes.
    return cvatJson(c, { detail: `JSON parse error - ${sim.jsonError}` }, 400);
  }
  if (sim.jsonTooDeep !== undefined) {
    // As in the API's other routes: Python's RecursionError escapes DRF's JSONParser.
    return djangoServerError(
      c,
      'RecursionError: maximum recursion depth exceeded while decoding a JSON object',
    );
  }
  if (sim.jsonError !== undefined) {
    let detail = sim.jsonError;
    try {
      // Python's message when it is cheap to find, else V8's.
      if ((sim.rawBody ?? '').length <= PYTHON_MESSAGE_MAX_CHARS) parsePythonJson(sim.rawBody ?? '');
    } catch (err) {
      if (err instanceof PythonJsonError) detail = err.message;
    }
    return cvatJson(c, { detail: `JSON parse error - ${detail}` }, 400);
  }
  if (sim.json !== undefined) body = sim.json;
  const world = sim.world;
  const requestInfo: Record<string, unknown> = { id: sim.requestId };
  const ua = c.req.header('user-agent');
  if (ua) requestInfo.user_agent = ua;
  const result = processClientEvents(
    body,
    { user: caller, org: caller.org, accessTokenId: caller.accessTokenId ?? null },
    world.clock.now() * 1000,
    requestInfo,
  );
  if (!result.ok) {
    switch (result.error.code) {
      case 'VALIDATION':
        return cvatJson(c, result.error.body, 400);
      case 'JSON_PARSE':
        return cvatJson(c, { detail: `JSON parse error - ${result.error.detail}` }, 400);
      case 'PAYLOAD_NULL':
        return djangoServerError(c, 'CVAT fails on an event whose payload is null (unhandled exception)');
    }
  }
  const storeDown = annotationEffects.takeEffect(sim, 'analyticsStoreDown') !== undefined;
  recordEvents(edge.events(world.state), result.value.records, storeDown);
  return cvatJson(c, result.value.body, 201);
}

/**
 * The events API's route rows: `POST /api/events`, `GET /api/events` (deprecated flow),
 * `POST /api/events/export` and `GET /api/events/download`; its export jobs are read and cancelled
 * through the requests API (`http/routes/requests.ts`). The control routes (`/_sim/events…`) are the
 * definition's. The simulator runs each handler inside its API wrapper with the caller it resolved
 * (`annotation-edge.ts`), and registers the rows with its others.
 *
 * @example eventRoutes(annotationEventsEdge()) // [{ method: 'post', path: '/api/events', operation: 'events.create', … }, …]
 */
export function eventRoutes<S>(edge: EventsEdge<S>): readonly EventsRow<S>[] {
  const on =
    (handler: EventsHandler<S>) =>
    (c: EventsContext<S>, caller: EventsCaller): Response | Promise<Response> =>
      handler(c, caller, edge);
  // Fault rules can target one download by `resource` (its rq_id, e.g. `action=export&target=events&id=*&user_id=2`).
  const rqIdQuery = (c: Context) => c.req.query('rq_id');
  return [
    { method: 'post', path: '/api/events', operation: 'events.create', handle: on(createClientEvents) },
    {
      method: 'post',
      path: '/api/events/export',
      operation: 'events.create_export',
      handle: on(createExport),
    },
    {
      method: 'get',
      path: '/api/events/download',
      operation: 'events.download',
      resource: rqIdQuery,
      handle: on(downloadExport),
    },
    { method: 'get', path: '/api/events', operation: 'events.list', handle: on(legacyExport) },
  ];
}
