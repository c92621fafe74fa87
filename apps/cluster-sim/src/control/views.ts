import { nodePoolEtag } from '../domain/node-pools';
import { progressOf } from '../domain/operation-schedule';
import { renderOperation } from '../domain/operation-view';
import { rolloutNodesDone, stepFraction, stepLimit } from '../domain/rollouts';
import {
  type BlueGreenPhaseName,
  type ClusterRecord,
  type ClusterShape,
  type ClusterState,
  clusterKey,
  type NodePoolShape,
  type OperationRecord,
  type OperationStatusName,
  type OperationTypeName,
  type PoolRecord,
} from '../domain/state';

/**
 * Read-only views of a world for dashboards (`GET /_sim/operations`, `GET /_sim/node-pools`). They are
 * built from the state at the world's `now` and change nothing: reading an operation here is not one of
 * the `operations.get` polls a poll-driven plan counts.
 */

/** One `progress.metrics` entry of an Operation. */
export interface OperationMetricView {
  name: string;
  intValue?: string;
  stringValue?: string;
}

/** An operation as `GET /_sim/operations` lists it. */
export interface OperationView {
  // The Operation as the v1beta1 API renders it (operations.get).
  /** The operation's id (the API's `name`). */
  name: string;
  zone: string;
  operationType: OperationTypeName;
  status: OperationStatusName;
  /** `Updating np1, processed 2 out of 4 nodes (50.0%)` while a node upgrade runs. */
  detail?: string;
  statusMessage?: string;
  selfLink: string;
  targetLink: string;
  /** RFC 3339 with microseconds. */
  startTime: string;
  endTime?: string;
  progress?: { metrics: OperationMetricView[] };
  error?: { code: number; message: string };
  // What a dashboard needs beside it.
  /** The id `POST /_sim/operations/{id}/complete` and `/fail` take (the same as `name`). */
  id: string;
  project: string;
  location: string;
  cluster: string;
  /** The node pool it works on, or null for a cluster operation. */
  pool: string | null;
  /**
   * Work done, 0-100 (one decimal), from the operation's time or poll plan: 0 while PENDING, 100 once
   * DONE, the point it stopped at when it failed or was cancelled; a stalled rollout stays at the step it
   * stalled on. Null when the simulator has no figure for it (no such operation today: every operation
   * has a time or poll plan).
   */
  percent: number | null;
}

type NodePoolStatusName = NonNullable<NodePoolShape['status']>;
type ClusterStatusName = NonNullable<ClusterShape['status']>;

/** The pool's autoscaling, when it is enabled. */
export interface PoolAutoscalingView {
  minNodeCount?: number;
  maxNodeCount?: number;
  totalMinNodeCount?: number;
  totalMaxNodeCount?: number;
  locationPolicy?: string;
  autoprovisioned?: boolean;
}

/**
 * A node rollout on the pool: one running (an UPGRADE_NODES operation that recreates nodes, or a
 * rollback), or one that stopped midway (failed or cancelled) and left a mixed pool.
 */
export interface PoolRolloutView {
  /** RUNNING: its operation is not DONE; STOPPED: it failed or was cancelled, some nodes upgraded. */
  state: 'RUNNING' | 'STOPPED';
  kind: 'upgrade' | 'rollback';
  strategy: 'SURGE' | 'BLUE_GREEN';
  /** Blue-green: the phase reached (null before the first, and for surge). */
  phase: BlueGreenPhaseName | null;
  /** Surge: the batch (1-based) running, of `batches`, and its zone (null before the first batch starts). */
  batch: number | null;
  batches: number | null;
  zone: string | null;
  /** Nodes on the new version (surge), or drained to the green pool (blue-green), of `nodesTotal`. */
  nodesUpgraded: number;
  nodesTotal: number;
  /** The version the nodes come from and go to (null when the rollout does not say). */
  fromVersion: string | null;
  toVersion: string | null;
  /** A fault stalled it: it waits (RUNNING) until it is cancelled or settled through the control plane. */
  stalled: boolean;
  /** The operation running it (null once STOPPED). */
  operation: string | null;
}

