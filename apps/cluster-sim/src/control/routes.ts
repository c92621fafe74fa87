import { ServerConfig } from '@sims/cluster-schema';
import { type ControlTools, controlError, parseInput, readControlJson, type SimEnv } from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import * as z from 'zod';
import { omitDefaults } from '../domain/node-pools';
import { renderOperation } from '../domain/operation-view';
import { endOperationNow } from '../domain/operation-work';
import { applyServerConfig, settingsSchema } from '../domain/seed';
import { type ClusterState, mergeSettings, type RpcCodeName, type Settings } from '../domain/state';
import { RPC_STATUS } from '../http/errors';
import { clusterViews, OPERATION_STATUSES, operationViews } from './views';

const failSchema = z
  .object({
    status: z.enum(Object.keys(RPC_STATUS) as [RpcCodeName, ...RpcCodeName[]]).default('INTERNAL'),
    message: z.string().default('Internal error encountered.'),
  })
  .strict();

/** `GET /_sim/operations`' query: unknown parameters are refused, as the journal's filter does. */
const operationsQuery = z.object({ status: z.enum(OPERATION_STATUSES).optional() }).strict();

/** A control body as JSON (`{}` when empty), bounded; a bad one is a 400 (SimInputError). */
async function readJson(c: Context): Promise<unknown> {
  return (await readControlJson(c)) ?? {};
}

/**
 * The cluster simulator's own control routes, under `/_sim`, in the control plane's dialect
 * (docs/decisions/0020-control-plane-dialect.md):
 * - `GET|PATCH /_sim/settings`: per-world behaviour knobs (timing, strictness, quota, skew, auth
 *   principals…); `PUT` is the older spelling of the `PATCH`
 * - `GET|PATCH /_sim/server-config`: the ServerConfig that version resolution uses (`PUT` likewise)
 * - `POST /_sim/operations/{id}/complete` and `/fail`: finish or fail an operation now
 * - `GET /_sim/operations[?status=]`: the world's operations, newest first, with their ids, targets and
 *   percent done (read-only: not a poll)
 * - `GET /_sim/node-pools`: the world's clusters with their pools (node counts, etag, running operation,
 *   rollout phase)
 */
export function registerControlRoutes(
  control: Hono<SimEnv<ClusterState>>,
  tools: ControlTools<ClusterState>,
): void {
  const { world } = tools;

  control.get('/settings', (c) => c.json(world(c).state.settings));
  const changeSettings = async (c: Context) => {
    const patch = parseInput(settingsSchema(), await readJson(c), 'settings');
    const w = world(c);
    w.state.settings = mergeSettings(w.state.settings, patch as Partial<Settings>);
    return c.json(w.state.settings);
  };
  control.patch('/settings', changeSettings);
  control.put('/settings', changeSettings);

  control.get('/server-config', (c) => c.json(omitDefaults(world(c).state.serverConfig)));
  const changeServerConfig = async (c: Context) => {
    const patch = parseInput(ServerConfig.strict(), await readJson(c), 'serverConfig');
    const w = world(c);
    applyServerConfig(w.state, patch);
    return c.json(omitDefaults(w.state.serverConfig));
  };
  control.patch('/server-config', changeServerConfig);
  control.put('/server-config', changeServerConfig);

  const settle = (failing: boolean) => async (c: Context) => {
    const w = world(c);
    const id = c.req.param('id') ?? '';
    // The operation first: a missing one is a 404 whatever the body says.
    const op = w.state.operations.get(id);
    if (!op) return controlError(c, 404, `no operation "${id}"`);
    const failure = failing ? parseInput(failSchema, await readJson(c), 'fail') : undefined;
    const result = endOperationNow(w, op, failure);
    if (!result.ok) return controlError(c, 409, `operation "${op.id}" is already DONE`);
    return c.json(renderOperation(w.state, op, w.clock.now(), 'v1beta1'));
  };
  control.get('/operations', (c) => {
    const filter = parseInput(operationsQuery, c.req.query());
    const w = world(c);
    return c.json({ operations: operationViews(w.state, w.clock.now(), filter) });
  });
  control.get('/node-pools', (c) => c.json({ clusters: clusterViews(world(c).state) }));

  control.post('/operations/:id/complete', settle(false));
  control.post('/operations/:id/fail', settle(true));
}

