import type {
  BlueGreenPhase,
  Cluster,
  NodePool,
  OperationType,
  RpcCode,
  ServerConfig,
  UpgradeDetails,
} from '@sims/cluster-schema';
import type { WorldBudget } from '@sims/sim-core';
import type { z } from 'zod';
import type { PendingChange } from './pending-change';

export type NodePoolShape = z.infer<typeof NodePool>;
export type ClusterShape = z.infer<typeof Cluster>;
type ServerConfigShape = z.infer<typeof ServerConfig>;
export type OperationTypeName = z.infer<typeof OperationType>;
export type RpcCodeName = z.infer<typeof RpcCode>;
export type OperationStatusName = 'PENDING' | 'RUNNING' | 'ABORTING' | 'DONE';
export type BlueGreenPhaseName = z.infer<typeof BlueGreenPhase>;
export type UpgradeDetailsShape = z.infer<typeof UpgradeDetails>;

/**
 * What an upgrade that stopped midway (cancelled, failed) left on a pool: some nodes on the new version
 * (a mixed pool), which `nodePools.rollback` brings back and a new update carries on from.
 */
export interface PartialUpgrade {
  strategy: 'SURGE' | 'BLUE_GREEN';
  /** The pool's nodes as they were (what rollback restores). */
  from: NodePoolShape;
  /** What the stopped upgrade was going to (its version and config). */
  to: NodePoolShape;
  /** Nodes already on the new version (surge), or drained to the green pool (blue-green). */
  nodesUpgraded: number;
  /** Blue-green: the phase reached, and the green pool's instance groups (they still exist). */
  phase?: BlueGreenPhaseName;
  greenInstanceGroupUrls?: string[];
}
/** A node pool as stored: the wire object without server-computed fields (etag, selfLink). */
export interface PoolRecord {
  pool: NodePoolShape;
  /** Invisible writes (a concurrent writer fault) that must still change the etag. */
  generation: number;
  /** An etag given by a seed (provider states name exact etags); dropped by the next write. */
  pinnedEtag?: string;
  /** A mixed pool: an upgrade stopped midway (rollback's input). */
  partial?: PartialUpgrade;
  /** Version upgrades of this pool, oldest first (`fetchNodePoolUpgradeInfo`'s upgradeDetails). */
  upgrades?: UpgradeDetailsShape[];
  /** What was last derived from `pool` (node-pools.ts): never exported, rebuilt when `pool` changes. */
  derived?: PoolDerived;
}

/**
 * A stored pool's etag and its last rendering, valid while `pool` is the same object at the same
 * generation (a stored pool is a value: every write replaces it).
 */
export interface PoolDerived {
  pool: NodePoolShape;
  generation: number;
  etag: string;
  rendered?: { selfLink: string; etag: string; value: NodePoolShape };
}

export interface ClusterRecord {
  projectId: string;
  location: string;
  name: string;
  /** The wire cluster without nodePools, selfLink and etag. */
  cluster: ClusterShape;
  pools: Map<string, PoolRecord>;
  generation: number;
  /** Master version upgrades, oldest first (`fetchClusterUpgradeInfo`'s upgradeDetails). */
  masterUpgrades?: UpgradeDetailsShape[];
  /** The control plane's rotations (startIpRotation / completeIpRotation); absent until the first. */
  credentials?: ControlPlaneCredentials;
}

/**
 * What IP and credential rotations left on a cluster: how many were started (its CA and, for credential
 * rotations, its service account signing key derive from the counts) and the rotation in progress.
 */
export interface ControlPlaneCredentials {
  /** Rotations whose start is DONE (IP and credential rotations both issue a new cluster CA). */
  rotations: number;
  /** Credential rotations whose start is DONE (each issues a new service account signing key). */
  keyRotations: number;
  /** Between a start's DONE and the completion's DONE. */
  rotation?: IpRotation;
}

interface IpRotation {
  /** A credential rotation (`rotateCredentials`), or an IP rotation only. */
  credentials: boolean;
  /** Pools whose nodes still point at the previous endpoint: recreating them clears them. */
  poolsToRecreate: string[];
  /**
   * When GKE may begin recreating the pools itself (node-recreation.ts): an hour after the start is
   * DONE; absent in snapshots made before it was kept (then at once).
   */
  recreateFrom?: number;
}

/** How an operation advances: on the world clock, or after N polls of `operations.get`. */
type OperationPlan =
  | { mode: 'time'; runningAt: number; doneAt: number }
  | { mode: 'polls'; polls: number; seen: number };

/**
 * One point of a node rollout: reached `offset` ms after the operation starts running (at the
 * nominal timing; a fault's duration scales them all).
 */
export interface RolloutStep {
  offset: number;
  /** Nodes on the new version (surge) or drained to the green pool (blue-green) once this step is reached. */
  nodesDone: number;
  /** Nodes that exist beside the pool's own from this step to the next: surge nodes, the green pool. */
  extraNodes: number;
  /** Blue-green: the phase this step enters. */
  phase?: BlueGreenPhaseName;
  /** Surge: the zone whose batch starts at this step. */
  zone?: string;
  /** Surge: the batch (1-based) that starts at this step. */
  batch?: number;
}

