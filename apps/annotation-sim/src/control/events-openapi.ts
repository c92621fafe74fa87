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
const op = (summary: string, ok: string, body?: string, status = 200) => ({
  summary,
  parameters: [ns],
  ...(body
    ? {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object' } } },
          description: body,
        },
      }
    : {}),
  responses: { [status]: json(ok), 400: error, 401: error },
});

export const EVENTS_CONTROL_OPENAPI: Record<string, unknown> = {
  '/_sim/events': {
    get: op(
      'Event log and export jobs: settings, rows stored, dropped (store disconnected) and evicted (oldest, beyond maxEvents), jobs',
      '{ settings, stored, dropped, evicted, jobs }',
    ),
  },
  '/_sim/events/settings': {
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
  '/_sim/events/exports/complete': {
    post: op(
      'Settle an export now (finished, or failed with `fail`)',
      'the job',
      '{ rq_id, fail?: "message" }',
    ),
  },
  '/_sim/events/exports/expire-file': {
    post: op('Remove the file of a finished export (download then answers 404)', 'the job', '{ rq_id }'),
  },
};

/** The background requests' control routes (`/_sim/requests…`). */
export const REQUESTS_CONTROL_OPENAPI: Record<string, unknown> = {
  '/_sim/requests': {
    get: op('Background requests: settings and every request with its status', '{ settings, requests }'),
  },
  '/_sim/requests/settings': {
    patch: op(
      'Change how long requests take',
      'the settings',
      '{ queued?, taskCreation?, export?, resultTtl?, failureTtl? } as durations ("2s") or ms',
    ),
  },
  '/_sim/requests/complete': {
    post: op(
      'End a request now: its work done, or failed with a message (also ends a lost one)',
      'the request',
      '{ rq_id, fail?: "message" }',
    ),
  },
};
