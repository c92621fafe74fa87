import type { GoogleApiError } from './google-error';
import type { BlueGreenUpgradeSettings, NodePoolApi, NodePoolRef, OperationView } from './node-pool-api';

export interface UpgradeRequest extends NodePoolRef {
  /** An explicit version (`1.30.5-gke.1014000`) or an alias GKE resolves: `latest`, `1.X`, `1.X.Y`, `-`. */
  readonly nodeVersion: string;
}

export interface BlueGreenUpgradeRequest extends UpgradeRequest {
  /** Nodes drained per batch (`standardRolloutPolicy.batchNodeCount`). Default 1. */
  readonly batchNodeCount?: number;
  /** How long the whole green pool soaks before the blue pool is deleted, e.g. `3600s`. Default `3600s`. */
  readonly nodePoolSoakDuration?: string;
}

export interface UpgraderOptions {
  readonly api: NodePoolApi;
  readonly sleep: (ms: number) => Promise<void>;
  /** Re-reads after `ABORTED` (stale etag) before giving up. Default 3. */
  readonly maxAbortedRetries?: number;
  /** One wait per retry after `FAILED_PRECONDITION` (another operation running). Default 10 s, 30 s, 60 s. */
  readonly busyRetryDelaysMs?: readonly number[];
  /** Default 5 s. */
  readonly pollIntervalMs?: number;
  /** Polls of the operation before reporting a time-out. Default 360 (30 min at 5 s). */
  readonly maxPolls?: number;
}

/** What one upgrade came to; every outcome says enough to act on without reading logs. */
export type UpgradeReport =
  | {
      readonly outcome: 'upgraded';
      readonly nodePool: string;
      readonly fromVersion: string;
      /** The explicit version the pool runs now (an alias is read back after the operation). */
      readonly toVersion: string;
      readonly operation: string;
      readonly updateAttempts: number;
      readonly polls: number;
    }
  | {
      readonly outcome: 'operation-failed';
      readonly operation: string;
      readonly error: { readonly code: number; readonly message: string };
    }
  | {
      readonly outcome: 'gave-up';
      readonly reason: 'ABORTED' | 'FAILED_PRECONDITION';
      readonly updateAttempts: number;
      readonly lastError: GoogleApiError;
    }
  | { readonly outcome: 'timed-out'; readonly operation: string; readonly polls: number }
  | {
      readonly outcome: 'rejected';
      readonly step: 'read' | 'update' | 'poll';
      readonly error: GoogleApiError;
    };

/** A blue-green upgrade started (it soaks for `nodePoolSoakDuration`, so it is not waited for). */
export type BlueGreenStartReport =
  | {
      readonly outcome: 'started';
      readonly nodePool: string;
      readonly fromVersion: string;
      readonly operation: string;
      readonly updateAttempts: number;
    }
  | {
      readonly outcome: 'gave-up';
      readonly reason: 'ABORTED' | 'FAILED_PRECONDITION';
      readonly updateAttempts: number;
      readonly lastError: GoogleApiError;
    }
  | { readonly outcome: 'rejected'; readonly step: 'read' | 'update'; readonly error: GoogleApiError };

/** How a request to end a blue-green upgrade's node pool soak early came out. */
export type SoakCompletionReport =
  | { readonly outcome: 'completed'; readonly nodePool: string; readonly greenPoolVersion?: string }
  /** The pool is not soaking: `phase` is where its blue-green upgrade is, absent when none runs. */
  | { readonly outcome: 'not-soaking'; readonly nodePool: string; readonly phase?: string }
  | { readonly outcome: 'rejected'; readonly step: 'read' | 'complete'; readonly error: GoogleApiError };

type UpdateResult =
  | { readonly ok: true; readonly operation: OperationView; readonly updateAttempts: number }
  | {
      readonly ok: false;
      readonly report:
        | Extract<UpgradeReport, { outcome: 'gave-up' }>
        | { readonly outcome: 'rejected'; readonly step: 'read' | 'update'; readonly error: GoogleApiError };
    };

const EXPLICIT_VERSION = /^\d+\.\d+\.\d+-gke\.\d+$/;

/** True for a version GKE stores verbatim; anything else is an alias that needs a read-back. */
export function isExplicitVersion(version: string): boolean {
  return EXPLICIT_VERSION.test(version);
}

/**
 * Upgrades one node pool the careful way: read the pool and its etag, update with that etag, re-read
 * and retry when the etag went stale (ABORTED, HTTP 409), wait and retry while another operation holds
 * the cluster (FAILED_PRECONDITION, HTTP 400), then poll the operation until DONE and report how it ended.
 *
 * @example
 * const upgrader = createNodePoolUpgrader({ api: createNodePoolApi({ baseUrl, accessToken }), sleep });
 * const report = await upgrader.upgrade({ project: 'p', location: 'us-central1-a', cluster: 'c', nodePool: 'np', nodeVersion: '1.30' });
 */
