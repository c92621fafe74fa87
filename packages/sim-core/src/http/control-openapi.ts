import type { SimulatorDefinition } from '../definition';

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

/** The control plane's OpenAPI 3.1 document (kernel routes plus the simulator's own). */
export function controlOpenApi<S>(def: SimulatorDefinition<S>): Record<string, unknown> {
  const op = (summary: string, ok: string, extra: Record<string, unknown> = {}) => ({
    summary,
    parameters: [ns],
    responses: { 200: json(ok), 400: error, 401: error, 507: error },
    ...extra,
  });
  const body = (description: string) => ({
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { type: 'object' } } },
      description,
    },
  });
  /** An act on the thing the path names: 404 when there is none (docs/decisions/0020-control-plane-dialect.md). */
  const onOne = (what: string, param: string, o: ReturnType<typeof op>) => ({
    ...o,
    parameters: [...o.parameters, { name: param, in: 'path', required: true, schema: { type: 'string' } }],
    responses: { ...o.responses, 404: json(`No ${what} with this ${param}`) },
  });
  const clockChange = op('Set mode, speed or time (only what is given changes)', 'clock state', {
    requestBody: {
      required: true,
      description: '{ mode?, speed?, set? }',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              mode: { enum: ['real', 'manual'] },
              speed: { type: 'number' },
              set: { type: ['string', 'number'] },
            },
          },
        },
      },
    },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: `${def.name} control plane`,
      version: def.version,
      description:
        'Controls the simulator: state, faults, clock, journal, namespaces, scenarios. Protected by the admin token when one is set (health excepted).',
    },
    paths: {
      '/_sim/health': {
        get: { summary: 'Readiness', responses: { 200: json('{ status: "ok", simulator, version }') } },
      },
      '/_sim/openapi.json': { get: op('This document: the control plane in OpenAPI 3.1', 'this document') },
      '/_sim/reset': { post: op("Empty this namespace's world", '{ namespace, reset: true }') },
      '/_sim/state': {
        get: op('Export a world snapshot', '{ simulator, version, namespace, clock, faults, state }'),
        put: op(
          'Import a world snapshot (all or nothing)',
          '{ imported: true }',
          body('A snapshot from GET /_sim/state'),
        ),
      },
      '/_sim/seed': {
        post: op('Create resources directly', '{ seeded }', body("The simulator's seed document")),
      },
      '/_sim/faults': {
        get: op(
          'List fault rules with their matched/fired counts (?unfired=true: only rules that never fired)',
          '{ faults }',
        ),
        post: {
          ...op(
            'Add a fault rule (or an array of rules, all or nothing), as JSON or YAML',
            'the rule with its id',
            body('match + trigger + phase + effect'),
          ),
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { description: 'match + trigger + phase + effect' } },
              'application/yaml': { schema: { type: 'string' } },
            },
          },
        },
        delete: op('Remove every fault rule', 'no content'),
      },
      '/_sim/faults/unfired': { get: op('Rules that never fired', '{ faults }') },
      '/_sim/faults/{id}': {
        get: onOne('fault rule', 'id', op('One rule', 'the rule')),
        delete: onOne('fault rule', 'id', op('Remove one rule', 'no content')),
      },
      '/_sim/clock': {
        get: op('Clock state', '{ mode, speed, now, pendingTimers }'),
        patch: clockChange,
        put: {
          ...clockChange,
          deprecated: true,
          'x-replaced-by': 'PATCH /_sim/clock',
          description: 'The older spelling of PATCH /_sim/clock, served the same.',
        },
      },
      '/_sim/clock/advance': {
        post: op('Move time forward, firing due timers in order', 'clock state', body('{ by: "2s" }')),
      },
      '/_sim/journal': {
        get: op(
          'Journal entries (filters: operation, resource, method, path, status, fault, since, limit)',
          '{ entries, stats }',
        ),
        delete: op('Clear the journal', 'no content'),
      },
      '/_sim/journal/{seq}': {
        get: onOne('journal entry', 'seq', op('One entry by its seq (404 once dropped)', '{ entry }')),
      },
      '/_sim/stream': {
        get: op(
          'Server-sent events of this namespace: hello, request (new journal entries), gap, changed, reset, tick',
          'text/event-stream',
        ),
      },
      '/_sim/ui/': {
        get: op('The dashboard page (a sign-in form when an admin token is set and not given)', 'text/html'),
      },
      '/_sim/journal/wait': {
        post: op(
          'Long-poll until an entry matches (408 on time-out)',
          '{ entry }',
          body('filter + { timeout: "10s" }'),
        ),
      },
      '/_sim/namespaces': { get: op('Namespaces that exist', '{ namespaces }') },
      '/_sim/memory': {
        get: op(
          "The process's memory budget: per kind (journal, and the simulator's stores) its limit, the bytes all namespaces hold and the items it evicted since the start; and what this namespace holds of each and the budget evicted of it since the namespace was made. Over the namespaces that exist they add up to the kinds' figures (a deleted namespace's evictions stay in its kind's). What a store drops past its own per-namespace cap is not counted here (the journal's and the outbound journal's dropped count both) (docs/decisions/0019)",
          '{ kinds: [{ kind, maxBytes, usedBytes, evicted, members }], namespace: { name, kinds: { <kind>: { bytes, evicted } } } }',
        ),
      },
      '/_sim/namespaces/{name}': {
        put: op(
          'Create a namespace ahead of its first use (201; 200 when it exists)',
          '{ namespace, created }',
        ),
        delete: onOne('namespace', 'name', op('Delete a namespace and everything in it', 'no content')),
      },
      '/_sim/scenarios': {
        post: {
          ...op('Load a scenario (YAML or JSON): seed + faults + clock', '{ name, faults, seeded, clock }'),
          requestBody: { required: true, content: { 'application/yaml': { schema: { type: 'string' } } } },
        },
      },
      ...(def.controlOpenApiPaths ?? {}),
    },
  };
}