/**
 * A node rollout: an UPGRADE_NODES operation that recreates nodes, batch by batch (surge) or phase by
 * phase (blue-green), or a rollback that brings upgraded nodes back.
 */
export interface Rollout {
  strategy: 'SURGE' | 'BLUE_GREEN';
  kind: 'upgrade' | 'rollback';
  steps: RolloutStep[];
  /** Nominal running time (ms): the last step's end, when the operation is DONE. */
  total: number;
  /** Index of the last step applied; -1 before the first. */
  reached: number;
  /** The pool before the rollout (the blue pool). */
  from: NodePoolShape;
  /** Blue-green: the green pool's instance groups and version. */
  greenInstanceGroupUrls?: string[];
  greenPoolVersion?: string;
  /** A fault stalls the rollout: this step and those after it never come. */
  stalledAt?: number;
  /** A fault fails the rollout when this step would be reached (the batch or phase before it fails). */
  failsAt?: number;
  /** When the upgrade started and the version it left (fetchNodePoolUpgradeInfo). */
  startedAt: number;
}

export type { PendingChange };

export interface OperationFailure {
  /** Fraction in [0, 1] of the work done when it fails. */
  atProgress: number;
  status: RpcCodeName;
  message: string;
}

export interface OperationRecord {
  id: string;
  projectId: string;
  location: string;
  type: OperationTypeName;
  cluster: string;
  nodePool?: string;
  status: OperationStatusName;
  startTime: number;
  endTime?: number;
  plan: OperationPlan;
  nodesTotal: number;
  failure?: OperationFailure;
  /** Fraction of work done when the operation ended early (failed or cancelled). */
  endedAt?: number;
  /** When an ABORTING operation reaches DONE. */
  abortDoneAt?: number;
  statusMessage?: string;
  error?: { code: number; message: string };
  change: PendingChange;
  /** A node rollout's steps (UPGRADE_NODES that recreates nodes, rollback). */
  rollout?: Rollout;
}

export interface Principal {
  /** OAuth scopes of the token (default cloud-platform); the API needs `https://www.googleapis.com/auth/cloud-platform`. */
  scopes?: string[];
  /** IAM permissions granted (default all), each `container.clusters.update` or `container.clusters.update@<resource glob>`. */
  permissions?: string[];
  /** Permissions withheld even if granted above, same forms. */
  deniedPermissions?: string[];
}

export interface AuthSettings {
  /** Tokens mapped to principals. A token not listed is a principal with every permission unless `denyUnknownTokens`. */
  principals: Record<string, Principal>;
  /** Tokens answered with 401 and the given ErrorInfo reason. */
  rejectedTokens: Record<string, 'ACCESS_TOKEN_EXPIRED' | 'ACCESS_TOKEN_TYPE_UNSUPPORTED'>;
  denyUnknownTokens: boolean;
}

/** Per-world knobs for behaviour whose real values are unknown or that tests want to vary. */
export interface Settings {
  /** Unknown body fields → 400 (Google's front end), or ignored (for clients newer than the simulator). */
  strictUnknownFields: boolean;
  /** Time from creation to DONE, in ms of world time. Default 2000. */
  operationDurationMs: number;
  /** When set, operations complete after this many `operations.get` polls instead of on the clock. */
  operationPolls?: number;
  /** Time an operation spends ABORTING after a cancel. */
  abortingMs: number;
  /** The lower node/master skew bound in minor versions. */
  maxNodeSkewMinors: number;
  /** Concurrent (not DONE) operations allowed per cluster. */
  concurrentOperationsQuota: number;
  /** `current` (2024+) or `legacy` wording of the busy-cluster error. */
  busyMessage: 'current' | 'legacy';
  /** Status of a pool whose operation failed. */
  failedPoolStatus: 'RUNNING_WITH_ERROR' | 'ERROR';
  /** The error a cancelled operation ends with (real content unknown). */
  cancelError: { status: RpcCodeName; message: string };
  /** Operations kept per world: beyond this, the oldest DONE ones are forgotten (bounded memory). */
  maxOperations: number;
  /** Node rollouts (surge batches, blue-green phases), in ms of world time. */
  rollout: RolloutSettings;
  /** Text of the ABORTED error for a stale etag (real text unknown); `{nodePool}` and `{etag}` (the given one) are replaced. */
  etagMismatchMessage: string;
  auth: AuthSettings;
}

/**
 * The timing of node rollouts. GKE documents no per-node time; unset, a rollout's batches and phases
 * share `operationDurationMs` (so an upgrade takes as long as any operation), and the soaks take what
 * the pool's blueGreenSettings say, with GKE's documented defaults.
 */
interface RolloutSettings {
  /** Time to upgrade one surge batch, or to drain one blue-green batch. */
  batchMs?: number;
  /** Time of each blue-green phase that is not a batch or a soak (create green pool, cordon, delete blue). */
  phaseMs?: number;
  /** The node pool soak when blueGreenSettings sets none (GKE: 1 hour). */
  defaultNodePoolSoakMs: number;
  /** The wait before draining under autoscaledRolloutPolicy when it sets none (GKE: 3 days). */
  defaultWaitForDrainMs: number;
}

