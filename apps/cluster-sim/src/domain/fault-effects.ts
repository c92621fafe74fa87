import { OperationType, RpcCode } from '@sims/cluster-schema';
import { type DomainEffectValue, defineDomainEffects, lazy } from '@sims/sim-core';
import * as z from 'zod';

/** The blue-green phases a rollout fault can name (those a rollout passes through). */
const rolloutPhase = lazy(() =>
  z.enum([
    'CREATING_GREEN_POOL',
    'CORDONING_BLUE_POOL',
    'WAITING_TO_DRAIN_BLUE_POOL',
    'DRAINING_BLUE_POOL',
    'NODE_POOL_SOAKING',
    'DELETING_BLUE_POOL',
  ]),
);

/**
 * The cluster simulator's domain fault effects: the schemas fault rules are validated with, and the
 * typed reads of them (`clusterEffects.takeEffect(sim, 'operationFails')`).
 */
export const clusterEffects = defineDomainEffects({
  /**
   * The operation this request starts fails once it reaches `atProgress` (0..1, default 0.5), or, for a
   * node rollout, when surge batch `atBatch` (1-based) or blue-green phase `atPhase` would end (nodes
   * already upgraded stay upgraded: a mixed pool).
   */
  operationFails: () =>
    z
      .object({
        atProgress: z.number().min(0).max(1).optional(),
        atBatch: z.int().positive().optional(),
        atPhase: rolloutPhase().optional(),
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
  operationStalls: () =>
    z
      .object({ atBatch: z.int().positive().optional(), atPhase: rolloutPhase().optional() })
      .strict()
      .refine(
        (v) => (v.atBatch === undefined) !== (v.atPhase === undefined),
        'give exactly one of atBatch or atPhase',
      ),
  /** The operation this request starts takes this long (duration) or this many `operations.get` polls. */
  operationDuration: () =>
    z
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
  etagBump: () => z.union([z.literal(true), z.object({}).strict()]),
  /**
   * The cluster is running an incompatible operation: FAILED_PRECONDITION naming it. Without `operation`
   * the simulator records one of `operationType` (default UPGRADE_MASTER) on the cluster, already DONE,
   * so that `operations.get` finds it; an `operation` given is the user's own id, named as given.
   */
  clusterBusy: () =>
    z.object({ operation: z.string().optional(), operationType: OperationType.optional() }).strict(),
  /** The cluster is at its concurrent-operation quota: RESOURCE_EXHAUSTED. */
  quotaExhausted: () => z.object({ quota: z.int().positive().optional() }).strict(),
});

export type OperationFailsEffect = DomainEffectValue<typeof clusterEffects, 'operationFails'>;
export type OperationStallsEffect = DomainEffectValue<typeof clusterEffects, 'operationStalls'>;
export type OperationDurationEffect = DomainEffectValue<typeof clusterEffects, 'operationDuration'>;
