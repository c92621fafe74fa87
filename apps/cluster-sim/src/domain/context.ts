import { type DomainError, fail, ok } from './errors';
import { checkConcurrency } from './operation-admission';
import type { StartOperation } from './operations';
import { faultStep } from './rollouts';
import type { BlueGreenPhaseName, ClusterRecord, ClusterState, OperationFailure, Rollout } from './state';

/** What the world provides to domain functions: time and ids, injected. */
export interface DomainContext {
  now: number;
  ids: { uuid(): string; hex(length: number): string; int(min: number, max: number): number };
  /**
   * Asked at the point where the cluster's running operations are checked: an injected conflict
   * (busy cluster, quota) from a fault rule, if one fires for this request.
   */
  injectedConflict?: () => DomainError | undefined;
  /** Asked only when an operation is really created: timing and failure overrides from fault rules. */
  operationEffects?: () => OperationEffects;
}

/** What fault rules do to an operation a request starts. */
export interface OperationEffects {
  timing?: StartOperation['timing'];
  failure?: OperationFailure;
  /** The failure hits a surge batch or blue-green phase of a rollout (rather than a fraction of the work). */
  failsAt?: RolloutPoint;
  /** The rollout stops at this batch or phase and never goes on (until cancelled or settled). */
  stallsAt?: RolloutPoint;
}

/** A surge batch (1-based) or a blue-green phase. */
interface RolloutPoint {
  batch?: number;
  phase?: BlueGreenPhaseName;
}

/**
 * The operation fields of fault effects: a batch or phase fault becomes the rollout's fail or stall
 * step (past the last batch: the last); without a rollout, a failure falls at its fraction of the work.
 */
export function withEffects(effects: OperationEffects | undefined, rollout: Rollout | undefined) {
  // No fault effects (GKE's own work): the rollout still sets the operation's steps.
  if (!effects) return rollout ? { rollout } : {};
  const { timing, failure, failsAt, stallsAt } = effects;
  if (rollout && failsAt && failure) rollout.failsAt = faultStep(rollout, failsAt) ?? rollout.steps.length;
  if (rollout && stallsAt) rollout.stalledAt = faultStep(rollout, stallsAt) ?? rollout.steps.length;
  return { timing, failure, ...(rollout ? { rollout } : {}) };
}

/** The concurrency check of a mutation, with any injected conflict first. */
export function admit(
  state: ClusterState,
  record: ClusterRecord,
  request: Parameters<typeof checkConcurrency>[2],
  ctx: DomainContext,
) {
  const injected = ctx.injectedConflict?.();
  return injected ? fail(injected) : checkConcurrency(state, record, request);
}

export function findPool(record: ClusterRecord, pool: string) {
  const found = record.pools.get(pool);
  return found ? ok(found) : fail<DomainError>({ code: 'NODE_POOL_NOT_FOUND', nodePool: pool });
}