export interface ClusterState {
  clusters: Map<string, ClusterRecord>;
  operations: Map<string, OperationRecord>;
  /** Project id → number overrides; other projects get a number derived from their id. */
  projectNumbers: Record<string, string>;
  serverConfig: ServerConfigShape;
  settings: Settings;
  /**
   * The world's side of the process's memory budget: DONE operations count in its `operations` pool
   * (docs/decisions/0019). Never in a snapshot.
   */
  budget?: WorldBudget;
}

export const DEFAULT_SETTINGS: Settings = {
  strictUnknownFields: true,
  operationDurationMs: 2000,
  abortingMs: 500,
  maxNodeSkewMinors: 2,
  concurrentOperationsQuota: 5,
  maxOperations: 10_000,
  busyMessage: 'current',
  failedPoolStatus: 'RUNNING_WITH_ERROR',
  // The text a user recorded from gcloud after cancelling a blue-green upgrade (2025); the code is unknown.
  cancelError: { status: 'CANCELLED', message: 'Operation was aborted: operation was aborted.' },
  etagMismatchMessage: 'Etag "{etag}" does not match the current etag of node pool "{nodePool}".',
  rollout: { defaultNodePoolSoakMs: 3_600_000, defaultWaitForDrainMs: 3 * 86_400_000 },
  auth: { principals: {}, rejectedTokens: {}, denyUnknownTokens: false },
};

/**
 * The default ServerConfig: versions in the real shape, descending; node versions reach further back
 * than master versions, as in reality.
 */
export function defaultServerConfig(): ServerConfigShape {
  const master = [
    '1.34.1-gke.1829001',
    '1.33.5-gke.1308000',
    '1.33.4-gke.1350000',
    '1.32.9-gke.1108000',
    '1.31.13-gke.1023000',
  ];
  const node = [
    '1.34.1-gke.1829001',
    '1.33.5-gke.1308000',
    '1.33.4-gke.1350000',
    '1.33.4-gke.1036000',
    '1.32.9-gke.1108000',
    '1.32.8-gke.1134000',
    '1.31.13-gke.1023000',
    '1.31.12-gke.1265000',
    '1.30.14-gke.1169000',
    '1.29.15-gke.1325000',
  ];
  return {
    defaultClusterVersion: '1.33.5-gke.1308000',
    validNodeVersions: node,
    defaultImageType: 'COS_CONTAINERD',
    validImageTypes: ['COS_CONTAINERD', 'COS', 'UBUNTU_CONTAINERD', 'WINDOWS_LTSC_CONTAINERD'],
    validMasterVersions: master,
    channels: [
      {
        channel: 'RAPID',
        defaultVersion: '1.34.1-gke.1829001',
        validVersions: ['1.34.1-gke.1829001', '1.33.5-gke.1308000'],
        upgradeTargetVersion: '1.34.1-gke.1829001',
      },
      {
        channel: 'REGULAR',
        defaultVersion: '1.33.5-gke.1308000',
        validVersions: ['1.33.5-gke.1308000', '1.33.4-gke.1350000', '1.32.9-gke.1108000'],
        upgradeTargetVersion: '1.33.5-gke.1308000',
      },
      {
        channel: 'STABLE',
        defaultVersion: '1.32.9-gke.1108000',
        validVersions: ['1.32.9-gke.1108000', '1.31.13-gke.1023000'],
        upgradeTargetVersion: '1.32.9-gke.1108000',
      },
      {
        channel: 'EXTENDED',
        defaultVersion: '1.31.13-gke.1023000',
        validVersions: ['1.32.9-gke.1108000', '1.31.13-gke.1023000'],
        upgradeTargetVersion: '1.31.13-gke.1023000',
      },
    ],
  };
}

export function createClusterState(settings: Partial<Settings> = {}, budget?: WorldBudget): ClusterState {
  const state: ClusterState = {
    clusters: new Map(),
    operations: new Map(),
    projectNumbers: {},
    serverConfig: defaultServerConfig(),
    settings: mergeSettings(DEFAULT_SETTINGS, settings),
  };
  if (budget) attachBudget(state, budget);
  return state;
}

/**
 * Gives a state the world's budget, as a property copies leave out: a seed's draft (`structuredClone`)
 * and the `Object.assign` that applies it keep the state's own.
 */
export function attachBudget(state: ClusterState, budget: WorldBudget): void {
  Object.defineProperty(state, 'budget', {
    value: budget,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

export function mergeSettings(base: Settings, patch: Partial<Settings>): Settings {
  return structuredClone({
    ...base,
    ...patch,
    auth: { ...base.auth, ...(patch.auth ?? {}) },
    rollout: { ...base.rollout, ...(patch.rollout ?? {}) },
  });
}

export function clusterKey(projectId: string, location: string, cluster: string): string {
  return `${projectId}/${location}/${cluster}`;
}
