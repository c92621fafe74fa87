import type { Result as CoreResult } from '@sims/sim-core';

/**
 * Every way a domain rule can refuse a request. The HTTP layer renders each code into Google's
 * error envelope in exactly one place (`http/errors.ts`).
 */
export type DomainError =
  | { code: 'CLUSTER_NOT_FOUND'; project: string; location: string; cluster: string }
  | { code: 'NODE_POOL_NOT_FOUND'; nodePool: string }
  | { code: 'OPERATION_NOT_FOUND'; project: string; location: string; operation: string }
  | { code: 'ETAG_MISMATCH'; nodePool: string; given: string; current: string }
  | { code: 'EMPTY_UPDATE' }
  | { code: 'CLUSTER_UPDATE_EMPTY' }
  /** A field or combination GKE would act on and the simulator cannot: refused, never accepted and ignored. */
  | { code: 'NOT_SIMULATED'; what: string }
  | { code: 'NODE_POOL_ID_REQUIRED' }
  | { code: 'VERSION_UNSUPPORTED'; version: string }
  | { code: 'MASTER_VERSION_UNSUPPORTED'; version: string }
  | { code: 'VERSION_MINOR_ABOVE_MASTER'; version: string; master: string }
  | { code: 'VERSION_ABOVE_MASTER'; version: string; master: string }
  | { code: 'VERSION_TOO_OLD'; version: string; master: string; maxSkew: number }
  | {
      code: 'CLUSTER_BUSY';
      operation: string;
      operationType: string;
      cluster: string;
      style: 'current' | 'legacy';
    }
  | { code: 'TOO_MANY_OPERATIONS'; cluster: string; quota: number }
  | { code: 'NODE_POOL_ALREADY_EXISTS'; project: string; location: string; cluster: string; nodePool: string }
  | { code: 'CLUSTER_ALREADY_EXISTS'; project: string; location: string; cluster: string }
  | { code: 'OPERATION_ALREADY_DONE'; operation: string }
  | { code: 'REGIONAL_CLUSTER_VIA_ZONE' }
  | { code: 'INVALID_REQUEST'; message: string; field?: string }
  /**
   * Two node pools of one name in a clusters.create: GKE answers its generic 500 (rancher/gke-operator#122,
   * GKE 1.26: `googleapi: Error 500: Internal error encountered., backendError`).
   */
  | { code: 'POOL_NAME_REPEATED'; nodePool: string }
  /** A request the resource's state does not allow (completeUpgrade outside a soak). */
  | { code: 'FAILED_PRECONDITION'; message: string };

/** sim-core's `Result`, failing with a {@link DomainError} unless told otherwise. */
export type Result<T, E = DomainError> = CoreResult<T, E>;

export { fail, ok } from '@sims/sim-core';