/** A node pool as `GET /_sim/node-pools` lists it. */
export interface PoolView {
  name: string;
  status: NodePoolStatusName | null;
  statusMessage?: string;
  version: string | null;
  /** The etag a client reads now (and must send with a conditional update). */
  etag: string;
  /** Nodes per zone as configured. */
  initialNodeCount: number;
  /** The pool's zones. */
  locations: string[];
  /** Nodes in each zone (surge nodes and a green pool a rollout adds for a while are not counted). */
  nodesPerZone: Record<string, number>;
  /** Nodes in all zones. */
  nodeCount: number;
  /** Null when autoscaling is off. */
  autoscaling: PoolAutoscalingView | null;
  /** The node rollout running on the pool, or the one that stopped midway; null when neither. */
  rollout: PoolRolloutView | null;
  /** Id of the running (not DONE) operation working on this pool, or null. */
  operation: string | null;
}

/** A cluster with its node pools, as `GET /_sim/node-pools` lists it. */
export interface ClusterView {
  project: string;
  location: string;
  name: string;
  status: ClusterStatusName | null;
  currentMasterVersion: string | null;
  /** Nodes of all pools, with the surge nodes or green pool of running rollouts (as the API shows it). */
  currentNodeCount: number;
  /** Ids of the cluster's running (not DONE) operations, newest first. */
  operations: string[];
  pools: PoolView[];
}

/** The statuses `GET /_sim/operations?status=` accepts. */
export const OPERATION_STATUSES = ['PENDING', 'RUNNING', 'ABORTING', 'DONE'] as const;

