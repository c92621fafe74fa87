/**
 * The events API's control routes (`/_sim/events…`) for `/_sim/openapi.json`: merge into the simulator
 * definition's `controlOpenApiPaths`.
 *
 * @example controlOpenApiPaths: { ...DELIVERY_CONTROL_OPENAPI, ...EVENTS_CONTROL_OPENAPI }
 */
const json = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object' } } },
});
const error = json('Control-plane error: { error: { status, reason, message, path? } }');
const ns = {
  name: 'X-Sim-Namespace',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Namespace to act on (default `default`); `/_ns/<name>/_sim/...` does the same.',
};
/** A JSON body: what it is, and its top-level fields (what the dialect's conformance test reads). */
interface Body {
  description: string;
  properties?: Record<string, unknown>;
}
const op = (summary: string, ok: string, body?: string | Body, status = 200) => {
  const b = typeof body === 'string' ? { description: body } : body;
  return {
    summary,
    parameters: [ns],
    ...(b
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', ...(b.properties ? { properties: b.properties } : {}) },
              },
            },
            description: b.description,
          },
        }
      : {}),
    responses: { [status]: json(ok), 400: error, 401: error },
  };
};
const text = { type: 'string' };
const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  schema: text,
  description: 'The rq_id, as `GET /api/requests/{id}` takes it',
};
/** An act on the thing in the path (docs/decisions/0020-control-plane-dialect.md): 404 when it is missing. */
const onOne = (
  what: string,
  summary: string,
  ok: string,
  body?: Body,
  conflict?: string,
): Record<string, unknown> => {
  const o = op(summary, ok, body);
  return {
    ...o,
    parameters: [...o.parameters, idParam],
    responses: {
      ...o.responses,
      404: json(`No ${what} with this id`),
      ...(conflict ? { 409: json(conflict) } : {}),
    },
  };
};
/** The older form of a route: served as it was, marked deprecated, naming what replaces it. */
const alias = (o: Record<string, unknown>, replacedBy: string) => ({
  ...o,
  deprecated: true,
  'x-replaced-by': replacedBy,
  description: `The older form of ${replacedBy}, served as it was: the id in the body, a missing one a 400 on rq_id (docs/decisions/0020-control-plane-dialect.md).`,
});
const failBody: Body = {
  description: '{ message: "…" }: what the failed request shows as its message',
  properties: { message: text },
};

export const EVENTS_CONTROL_OPENAPI: Record<string, unknown> = {
  '/_sim/events': {
    get: op(
      'Event log and export jobs: settings, rows stored, dropped (store disconnected) and evicted (oldest, beyond maxEvents), jobs',
      '{ settings, stored, dropped, evicted, jobs }',
    ),
  },
  '/_sim/events/settings': {
    get: op(
      'Per-world settings of the events API (as GET /_sim/events shows them)',
      '{ exportDuration, exportQueued, storeConnected, resultTtl, maxEvents }',
    ),
    patch: op(
      'Per-world settings of the events API',
      '{ exportDuration, exportQueued, storeConnected, resultTtl, maxEvents }',
      '{ exportDuration?: "2s", exportQueued?: "500ms", storeConnected?: boolean, resultTtl?: "24h", maxEvents?: 100000 }',
    ),
  },
  '/_sim/events/records': {
    post: op(
      'Write rows straight into the analytics store (ClickHouse `events` columns; timestamp ISO or epoch ms)',
      '{ stored }',
      '{ events: [{ scope, source?, timestamp?, obj_name?, … }] }',
      201,
    ),
  },
  '/_sim/events/exports': {
    post: op(
      'Create an export job in a given state (provider states, scenarios)',
      'the job',
      '{ query_id, user_id, username, status: queued|started|finished|failed, message?, filename?, org_id?, created_at?, from?, to?, filters? }',
      201,
    ),
  },
  '/_sim/events/exports/{id}/complete': {
    post: onOne('export job', 'Finish an export now', 'the job', undefined, 'The export has already ended'),
  },
  '/_sim/events/exports/{id}/fail': {
    post: onOne(
      'export job',
      'Fail an export now with a message',
      'the job',
      failBody,
      'The export has already ended',
    ),
  },
  '/_sim/events/exports/{id}/expire-file': {
    post: onOne('export job', 'Remove the file of a finished export (download then answers 404)', 'the job'),
  },
  '/_sim/events/exports/complete': {
    post: alias(
      op('Settle an export now (finished, or failed with `fail`)', 'the job', {
        description: '{ rq_id, fail?: "message" }',
        properties: { rq_id: text, fail: text },
      }),
      'POST /_sim/events/exports/{id}/complete',
    ),
  },
  '/_sim/events/exports/expire-file': {
    post: alias(
      op('Remove the file of a finished export (download then answers 404)', 'the job', {
        description: '{ rq_id }',
        properties: { rq_id: text },
      }),
      'POST /_sim/events/exports/{id}/expire-file',
    ),
  },
};

/** The background requests' control routes (`/_sim/requests…`). */
export const REQUESTS_CONTROL_OPENAPI: Record<string, unknown> = {
  '/_sim/requests': {
    get: op('Background requests: settings and every request with its status', '{ settings, requests }'),
  },
  '/_sim/requests/settings': {
    get: op(
      'How long requests take (as GET /_sim/requests shows it)',
      '{ queued, taskCreation, export, resultTtl, failureTtl }',
    ),
    patch: op(
      'Change how long requests take',
      'the settings',
      '{ queued?, taskCreation?, export?, resultTtl?, failureTtl? } as durations ("2s") or ms',
    ),
  },
  '/_sim/requests/{id}/complete': {
    post: onOne(
      'request',
      'End a request now, its work done (also ends a lost one)',
      'the request',
      undefined,
      'The request has already ended',
    ),
  },
  '/_sim/requests/{id}/fail': {
    post: onOne(
      'request',
      'End a request now, failed with a message (also ends a lost one)',
      'the request',
      failBody,
      'The request has already ended',
    ),
  },
  '/_sim/requests/complete': {
    post: alias(
      op('End a request now: its work done, or failed with a message (also ends a lost one)', 'the request', {
        description: '{ rq_id, fail?: "message" }',
        properties: { rq_id: text, fail: text },
      }),
      'POST /_sim/requests/{id}/complete',
    ),
  },
};