export function createNodePoolUpgrader(options: UpgraderOptions) {
  const { api, sleep } = options;
  const maxAbortedRetries = options.maxAbortedRetries ?? 3;
  const busyRetryDelaysMs = options.busyRetryDelaysMs ?? [10_000, 30_000, 60_000];
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const maxPolls = options.maxPolls ?? 360;

  /** Updates with the etag read, re-reading after ABORTED and waiting after FAILED_PRECONDITION (bounded). */
  async function updateWithRetries(
    ref: NodePoolRef,
    readEtag: string,
    update: { nodeVersion: string; upgradeSettings?: BlueGreenUpgradeSettings },
  ): Promise<UpdateResult> {
    let etag = readEtag;
    let updateAttempts = 0;
    let abortedRetries = 0;
    let busyRetries = 0;
    for (;;) {
      updateAttempts++;
      const result = await api.updateNodePool(ref, { ...update, etag });
      if (result.ok) return { ok: true, operation: result.value, updateAttempts };
      const { error } = result;
      if (error.status === 'ABORTED') {
        if (abortedRetries === maxAbortedRetries) {
          return {
            ok: false,
            report: { outcome: 'gave-up', reason: 'ABORTED', updateAttempts, lastError: error },
          };
        }
        abortedRetries++;
        // Someone changed the pool since we read it: take the fresh etag and try again.
        const reread = await api.getNodePool(ref);
        if (!reread.ok)
          return { ok: false, report: { outcome: 'rejected', step: 'read', error: reread.error } };
        etag = reread.value.etag;
        continue;
      }
      if (error.status === 'FAILED_PRECONDITION') {
        const delay = busyRetryDelaysMs[busyRetries];
        if (delay === undefined) {
          return {
            ok: false,
            report: { outcome: 'gave-up', reason: 'FAILED_PRECONDITION', updateAttempts, lastError: error },
          };
        }
        busyRetries++;
        // Same etag on purpose: if the other operation changed the pool, the next try says ABORTED
        // and the branch above re-reads.
        await sleep(delay);
        continue;
      }
      return { ok: false, report: { outcome: 'rejected', step: 'update', error } };
    }
  }

  async function upgrade(request: UpgradeRequest): Promise<UpgradeReport> {
    const ref: NodePoolRef = request;
    const read = await api.getNodePool(ref);
    if (!read.ok) return { outcome: 'rejected', step: 'read', error: read.error };
    const fromVersion = read.value.version;

    const updated = await updateWithRetries(ref, read.value.etag, { nodeVersion: request.nodeVersion });
    if (!updated.ok) return updated.report;
    const { updateAttempts } = updated;
    let operation = updated.operation;

    let polls = 0;
    while (operation.status !== 'DONE') {
      if (polls === maxPolls) return { outcome: 'timed-out', operation: operation.name, polls };
      await sleep(pollIntervalMs);
      polls++;
      const poll = await api.getOperation({
        project: request.project,
        location: request.location,
        operation: operation.name,
      });
      if (!poll.ok) return { outcome: 'rejected', step: 'poll', error: poll.error };
      operation = poll.value;
    }
    if (operation.error) {
      return { outcome: 'operation-failed', operation: operation.name, error: operation.error };
    }

    let toVersion = request.nodeVersion;
    if (!isExplicitVersion(request.nodeVersion)) {
      const after = await api.getNodePool(ref);
      if (!after.ok) return { outcome: 'rejected', step: 'read', error: after.error };
      toVersion = after.value.version;
    }
    return {
      outcome: 'upgraded',
      nodePool: request.nodePool,
      fromVersion,
      toVersion,
      operation: operation.name,
      updateAttempts,
      polls,
    };
  }

  /**
   * Starts a blue-green upgrade (GKE creates a green pool beside the blue one, drains the blue pool in
   * batches, soaks, then deletes the blue pool): reads the etag and updates with the blue-green
   * `upgradeSettings`, with the same retries as `upgrade`. The soak lasts `nodePoolSoakDuration`, so the
   * operation is returned, not polled.
   */
  async function startBlueGreenUpgrade(request: BlueGreenUpgradeRequest): Promise<BlueGreenStartReport> {
    const ref: NodePoolRef = request;
    const read = await api.getNodePool(ref);
    if (!read.ok) return { outcome: 'rejected', step: 'read', error: read.error };
    const updated = await updateWithRetries(ref, read.value.etag, {
      nodeVersion: request.nodeVersion,
      upgradeSettings: {
        strategy: 'BLUE_GREEN',
        blueGreenSettings: {
          standardRolloutPolicy: { batchNodeCount: request.batchNodeCount ?? 1 },
          nodePoolSoakDuration: request.nodePoolSoakDuration ?? '3600s',
        },
      },
    });
    if (!updated.ok) return updated.report;
    return {
      outcome: 'started',
      nodePool: request.nodePool,
      fromVersion: read.value.version,
      operation: updated.operation.name,
      updateAttempts: updated.updateAttempts,
    };
  }

  /**
   * Ends the node pool soak of a blue-green upgrade now (`completeUpgrade`), so that GKE deletes the blue
   * pool; only when the pool reads `NODE_POOL_SOAKING`, since GKE refuses the call in any other phase.
   */
  async function completeBlueGreenUpgrade(ref: NodePoolRef): Promise<SoakCompletionReport> {
    const read = await api.getNodePool(ref);
    if (!read.ok) return { outcome: 'rejected', step: 'read', error: read.error };
    const blueGreen = read.value.blueGreen;
    if (blueGreen?.phase !== 'NODE_POOL_SOAKING') {
      return blueGreen
        ? { outcome: 'not-soaking', nodePool: ref.nodePool, phase: blueGreen.phase }
        : { outcome: 'not-soaking', nodePool: ref.nodePool };
    }
    const complete = await api.completeNodePoolUpgrade(ref);
    if (!complete.ok) return { outcome: 'rejected', step: 'complete', error: complete.error };
    return blueGreen.greenPoolVersion
      ? { outcome: 'completed', nodePool: ref.nodePool, greenPoolVersion: blueGreen.greenPoolVersion }
      : { outcome: 'completed', nodePool: ref.nodePool };
  }

  return { upgrade, startBlueGreenUpgrade, completeBlueGreenUpgrade };
}

export type NodePoolUpgrader = ReturnType<typeof createNodePoolUpgrader>;
