import { ServerConfig } from '@sims/cluster-schema';
import { type ControlTools, parseInput, readControlJson, type SimEnv } from '@sims/sim-core';
import type { Context, Hono } from 'hono';
import * as z from 'zod';
import { omitDefaults } from '../domain/node-pools';
import { renderOperation } from '../domain/operation-view';
import { settleNow } from '../domain/operations';
import { applyServerConfig, settingsSchema } from '../domain/seed';
import { type ClusterState, mergeSettings, type RpcCodeName, type Settings } from '../domain/state';
import { RPC_STATUS } from '../http/errors';
import type { OperationScheduler } from '../scheduler';
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
 * The cluster simulator's own control routes, under `/_sim`:
 * - `GET|PUT /_sim/settings`: per-world behaviour knobs (timing, strictness, quota, skew, auth principals…)
 * - `GET|PUT /_sim/server-config`: the ServerConfig that version resolution uses
 * - `POST /_sim/operations/{id}/complete` and `/fail`: finish or fail an operation now
 * - `GET /_sim/operations[?status=]`: the world's operations, newest first, with their ids, targets and
 *   percent done (read-only: not a poll)
 * - `GET /_sim/node-pools`: the world's clusters with their pools (node counts, etag, running operation,
 *   rollout phase)
 */
export function registerControlRoutes(
  control: Hono<SimEnv<ClusterState>>,
  tools: ControlTools<ClusterState>,
  scheduler: OperationScheduler,
): void {
  const { world } = tools;

  control.get('/settings', (c) => c.json(world(c).state.settings));
  control.put('/settings', async (c) => {
    const patch = parseInput(settingsSchema(), await readJson(c), 'settings');
    const w = world(c);
    w.state.settings = mergeSettings(w.state.settings, patch as Partial<Settings>);
    return c.json(w.state.settings);
  });

  control.get('/server-config', (c) => c.json(omitDefaults(world(c).state.serverConfig)));
  control.put('/server-config', async (c) => {
    const patch = parseInput(ServerConfig.strict(), await readJson(c), 'serverConfig');
    const w = world(c);
    applyServerConfig(w.state, patch);
    return c.json(omitDefaults(w.state.serverConfig));
  });

  const settle = (failing: boolean) => async (c: Context) => {
    const w = world(c);
    const op = w.state.operations.get(c.req.param('id') ?? '');
    if (!op)
      return c.json(
        { error: { status: 404, reason: 'NOT_FOUND', message: `no operation "${c.req.param('id')}"` } },
        404,
      );
    const failure = failing ? parseInput(failSchema, await readJson(c), 'fail') : undefined;
    const result = settleNow(w.state, op, w.clock.now(), failure);
    if (!result.ok) {
      return c.json(
        { error: { status: 409, reason: 'CONFLICT', message: `operation "${op.id}" is already DONE` } },
        409,
      );
    }
    scheduler.reschedule(w, op);
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

/** OpenAPI paths of the routes above, for `/_sim/openapi.json`. */
export const controlOpenApiPaths: Record<string, unknown> = {
  '/_sim/settings': {
    get: { summary: 'Behaviour settings of this world', responses: { 200: { description: 'Settings' } } },
    put: { summary: 'Change behaviour settings (partial)', responses: { 200: { description: 'Settings' } } },
  },
  '/_sim/server-config': {
    get: {
      summary: 'The ServerConfig version resolution uses',
      responses: { 200: { description: 'ServerConfig' } },
    },
    put: {
      summary: 'Replace ServerConfig fields (versions sorted descending)',
      responses: { 200: { description: 'ServerConfig' } },
    },
  },
  '/_sim/operations': {
    get: {
      summary:
        "This world's operations, newest first, with id, project, location, cluster, pool and percent (?status=PENDING|RUNNING|ABORTING|DONE)",
      responses: { 200: { description: '{ operations: OperationView[] }' } },
    },
  },
  '/_sim/node-pools': {
    get: {
      summary: "This world's clusters and their node pools (counts, etag, running operation, rollout)",
      responses: { 200: { description: '{ clusters: ClusterView[] }' } },
    },
  },
  '/_sim/operations/{id}/complete': {
    post: {
      summary: 'Finish an operation now, applying its change',
      responses: { 200: { description: 'Operation' } },
    },
  },
  '/_sim/operations/{id}/fail': {
    post: {
      summary: 'Fail an operation now: body {status, message}',
      responses: { 200: { description: 'Operation' } },
    },
  },
};
