import type {
  BlueGreenPhase,
  ClusterStatus,
  NodePoolStatus,
  Operation,
  OperationType,
  ServerConfig,
} from '@sims/cluster-schema';
import type { z } from 'zod';
import { createSimClient, type SimClient, type SimClientOptions } from './client';

/** A GKE v1beta1 Operation, as the cluster simulator renders it (`@sims/cluster-schema`). */
export type ClusterOperation = z.infer<typeof Operation>;
/** The GKE ServerConfig the cluster simulator resolves versions with (`@sims/cluster-schema`). */
export type ClusterServerConfig = z.infer<typeof ServerConfig>;

/** An operation's status, as `operations.list({ status })` filters on it. */
export type ClusterOperationStatus = 'PENDING' | 'RUNNING' | 'ABORTING' | 'DONE';

/**
 * An operation as `GET /_sim/operations` lists it: the v1beta1 Operation the API renders, plus what a
 * dashboard or a test needs beside it. Mirrored from the app (apps/cluster-sim `OperationView`).
 */
export interface ClusterOperationView {
  /** The operation's id (the API's `name`). */
  name: string;
  zone: string;
  operationType: z.infer<typeof OperationType>;
  status: ClusterOperationStatus;
  /** `Updating np1, processed 2 out of 4 nodes (50.0%)` while a node upgrade runs. */
  detail?: string;
  statusMessage?: string;
  selfLink: string;
  targetLink: string;
  /** RFC 3339 with microseconds. */
  startTime: string;
  endTime?: string;
  progress?: { metrics: { name: string; intValue?: string; stringValue?: string }[] };
  error?: { code: number; message: string };
  /** The id `operations.complete` and `operations.fail` take (the same as `name`). */
  id: string;
  project: string;
  location: string;
  cluster: string;
  /** The node pool it works on, or null for a cluster operation. */
  pool: string | null;
  /** Work done, 0-100 (one decimal): 0 while PENDING, 100 once DONE, where it stopped when it failed. */
  percent: number | null;
}

/** A node rollout on a pool: one running, or one that stopped midway (failed or cancelled). */
export interface NodePoolRolloutView {
  state: 'RUNNING' | 'STOPPED';
  kind: 'upgrade' | 'rollback';
  strategy: 'SURGE' | 'BLUE_GREEN';
  /** Blue-green: the phase reached (null before the first, and for surge). */
  phase: z.infer<typeof BlueGreenPhase> | null;
  /** Surge: the batch (1-based) running, of `batches`, and its zone. */
  batch: number | null;
  batches: number | null;
  zone: string | null;
  nodesUpgraded: number;
  nodesTotal: number;
  fromVersion: string | null;
  toVersion: string | null;
  /** A fault stalled it: it waits until it is cancelled or settled through the control plane. */
  stalled: boolean;
  /** The operation running it (null once STOPPED). */
  operation: string | null;
}

/** A node pool as `GET /_sim/node-pools` lists it. Mirrored from the app (apps/cluster-sim `PoolView`). */
export interface NodePoolView {
  name: string;
  status: z.infer<typeof NodePoolStatus> | null;
  statusMessage?: string;
  version: string | null;
  /** The etag a client reads now (and must send with a conditional update). */
  etag: string;
  /** Nodes per zone as configured. */
  initialNodeCount: number;
  locations: string[];
  nodesPerZone: Record<string, number>;
  /** Nodes in all zones. */
  nodeCount: number;
  /** Null when autoscaling is off. */
  autoscaling: {
    minNodeCount?: number;
    maxNodeCount?: number;
    totalMinNodeCount?: number;
    totalMaxNodeCount?: number;
    locationPolicy?: string;
    autoprovisioned?: boolean;
  } | null;
  /** The node rollout running on the pool, or the one that stopped midway; null when neither. */
  rollout: NodePoolRolloutView | null;
  /** Id of the running (not DONE) operation working on this pool, or null. */
  operation: string | null;
}

/**
 * A cluster with its node pools, as `GET /_sim/node-pools` lists it. Mirrored from the app
 * (apps/cluster-sim `ClusterView`).
 */
export interface ClusterView {
  project: string;
  location: string;
  name: string;
  status: z.infer<typeof ClusterStatus> | null;
  currentMasterVersion: string | null;
  /** Nodes of all pools, with the surge nodes or green pool of running rollouts (as the API shows it). */
  currentNodeCount: number;
  /** Ids of the cluster's running (not DONE) operations, newest first. */
  operations: string[];
  pools: NodePoolView[];
}

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
    /**
     * The world's operations, newest first, optionally only those in one status. Reading them is not an
     * `operations.get` poll: a poll-driven operation does not move.
     */
    list(options?: { status?: ClusterOperationStatus }): Promise<ClusterOperationView[]>;
    /** Finishes an operation now, applying its change; a SimControlError 409 when it is already DONE. */
    complete(id: string): Promise<ClusterOperation>;
    /** Fails an operation now (default `INTERNAL`, "Internal error encountered."). */
    fail(id: string, error?: { status?: RpcCodeName; message?: string }): Promise<ClusterOperation>;
  };
  nodePools: {
    /** Every cluster of the world with its node pools (node counts, etag, running operation, rollout). */
    list(): Promise<ClusterView[]>;
  };
  withNamespace(name: string): ClusterSimClient;
}

function extendForCluster(base: SimClient): ClusterSimClient {
  const opPath = (id: string, action: string) => `/_sim/operations/${encodeURIComponent(id)}/${action}`;
  return {
    ...base,
    settings: {
      get: () => base.request('GET', '/_sim/settings'),
      update: (patch) => base.request('PATCH', '/_sim/settings', patch),
    },
    serverConfig: {
      get: () => base.request('GET', '/_sim/server-config'),
      update: (patch) => base.request('PATCH', '/_sim/server-config', patch),
    },
    operations: {
      list: async (options = {}) =>
        (
          await base.request<{ operations: ClusterOperationView[] }>('GET', '/_sim/operations', undefined, {
            query: { status: options.status },
          })
        ).operations,
      complete: (id) => base.request('POST', opPath(id, 'complete'), {}),
      fail: (id, error = {}) => base.request('POST', opPath(id, 'fail'), error),
    },
    nodePools: {
      list: async () => (await base.request<{ clusters: ClusterView[] }>('GET', '/_sim/node-pools')).clusters,
    },
    withNamespace: (name) => extendForCluster(base.withNamespace(name)),
  };
}

/**
 * A control-plane client for cluster-sim: everything `createSimClient` offers, plus settings, the
 * ServerConfig, the world's operations (listing them, finishing or failing one now) and its clusters
 * with their node pools.
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