const ok = (description: string) => ({ 200: { description } });
/** A JSON body with these top-level fields (what the dialect's conformance test reads). */
const body = (description: string, properties: Record<string, unknown>) => ({
  requestBody: {
    required: false,
    description,
    content: { 'application/json': { schema: { type: 'object', properties, additionalProperties: false } } },
  },
});
const settingsBody = body('Only the settings given change; an unknown one is a 400', {
  strictUnknownFields: { type: 'boolean' },
  operationDurationMs: { type: 'integer' },
  operationPolls: { type: 'integer' },
  abortingMs: { type: 'integer' },
  maxNodeSkewMinors: { type: 'integer' },
  concurrentOperationsQuota: { type: 'integer' },
  maxOperations: { type: 'integer' },
  busyMessage: { enum: ['current', 'legacy'] },
  failedPoolStatus: { enum: ['RUNNING_WITH_ERROR', 'ERROR'] },
  cancelError: { type: 'object' },
  etagMismatchMessage: { type: 'string' },
  rollout: { type: 'object' },
  auth: { type: 'object' },
});
const serverConfigBody = body('ServerConfig fields (as GKE names them); the fields given replace theirs', {
  defaultClusterVersion: { type: 'string' },
  validNodeVersions: { type: 'array' },
  defaultImageType: { type: 'string' },
  validImageTypes: { type: 'array' },
  validMasterVersions: { type: 'array' },
  channels: { type: 'array' },
});
/** The older `PUT` of a `PATCH`: served the same, marked deprecated, naming what replaces it. */
const putAlias = (path: string, patch: Record<string, unknown>) => ({
  ...patch,
  deprecated: true,
  'x-replaced-by': `PATCH ${path}`,
  description: `The older spelling of PATCH ${path}, served the same (docs/decisions/0020-control-plane-dialect.md).`,
});
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const settleResponses = (what: string) => ({
  200: { description: `The operation (v1beta1), ${what}` },
  404: { description: 'No operation with this id' },
  409: { description: 'The operation is already DONE' },
});
const settingsPatch = {
  summary: 'Change behaviour settings (only those given)',
  ...settingsBody,
  responses: ok('Settings'),
};
const serverConfigPatch = {
  summary: 'Replace the ServerConfig fields given (versions sorted descending)',
  ...serverConfigBody,
  responses: ok('ServerConfig'),
};

/** OpenAPI paths of the routes above, for `/_sim/openapi.json`. */
export const controlOpenApiPaths: Record<string, unknown> = {
  '/_sim/settings': {
    get: { summary: 'Behaviour settings of this world', responses: ok('Settings') },
    patch: settingsPatch,
    put: putAlias('/_sim/settings', settingsPatch),
  },
  '/_sim/server-config': {
    get: { summary: 'The ServerConfig version resolution uses', responses: ok('ServerConfig') },
    patch: serverConfigPatch,
    put: putAlias('/_sim/server-config', serverConfigPatch),
  },
  '/_sim/operations': {
    get: {
      summary:
        "This world's operations, newest first, with id, project, location, cluster, pool and percent (?status=PENDING|RUNNING|ABORTING|DONE)",
      responses: ok('{ operations: OperationView[] }'),
    },
  },
  '/_sim/node-pools': {
    get: {
      summary: "This world's clusters and their node pools (counts, etag, running operation, rollout)",
      responses: ok('{ clusters: ClusterView[] }'),
    },
  },
  '/_sim/operations/{id}/complete': {
    post: {
      summary: 'Finish an operation now, applying its change',
      parameters: [idParam],
      responses: settleResponses('DONE'),
    },
  },
  '/_sim/operations/{id}/fail': {
    post: {
      summary: 'Fail an operation now (default INTERNAL, "Internal error encountered.")',
      parameters: [idParam],
      ...body('The error the operation ends with', {
        status: { type: 'string' },
        message: { type: 'string' },
      }),
      responses: settleResponses('DONE with its error'),
    },
  },
};
