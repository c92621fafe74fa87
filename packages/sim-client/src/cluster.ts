import type { Operation, ServerConfig } from '@sims/cluster-schema';
import type { z } from 'zod';
import { createSimClient, type SimClient, type SimClientOptions } from './client';

/** A GKE v1beta1 Operation, as the cluster simulator renders it (`@sims/cluster-schema`). */
export type ClusterOperation = z.infer<typeof Operation>;
/** The GKE ServerConfig the cluster simulator resolves versions with (`@sims/cluster-schema`). */
export type ClusterServerConfig = z.infer<typeof ServerConfig>;

/** A google.rpc code name, e.g. `ABORTED`, `INTERNAL`. */
export type RpcCodeName =
  | 'OK'
  | 'CANCELLED'
  | 'UNKNOWN'
  | 'INVALID_ARGUMENT'
  | 'DEADLINE_EXCEEDED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'PERMISSION_DENIED'
  | 'RESOURCE_EXHAUSTED'
  | 'FAILED_PRECONDITION'
  | 'ABORTED'
  | 'OUT_OF_RANGE'
  | 'UNIMPLEMENTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'DATA_LOSS'
  | 'UNAUTHENTICATED';

export interface ClusterSimPrincipal {
  /** OAuth scopes of the token (default cloud-platform); the API needs `https://www.googleapis.com/auth/cloud-platform`. */
  scopes?: string[];
  /** IAM permissions granted (default all), each `container.clusters.update` or `container.clusters.update@<resource glob>`. */
  permissions?: string[];
  /** Permissions withheld even if granted above, same forms. */
  deniedPermissions?: string[];
}

/**
 * The cluster simulator's per-world behaviour knobs (`GET /_sim/settings`), mirrored from the app
 * (apps/cluster-sim `Settings`); an app is not a package this one may depend on.
 */
export interface ClusterSimSettings {
  /** Unknown body fields → 400 (Google's front end), or ignored. */
  strictUnknownFields: boolean;
  /** World time from creation to DONE, in ms. */
  operationDurationMs: number;
  /** When set, operations complete after this many `operations.get` polls instead of on the clock. */
  operationPolls?: number;
  abortingMs: number;
  maxNodeSkewMinors: number;
  /** Concurrent (not DONE) operations allowed per cluster. */
  concurrentOperationsQuota: number;
  busyMessage: 'current' | 'legacy';
  failedPoolStatus: 'RUNNING_WITH_ERROR' | 'ERROR';
  cancelError: { status: RpcCodeName; message: string };
  /** Operations kept per world: beyond this, the oldest DONE ones are forgotten (bounded memory). */
  maxOperations: number;
  etagMismatchMessage: string;
  /** Node rollouts (surge batches, blue-green phases), in ms of world time; see cluster-sim's README. */
  rollout: {
    /** Time to upgrade one surge batch, or to drain one blue-green batch (unset: shared out of operationDurationMs). */
    batchMs?: number;
    /** Time of each blue-green phase that is not a batch or a soak (unset: shared out of operationDurationMs). */
    phaseMs?: number;
    /** The node pool soak when blueGreenSettings sets none (GKE: 1 hour). */
    defaultNodePoolSoakMs: number;
    /** The wait before draining under autoscaledRolloutPolicy when it sets none (GKE: 3 days). */
    defaultWaitForDrainMs: number;
  };
  auth: {
    principals: Record<string, ClusterSimPrincipal>;
    rejectedTokens: Record<string, 'ACCESS_TOKEN_EXPIRED' | 'ACCESS_TOKEN_TYPE_UNSUPPORTED'>;
    denyUnknownTokens: boolean;
  };
}

/** A partial update of the settings: top-level fields replace, `auth` and `rollout` are merged one level deep. */
export type ClusterSimSettingsPatch = Partial<Omit<ClusterSimSettings, 'auth' | 'rollout'>> & {
  auth?: Partial<ClusterSimSettings['auth']>;
  rollout?: Partial<ClusterSimSettings['rollout']>;
};

/** The cluster simulator's control plane: the shared one plus its own routes. */
export interface ClusterSimClient extends SimClient {
  settings: {
    get(): Promise<ClusterSimSettings>;
    /** Changes some settings of this namespace's world; answers with all of them. */
    update(patch: ClusterSimSettingsPatch): Promise<ClusterSimSettings>;
  };
  serverConfig: {
    get(): Promise<ClusterServerConfig>;
    /** Replaces the given ServerConfig fields (versions sorted descending by the simulator). */
    update(patch: ClusterServerConfig): Promise<ClusterServerConfig>;
  };
  operations: {
    /** Finishes an operation now, applying its change; a SimControlError 409 when it is already DONE. */
    complete(id: string): Promise<ClusterOperation>;
    /** Fails an operation now (default `INTERNAL`, "Internal error encountered."). */
    fail(id: string, error?: { status?: RpcCodeName; message?: string }): Promise<ClusterOperation>;
  };
  withNamespace(name: string): ClusterSimClient;
}

function extendForCluster(base: SimClient): ClusterSimClient {
  const opPath = (id: string, action: string) => `/_sim/operations/${encodeURIComponent(id)}/${action}`;
  return {
    ...base,
    settings: {
      get: () => base.request('GET', '/_sim/settings'),
      update: (patch) => base.request('PUT', '/_sim/settings', patch),
    },
    serverConfig: {
      get: () => base.request('GET', '/_sim/server-config'),
      update: (patch) => base.request('PUT', '/_sim/server-config', patch),
    },
    operations: {
      complete: (id) => base.request('POST', opPath(id, 'complete'), {}),
      fail: (id, error = {}) => base.request('POST', opPath(id, 'fail'), error),
    },
    withNamespace: (name) => extendForCluster(base.withNamespace(name)),
  };
}

/**
 * A control-plane client for cluster-sim: everything `createSimClient` offers, plus settings, the
 * ServerConfig, and finishing or failing operations now.
 *
 * @example
 * const sim = createClusterSimClient({ baseUrl: 'http://127.0.0.1:8085' });
 * await sim.settings.update({ operationDurationMs: 60_000 });
 * const op = await startUpgrade(); // the code under test
 * await sim.operations.fail(op.name!, { status: 'INTERNAL', message: 'upgrade failed midway' });
 */
export function createClusterSimClient(options: SimClientOptions): ClusterSimClient {
  return extendForCluster(createSimClient(options));
}
