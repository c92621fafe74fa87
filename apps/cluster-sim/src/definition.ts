import { RpcCode } from '@sims/cluster-schema';
import { parseInput, SimInputError, type SimulatorDefinition, type World } from '@sims/sim-core';
import * as z from 'zod';
// Only `version` is bundled (esbuild keeps the JSON fields a named import uses).
import { version } from '../package.json';
import { controlOpenApiPaths, registerControlRoutes } from './control/routes';
import { applySeed, seedSchema } from './domain/seed';
import { exportClusterState, importClusterState } from './domain/snapshot';
import { type ClusterState, createClusterState, type Settings } from './domain/state';
import { type HttpError, RPC_STATUS, renderError } from './http/errors';
import type { OperationScheduler } from './scheduler';

export const SIMULATOR_NAME = 'cluster-sim';
/** The package's version (changesets bumps it), in the CLI's ready line and `--version`. */
export const SIMULATOR_VERSION: string = version;

const rpcName = z.enum(Object.keys(RPC_STATUS) as [keyof typeof RPC_STATUS, ...(keyof typeof RPC_STATUS)[]]);

/** `effect.error` of a fault rule: a google.rpc.Code name (or number), an optional message and legacy reason. */
const errorEffect = z
  .object({
    status: z.union([rpcName, z.int().min(0).max(16)]),
    message: z.string().optional(),
    reason: z.string().optional(),
  })
  .strict();

/** The blue-green phases a rollout fault can name (those a rollout passes through). */
const rolloutPhase = z.enum([
  'CREATING_GREEN_POOL',
  'CORDONING_BLUE_POOL',
  'WAITING_TO_DRAIN_BLUE_POOL',
  'DRAINING_BLUE_POOL',
  'NODE_POOL_SOAKING',
  'DELETING_BLUE_POOL',
]);

/** The cluster simulator's domain fault effects. */
export const domainEffects = {
  /**
   * The operation this request starts fails once it reaches `atProgress` (0..1, default 0.5), or, for a
   * node rollout, when surge batch `atBatch` (1-based) or blue-green phase `atPhase` would end (nodes
   * already upgraded stay upgraded: a mixed pool).
   */
  operationFails: z
    .object({
      atProgress: z.number().min(0).max(1).optional(),
      atBatch: z.int().positive().optional(),
      atPhase: rolloutPhase.optional(),
      status: RpcCode.optional(),
      message: z.string().optional(),
    })
    .strict()
    .refine(
      (v) => [v.atProgress, v.atBatch, v.atPhase].filter((x) => x !== undefined).length <= 1,
      'give at most one of atProgress, atBatch or atPhase',
    ),
  /**
   * The node rollout this request starts stops at surge batch `atBatch` or blue-green phase `atPhase` and
   * stays there (RUNNING) until it is cancelled or settled through the control plane.
   */
  operationStalls: z
    .object({ atBatch: z.int().positive().optional(), atPhase: rolloutPhase.optional() })
    .strict()
    .refine(
      (v) => (v.atBatch === undefined) !== (v.atPhase === undefined),
      'give exactly one of atBatch or atPhase',
    ),
  /** The operation this request starts takes this long (duration) or this many `operations.get` polls. */
  operationDuration: z
    .object({
      duration: z.union([z.string().min(1), z.number().nonnegative()]).optional(),
      polls: z.int().positive().optional(),
    })
    .strict()
    .refine(
      (v) => (v.duration === undefined) !== (v.polls === undefined),
      'give exactly one of duration or polls',
    ),
  /** A concurrent writer changes the node pool just before the request is applied (so its etag is stale). */
  etagBump: z.union([z.literal(true), z.object({}).strict()]),
  /** The cluster is running an incompatible operation: FAILED_PRECONDITION. */
  clusterBusy: z.object({ operation: z.string().optional(), operationType: z.string().optional() }).strict(),
  /** The cluster is at its concurrent-operation quota: RESOURCE_EXHAUSTED. */
  quotaExhausted: z.object({ quota: z.int().positive().optional() }).strict(),
};

function errorContext(c: { var: { sim?: { requestId: string } } }, world?: World<ClusterState>) {
  return {
    requestId: c.var.sim?.requestId ?? '00000000-0000-4000-8000-000000000000',
    etagMessage: world?.state.settings.etagMismatchMessage,
  };
}

/** Builds the SimulatorDefinition (a factory: nothing is shared between two simulators). */
export function createClusterDefinition(deps: {
  settings?: Partial<Settings>;
  scheduler: OperationScheduler;
}): SimulatorDefinition<ClusterState> {
  const { scheduler } = deps;
  return {
    name: SIMULATOR_NAME,
    version: SIMULATOR_VERSION,
    createState: () => createClusterState(deps.settings),
    exportState: (world) => exportClusterState(world.state),
    importState(world, snapshot) {
      const next = importClusterState(snapshot);
      if (next instanceof z.ZodError) {
        const issue = next.issues[0];
        throw new SimInputError(`state: ${issue?.message ?? 'invalid snapshot'}`, [
          'state',
          ...((issue?.path ?? []) as (string | number)[]),
        ]);
      }
      world.state = next;
      scheduler.rescheduleAll(world);
    },
    seed(world, input) {
      const parsed = parseInput(seedSchema(), input ?? {}, 'seed');
      const result = applySeed(world.state, parsed, { now: world.clock.now(), ids: world.ids });
      if (!result.ok) throw new SimInputError(`seed.${result.error}`);
      for (const op of result.value.started) scheduler.schedule(world, op);
      return result.value.result;
    },
    renderFaultError(c, error) {
      const status =
        typeof error.status === 'number'
          ? ((Object.keys(RPC_STATUS)[error.status] as keyof typeof RPC_STATUS | undefined) ?? 'UNKNOWN')
          : (error.status as keyof typeof RPC_STATUS);
      const injected: HttpError = {
        code: 'INJECTED',
        status,
        message: error.message,
        reason: typeof error.reason === 'string' ? error.reason : undefined,
      };
      return renderError(injected, errorContext(c, c.var.sim?.world));
    },
    // Google's front end: 10 MiB of request body; protobuf's JSON parser: 100 levels of nesting.
    limits: { maxBodyBytes: 10 * 1024 * 1024, maxJsonDepth: 100 },
    renderPayloadTooLarge: (c, limit) =>
      renderError({ code: 'PAYLOAD_TOO_LARGE', limit }, errorContext(c, c.var.sim?.world)),
    errorEffect,
    domainEffects,
    controlRoutes: (control, tools) => registerControlRoutes(control, tools, scheduler),
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
