import { parseInput, SimInputError, type SimulatorDefinition, type World } from '@sims/sim-core';
import * as z from 'zod';
// Only `version` is bundled (esbuild keeps the JSON fields a named import uses).
import { version } from '../package.json';
import { controlOpenApiPaths, registerControlRoutes } from './control/routes';
import { clusterEffects } from './domain/fault-effects';
import { nodeRecreationWork } from './domain/node-recreation';
import { OPERATION_WORK } from './domain/operation-work';
import { adoptBudget, CLUSTER_BUDGET_KINDS } from './domain/operations-budget';
import { applySeed, seedSchema } from './domain/seed';
import { exportClusterState, importClusterState } from './domain/snapshot';
import { type ClusterState, createClusterState, type Settings } from './domain/state';
import { renderComputeFault } from './http/compute-errors';
import { type HttpError, RPC_STATUS, renderError } from './http/errors';

export const SIMULATOR_NAME = 'cluster-sim';
/** The package's version (changesets bumps it), in the CLI's ready line and `--version`. */
export const SIMULATOR_VERSION: string = version;

/** `effect.error` of a fault rule: a google.rpc.Code name (or number), an optional message and legacy reason. */
const errorEffect = () =>
  z
    .object({
      status: z.union([
        z.enum(Object.keys(RPC_STATUS) as [keyof typeof RPC_STATUS, ...(keyof typeof RPC_STATUS)[]]),
        z.int().min(0).max(16),
      ]),
      message: z.string().optional(),
      reason: z.string().optional(),
    })
    .strict();

/** The cluster simulator's domain fault effects, by name with their value schemas. */
export const domainEffects = clusterEffects.schemas;

function errorContext(c: { var: { sim?: { requestId: string } } }, world?: World<ClusterState>) {
  return {
    requestId: c.var.sim?.requestId ?? '00000000-0000-4000-8000-000000000000',
    etagMessage: world?.state.settings.etagMismatchMessage,
  };
}

/** Builds the SimulatorDefinition (a factory: nothing is shared between two simulators). */
export function createClusterDefinition(deps: {
  settings?: Partial<Settings>;
}): SimulatorDefinition<ClusterState> {
  return {
    name: SIMULATOR_NAME,
    version: SIMULATOR_VERSION,
    budgetKinds: CLUSTER_BUDGET_KINDS,
    createState: (world) => createClusterState(deps.settings, world.budget),
    exportState: (world) => exportClusterState(world.state),
    importState(world, snapshot) {
      // Checked whole before the world's state is replaced (domain/snapshot.ts).
      const next = importClusterState(snapshot, createClusterState(deps.settings));
      if (!next.ok) throw new SimInputError(next.error.message, next.error.path);
      adoptBudget(next.value, world.budget);
      world.state = next.value;
      // The replaced operations' clock events go; the imported ones' still ahead are armed, those
      // already due happen now, in order.
      world.timers.rearm(OPERATION_WORK);
      // GKE's node recreations of the rotations in progress look again at the import's time.
      world.timers.rearm(nodeRecreationWork(world));
    },
    seed(world, input) {
      const parsed = parseInput(seedSchema(), input ?? {}, 'seed');
      const result = applySeed(world.state, parsed, { now: world.clock.now(), ids: world.ids });
      if (!result.ok) throw new SimInputError(`seed.${result.error}`);
      for (const op of result.value.started) world.timers.arm(OPERATION_WORK, op);
      return result.value.result;
    },
    renderFaultError(c, error) {
      const status =
        typeof error.status === 'number'
          ? ((Object.keys(RPC_STATUS)[error.status] as keyof typeof RPC_STATUS | undefined) ?? 'UNKNOWN')
          : (error.status as keyof typeof RPC_STATUS);
      const fault = {
        status,
        message: error.message,
        reason: typeof error.reason === 'string' ? error.reason : undefined,
      };
      // A Compute route's rule answers in Compute's envelope; the container API's in google.rpc.Status.
      const operation = c.var.sim?.operation;
      if (operation?.startsWith('compute.')) {
        const { requestId } = errorContext(c);
        return renderComputeFault(fault, { operation, path: c.req.path, requestId });
      }
      const injected: HttpError = { code: 'INJECTED', ...fault };
      return renderError(injected, errorContext(c, c.var.sim?.world));
    },
    // Google's front end: 10 MiB of request body; protobuf's JSON parser: 100 levels of nesting.
    limits: { maxBodyBytes: 10 * 1024 * 1024, maxJsonDepth: 100 },
    renderPayloadTooLarge: (c, limit) =>
      renderError({ code: 'PAYLOAD_TOO_LARGE', limit }, errorContext(c, c.var.sim?.world)),
    errorEffect,
    domainEffects,
    controlRoutes: (control, tools) => registerControlRoutes(control, tools),
    // The dashboard's browser code (packages/dashboard), read on the first request for /_sim/ui/.
    dashboard: () => import('./ui/dashboard.generated').then((m) => m.dashboardAssets),
    controlOpenApiPaths,
    renderNotFound: (c) =>
      renderError({ code: 'ROUTE_NOT_FOUND', method: c.req.method, path: c.req.path }, errorContext(c)),
    renderInternalError(c, error) {
      console.error(error);
      return renderError({ code: 'INTERNAL' }, errorContext(c));
    },
  };
}