/** Newest first: by start time, then by id (both descending). */
function newestFirst(a: OperationRecord, b: OperationRecord): number {
  if (a.startTime !== b.startTime) return b.startTime - a.startTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The operation's work done at `now`, 0-100 with one decimal. */
function operationPercent(op: OperationRecord, now: number): number | null {
  let fraction = progressOf(op, now);
  const rollout = op.rollout;
  // A rollout cannot pass the step a fault stalls it on, whatever the clock says.
  if (rollout && op.status !== 'DONE')
    fraction = Math.min(fraction, stepFraction(rollout, stepLimit(rollout)));
  if (!Number.isFinite(fraction)) return null;
  return Math.round(Math.max(0, Math.min(1, fraction)) * 1000) / 10;
}

function operationView(state: ClusterState, op: OperationRecord, now: number): OperationView {
  return {
    ...renderOperation(state, op, now, 'v1beta1'),
    id: op.id,
    project: op.projectId,
    location: op.location,
    cluster: op.cluster,
    pool: op.nodePool ?? null,
    percent: operationPercent(op, now),
  };
}

/** The world's operations, newest first, optionally only those in one status. */
export function operationViews(
  state: ClusterState,
  now: number,
  filter: { status?: OperationStatusName } = {},
): OperationView[] {
  const ops: OperationRecord[] = [];
  for (const op of state.operations.values()) {
    if (filter.status === undefined || op.status === filter.status) ops.push(op);
  }
  return ops.sort(newestFirst).map((op) => operationView(state, op, now));
}

/** Operations that work on every pool of their cluster, though they name none. */
const TOUCHES_ALL_POOLS: ReadonlySet<OperationRecord['change']['kind']> = new Set([
  'createCluster',
  'deleteCluster',
  'setLocations',
]);

/** The pool's zones; one without `locations` (none is stored so) counts as one zone, as `nodeCount` does. */
function zonesOf(record: ClusterRecord, pool: NodePoolShape): string[] {
  return pool.locations && pool.locations.length > 0 ? [...pool.locations] : [record.location];
}

function autoscalingView(pool: NodePoolShape): PoolAutoscalingView | null {
  const a = pool.autoscaling;
  if (!a?.enabled) return null;
  const view: PoolAutoscalingView = {};
  if (a.minNodeCount !== undefined) view.minNodeCount = a.minNodeCount;
  if (a.maxNodeCount !== undefined) view.maxNodeCount = a.maxNodeCount;
  if (a.totalMinNodeCount !== undefined) view.totalMinNodeCount = a.totalMinNodeCount;
  if (a.totalMaxNodeCount !== undefined) view.totalMaxNodeCount = a.totalMaxNodeCount;
  if (a.locationPolicy !== undefined) view.locationPolicy = a.locationPolicy;
  if (a.autoprovisioned !== undefined) view.autoprovisioned = a.autoprovisioned;
  return view;
}

function runningRollout(op: OperationRecord): PoolRolloutView | undefined {
  const rollout = op.rollout;
  if (!rollout) return undefined;
  const step = rollout.steps[rollout.reached];
  const batches = rollout.steps.filter((s) => s.batch !== undefined).length;
  const change = op.change;
  const toVersion =
    change.kind === 'updatePool'
      ? change.desired.version
      : change.kind === 'rollbackPool'
        ? change.restore.version
        : undefined;
  return {
    state: 'RUNNING',
    kind: rollout.kind,
    strategy: rollout.strategy,
    phase: step?.phase ?? null,
    batch: step?.batch ?? null,
    batches: rollout.strategy === 'SURGE' ? batches : null,
    zone: step?.zone ?? null,
    nodesUpgraded: rolloutNodesDone(op),
    nodesTotal: op.nodesTotal,
    fromVersion: rollout.from.version ?? null,
    toVersion: toVersion ?? rollout.greenPoolVersion ?? null,
    stalled: rollout.stalledAt !== undefined && rollout.reached + 1 >= rollout.stalledAt,
    operation: op.id,
  };
}

function stoppedRollout(record: PoolRecord): PoolRolloutView | undefined {
  const partial = record.partial;
  if (!partial) return undefined;
  return {
    state: 'STOPPED',
    kind: 'upgrade',
    strategy: partial.strategy,
    phase: partial.phase ?? null,
    batch: null,
    batches: null,
    zone: null,
    nodesUpgraded: partial.nodesUpgraded,
    nodesTotal: (partial.from.initialNodeCount ?? 0) * Math.max(1, partial.from.locations?.length ?? 1),
    fromVersion: partial.from.version ?? null,
    toVersion: partial.to.version ?? null,
    stalled: false,
    operation: null,
  };
}

function poolView(record: ClusterRecord, poolRecord: PoolRecord, live: readonly OperationRecord[]): PoolView {
  const pool = poolRecord.pool;
  const name = pool.name ?? '';
  const op =
    live.find((o) => o.nodePool === name) ??
    live.find((o) => o.nodePool === undefined && TOUCHES_ALL_POOLS.has(o.change.kind));
  const perZone = pool.initialNodeCount ?? 0;
  const zones = zonesOf(record, pool);
  const nodesPerZone: Record<string, number> = {};
  for (const zone of zones) nodesPerZone[zone] = perZone;
  const onPool = live.find((o) => o.nodePool === name && o.rollout);
  return {
    name,
    status: pool.status ?? null,
    ...(pool.statusMessage ? { statusMessage: pool.statusMessage } : {}),
    version: pool.version ?? null,
    etag: nodePoolEtag(poolRecord),
    initialNodeCount: perZone,
    locations: zones,
    nodesPerZone,
    nodeCount: perZone * zones.length,
    autoscaling: autoscalingView(pool),
    rollout: (onPool && runningRollout(onPool)) ?? stoppedRollout(poolRecord) ?? null,
    operation: op?.id ?? null,
  };
}

/** Every cluster of the world (by project, location, name) with its pools (in creation order). */
export function clusterViews(state: ClusterState): ClusterView[] {
  const liveByCluster = new Map<string, OperationRecord[]>();
  for (const op of state.operations.values()) {
    if (op.status === 'DONE') continue;
    const key = clusterKey(op.projectId, op.location, op.cluster);
    const list = liveByCluster.get(key);
    if (list) list.push(op);
    else liveByCluster.set(key, [op]);
  }
  const records = [...state.clusters.values()].sort(
    (a, b) =>
      a.projectId.localeCompare(b.projectId) ||
      a.location.localeCompare(b.location) ||
      a.name.localeCompare(b.name),
  );
  return records.map((record) => {
    const live = (liveByCluster.get(clusterKey(record.projectId, record.location, record.name)) ?? []).sort(
      newestFirst,
    );
    return {
      project: record.projectId,
      location: record.location,
      name: record.name,
      status: record.cluster.status ?? null,
      currentMasterVersion: record.cluster.currentMasterVersion ?? null,
      currentNodeCount: record.cluster.currentNodeCount ?? 0,
      operations: live.map((op) => op.id),
      pools: [...record.pools.values()].map((p) => poolView(record, p, live)),
    };
  });
}
