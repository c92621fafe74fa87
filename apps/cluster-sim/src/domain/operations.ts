import { enumNumbers, RpcCode } from '@sims/cluster-schema';
import { fail, ok, type Result } from './errors';
import { type ApiVersion, operationSelfLink, targetLink } from './names';
import { refreshCluster, writePool } from './node-pools';
import { blueGreenInfo, phaseOf, rolloutNodesDone, stepFraction, stepLimit, stepTime } from './rollouts';
import type {
  ClusterRecord,
  ClusterState,
  OperationFailure,
  OperationRecord,
  OperationStatusName,
  OperationTypeName,
  PendingChange,
  PoolRecord,
  Rollout,
  RpcCodeName,
} from './state';
import { clusterKey } from './state';

/** The operation lifecycle as data: which status may follow which. */
export const OPERATION_TRANSITIONS: Readonly<Record<OperationStatusName, readonly OperationStatusName[]>> = {
  PENDING: ['RUNNING', 'ABORTING', 'DONE'],
  RUNNING: ['DONE', 'ABORTING'],
  ABORTING: ['DONE'],
  DONE: [],
};

/** Operation types that hold the whole cluster: nothing else may run beside them. */
const CLUSTER_WIDE: ReadonlySet<OperationTypeName> = new Set([
  'CREATE_CLUSTER',
  'DELETE_CLUSTER',
  'UPGRADE_MASTER',
  'UPDATE_CLUSTER',
  'REPAIR_CLUSTER',
]);

/** Clock events that move an operation. */
export type OperationEvent = 'run' | 'step' | 'finish' | 'fail' | 'aborted';

/** `google.rpc.Code` numbers, from the schema package (the one source of the enum). */
const RPC_NUMBERS = enumNumbers(RpcCode) as Readonly<Record<RpcCodeName, number>>;

export function liveOperations(state: ClusterState, record: ClusterRecord): OperationRecord[] {
  return [...state.operations.values()].filter(
    (op) =>
      op.status !== 'DONE' &&
      op.projectId === record.projectId &&
      op.location === record.location &&
      op.cluster === record.name,
  );
}

/**
 * Decides whether a new operation may start on a cluster: an incompatible running operation (one that
 * holds the whole cluster, or one on the same pool) gives FAILED_PRECONDITION; more than the
 * per-cluster quota of concurrent operations gives RESOURCE_EXHAUSTED.
 */
export function checkConcurrency(
  state: ClusterState,
  record: ClusterRecord,
  request: { type: OperationTypeName; nodePool?: string },
): Result<void> {
  const live = liveOperations(state, record);
  const blocking = live.find(
    (op) =>
      CLUSTER_WIDE.has(op.type) ||
      CLUSTER_WIDE.has(request.type) ||
      (request.nodePool !== undefined && op.nodePool === request.nodePool),
  );
  if (blocking) {
    return fail({
      code: 'CLUSTER_BUSY',
      operation: blocking.id,
      operationType: blocking.type,
      cluster: record.name,
      style: state.settings.busyMessage,
    });
  }
  if (live.length >= state.settings.concurrentOperationsQuota) {
    return fail({
      code: 'TOO_MANY_OPERATIONS',
      cluster: record.name,
      quota: state.settings.concurrentOperationsQuota,
    });
  }
  return ok(undefined);
}

export interface StartOperation {
  projectId: string;
  location: string;
  type: OperationTypeName;
  cluster: string;
  nodePool?: string;
  nodesTotal: number;
  change: PendingChange;
  /** Overrides of the world's timing (from a fault rule). */
  timing?: { durationMs?: number; polls?: number };
  failure?: OperationFailure;
  /** A node rollout: its steps set the operation's running time (unless a fault's timing overrides it). */
  rollout?: Rollout;
}

/** Creates an operation in PENDING. The caller schedules its clock events (`operationTimeline`). */
export function createOperation(
  state: ClusterState,
  input: StartOperation,
  now: number,
  ids: { uuid(): string },
): OperationRecord {
  const polls =
    input.timing?.polls ??
    (input.timing?.durationMs === undefined ? state.settings.operationPolls : undefined);
  const duration = input.timing?.durationMs ?? state.settings.operationDurationMs;
  // A rollout runs for its steps' time after the usual PENDING tenth of an operation.
  const pendingMs = Math.round(duration * 0.1);
  const rolloutTime =
    input.rollout !== undefined && input.timing?.durationMs === undefined && input.rollout.total > 0;
  const op: OperationRecord = {
    id: `operation-${String(now).padStart(13, '0')}-${ids.uuid()}`,
    projectId: input.projectId,
    location: input.location,
    type: input.type,
    cluster: input.cluster,
    nodePool: input.nodePool,
    status: 'PENDING',
    startTime: now,
    plan:
      polls !== undefined
        ? { mode: 'polls', polls: Math.max(1, polls), seen: 0 }
        : rolloutTime
          ? {
              mode: 'time',
              runningAt: now + pendingMs,
              doneAt: now + pendingMs + (input.rollout?.total ?? 0),
            }
          : { mode: 'time', runningAt: now + pendingMs, doneAt: now + duration },
    nodesTotal: input.nodesTotal,
    failure: input.failure,
    change: input.change,
    ...(input.rollout ? { rollout: input.rollout } : {}),
  };
  state.operations.set(op.id, op);
  forgetOldOperations(state);
  return op;
}

/** Drops the oldest DONE operations beyond `maxOperations` (running ones are always kept). */
function forgetOldOperations(state: ClusterState): void {
  let excess = state.operations.size - state.settings.maxOperations;
  if (excess <= 0) return;
  for (const [id, op] of state.operations) {
    if (excess <= 0) break;
    if (op.status === 'DONE') {
      state.operations.delete(id);
      excess--;
    }
  }
}

/** The clock events still ahead of an operation, in time order (time-mode plans and aborts). */
export function operationTimeline(op: OperationRecord): { at: number; event: OperationEvent }[] {
  if (op.status === 'DONE') return [];
  if (op.status === 'ABORTING')
    return op.abortDoneAt === undefined ? [] : [{ at: op.abortDoneAt, event: 'aborted' }];
  if (op.plan.mode !== 'time') return [];
  const { runningAt, doneAt } = op.plan;
  const events: { at: number; event: OperationEvent }[] = [];
  if (op.status === 'PENDING') events.push({ at: runningAt, event: 'run' });
  const rollout = op.rollout;
  if (rollout) {
    const limit = stepLimit(rollout);
    for (let i = rollout.reached + 1; i < limit; i++)
      events.push({ at: stepTime(op, rollout, i), event: 'step' });
    // A fault on a batch or phase: it fails where the next one would start, or never ends (a stall).
    if (rollout.failsAt !== undefined) {
      events.push({ at: stepTime(op, rollout, rollout.failsAt), event: 'fail' });
      return events;
    }
    if (rollout.stalledAt !== undefined) return events;
  }
  if (op.failure)
    events.push({ at: runningAt + Math.round(op.failure.atProgress * (doneAt - runningAt)), event: 'fail' });
  else events.push({ at: doneAt, event: 'finish' });
  return events;
}

function transition(op: OperationRecord, to: OperationStatusName): boolean {
  if (!OPERATION_TRANSITIONS[op.status].includes(to)) return false;
  op.status = to;
  return true;
}

/** Fraction of the work done at `now`, in [0, 1]. */
export function progressOf(op: OperationRecord, now: number): number {
  if (op.endedAt !== undefined) return op.endedAt;
  if (op.status === 'DONE') return 1;
  if (op.plan.mode === 'polls') return Math.min(1, op.plan.seen / op.plan.polls);
  if (op.status === 'PENDING') return 0;
  const { runningAt, doneAt } = op.plan;
  if (doneAt <= runningAt) return 1;
  return Math.max(0, Math.min(1, (now - runningAt) / (doneAt - runningAt)));
}

/** Applies one event to an operation and its target; events that no longer apply are ignored. */
export function fireOperationEvent(
  state: ClusterState,
  opId: string,
  event: OperationEvent,
  now: number,
): void {
  const op = state.operations.get(opId);
  if (!op) return;
  switch (event) {
    case 'run':
      transition(op, 'RUNNING');
      return;
    case 'step':
      if (op.status === 'PENDING') transition(op, 'RUNNING');
      if (op.status === 'RUNNING') advanceRollout(state, op, (i, r) => stepTime(op, r, i) <= now, now);
      return;
    case 'finish':
      if (op.status === 'ABORTING') return;
      if (op.status === 'PENDING') transition(op, 'RUNNING');
      if (!transition(op, 'DONE')) return;
      op.endTime = now;
      completeChange(state, op);
      release(op);
      return;
    case 'fail': {
      if (op.status === 'ABORTING' || op.status === 'DONE') return;
      if (op.rollout) advanceRollout(state, op, (i, r) => stepTime(op, r, i) <= now, now);
      const failure = op.failure ?? {
        atProgress: progressOf(op, now),
        status: 'INTERNAL',
        message: 'Internal error.',
      };
      endWithError(state, op, failure.status, failure.message, failure.atProgress, now);
      return;
    }
    case 'aborted': {
      if (op.status !== 'ABORTING') return;
      const { status, message } = state.settings.cancelError;
      endWithError(state, op, status, message, op.endedAt ?? 0, now, true);
      return;
    }
  }
}

function endWithError(
  state: ClusterState,
  op: OperationRecord,
  status: RpcCodeName,
  message: string,
  at: number,
  now: number,
  cancelled = false,
): void {
  if (op.status === 'PENDING') op.status = 'RUNNING';
  if (!transition(op, 'DONE')) return;
  op.endTime = now;
  op.endedAt = at;
  op.statusMessage = message;
  op.error = { code: RPC_NUMBERS[status], message };
  failChange(state, op, cancelled);
  release(op);
}

/**
 * A DONE operation keeps what it answers with (status, times, progress), not the pools its change and
 * rollout carried: up to 10,000 operations are kept per world, and those copies were most of their size.
 */
function release(op: OperationRecord): void {
  op.change = { kind: 'none' };
  if (op.rollout) op.rollout.from = {};
}

/** Poll-driven plans: each `operations.get` counts as one step (an explicit, documented exception). */
export function pollOperation(state: ClusterState, op: OperationRecord, now: number): void {
  if (op.plan.mode !== 'polls' || op.status === 'DONE' || op.status === 'ABORTING') return;
  const rollout = op.rollout;
  // A stalled rollout stays where it stopped, however often it is read.
  if (
    rollout?.stalledAt !== undefined &&
    op.plan.seen / op.plan.polls >= stepFraction(rollout, rollout.stalledAt)
  )
    return;
  op.plan.seen++;
  if (op.status === 'PENDING') transition(op, 'RUNNING');
  const fraction = op.plan.seen / op.plan.polls;
  if (rollout) {
    advanceRollout(state, op, (i, r) => stepFraction(r, i) <= fraction, now);
    if (rollout.failsAt !== undefined) {
      if (fraction >= stepFraction(rollout, rollout.failsAt)) fireOperationEvent(state, op.id, 'fail', now);
      return;
    }
    if (rollout.stalledAt !== undefined) return;
  }
  if (op.failure && fraction >= op.failure.atProgress) fireOperationEvent(state, op.id, 'fail', now);
  else if (op.plan.seen >= op.plan.polls) fireOperationEvent(state, op.id, 'finish', now);
}

/** Applies the steps of a running rollout that are due now (after its plan changed: completeUpgrade). */
export function catchUpRollout(state: ClusterState, op: OperationRecord, now: number): void {
  if (op.status !== 'RUNNING' || !op.rollout) return;
  const plan = op.plan;
  if (plan.mode === 'time') advanceRollout(state, op, (i, r) => stepTime(op, r, i) <= now, now);
  else advanceRollout(state, op, (i, r) => stepFraction(r, i) <= plan.seen / plan.polls, now);
}

/** The pool an operation works on, if it (and its cluster) still exist. */
function targetPool(
  state: ClusterState,
  op: OperationRecord,
): { record: ClusterRecord; pool: PoolRecord } | undefined {
  const record = targetRecord(state, op);
  const pool = op.nodePool === undefined ? undefined : record?.pools.get(op.nodePool);
  return record && pool ? { record, pool } : undefined;
}

/**
 * Applies the rollout's steps that are due (`due(i)`), in order, up to a stall or failure: the pool
 * shows the blue-green phase reached, the cluster counts the surge nodes or the green pool.
 */
function advanceRollout(
  state: ClusterState,
  op: OperationRecord,
  due: (i: number, rollout: Rollout) => boolean,
  now: number,
): void {
  const rollout = op.rollout;
  if (!rollout) return;
  const limit = stepLimit(rollout);
  let moved = false;
  while (rollout.reached + 1 < limit && due(rollout.reached + 1, rollout)) {
    rollout.reached++;
    moved = true;
  }
  if (!moved) return;
  const target = targetPool(state, op);
  if (!target) return;
  const step = rollout.steps[rollout.reached];
  if (step?.phase !== undefined) {
    const soakEnd =
      step.phase === 'NODE_POOL_SOAKING' || step.phase === 'DELETING_BLUE_POOL'
        ? timestamp(op.plan.mode === 'time' ? stepTime(op, rollout, soakEndIndex(rollout)) : now)
        : undefined;
    writePool(target.pool, { ...target.pool.pool, updateInfo: blueGreenInfo(rollout, step, soakEnd) });
  }
  refreshCluster(state, target.record);
}

/** The step where the node pool soak ends (the blue pool's deletion starts). */
function soakEndIndex(rollout: Rollout): number {
  const i = rollout.steps.findIndex((s) => s.phase === 'DELETING_BLUE_POOL');
  return i < 0 ? rollout.steps.length : i;
}

/** Cancels an operation: it turns ABORTING and reaches DONE (with the cancel error) after `abortingMs`. */
export function cancelOperation(
  state: ClusterState,
  op: OperationRecord,
  now: number,
): Result<OperationRecord> {
  if (op.status === 'DONE') return fail({ code: 'OPERATION_ALREADY_DONE', operation: op.id });
  if (op.status === 'ABORTING') return ok(op);
  op.endedAt = progressOf(op, now);
  transition(op, 'ABORTING');
  op.abortDoneAt = now + state.settings.abortingMs;
  return ok(op);
}

/** Finishes an operation now (control plane): DONE with its change applied, or failed if asked. */
export function settleNow(
  state: ClusterState,
  op: OperationRecord,
  now: number,
  failure?: { status: RpcCodeName; message: string },
): Result<OperationRecord> {
  if (op.status === 'DONE') return fail({ code: 'OPERATION_ALREADY_DONE', operation: op.id });
  if (failure) endWithError(state, op, failure.status, failure.message, progressOf(op, now), now);
  else if (op.status === 'ABORTING') fireOperationEvent(state, op.id, 'aborted', now);
  else fireOperationEvent(state, op.id, 'finish', now);
  return ok(op);
}

function targetRecord(state: ClusterState, op: OperationRecord): ClusterRecord | undefined {
  return state.clusters.get(clusterKey(op.projectId, op.location, op.cluster));
}

function completeChange(state: ClusterState, op: OperationRecord): void {
  const record = targetRecord(state, op);
  if (!record) return;
  const change = op.change;
  const poolRecord = op.nodePool === undefined ? undefined : record.pools.get(op.nodePool);
  switch (change.kind) {
    case 'updatePool':
      // Every completed mutation changes the etag, also one that leaves the content as it was (same version).
      if (poolRecord) {
        const { updateInfo: _, ...desired } = change.desired;
        const green = op.rollout?.strategy === 'BLUE_GREEN' ? op.rollout.greenInstanceGroupUrls : undefined;
        writePool(
          poolRecord,
          { ...desired, ...(green ? { instanceGroupUrls: green } : {}), status: 'RUNNING' },
          { bump: true },
        );
        if (op.rollout) delete poolRecord.partial;
        endUpgrade(poolRecord, op, 'SUCCEEDED');
      }
      break;
    case 'setPool':
      if (poolRecord) writePool(poolRecord, { ...poolRecord.pool, ...change.fields }, { bump: true });
      break;
    case 'rollbackPool':
      if (poolRecord) {
        const { updateInfo: _, ...restore } = change.restore;
        writePool(poolRecord, { ...restore, status: 'RUNNING' }, { bump: true });
        delete poolRecord.partial;
      }
      break;
    case 'createPool':
      if (poolRecord) writePool(poolRecord, { ...poolRecord.pool, status: 'RUNNING' });
      break;
    case 'deletePool':
      if (op.nodePool !== undefined) {
        record.pools.delete(op.nodePool);
        // GKE drops the deprecated cluster.nodeConfig mirror with the default pool.
        if (op.nodePool === 'default-pool') delete record.cluster.nodeConfig;
      }
      break;
    case 'createCluster':
      record.cluster.status = 'RUNNING';
      for (const p of record.pools.values()) writePool(p, { ...p.pool, status: 'RUNNING' });
      break;
    case 'deleteCluster':
      state.clusters.delete(clusterKey(op.projectId, op.location, op.cluster));
      return;
    case 'upgradeMaster':
      record.cluster.currentMasterVersion = change.version;
      break;
    case 'setLocations':
      // "changing cluster locations will update the locations of all node pools" (ClusterUpdate's reference):
      // each pool keeps its instance groups in the zones that stay and gets new ones in the others.
      record.cluster.locations = [...change.locations];
      for (const p of record.pools.values()) {
        const urls = p.pool.instanceGroupUrls ?? [];
        const inZone = (zone: string) => urls.find((u) => u.includes(`/zones/${zone}/`));
        const template = urls[0];
        writePool(
          p,
          {
            ...p.pool,
            locations: [...change.locations],
            instanceGroupUrls: change.locations.map(
              (zone) =>
                inZone(zone) ??
                (template
                  ? template
                      .replace(/\/zones\/[^/]+\//, `/zones/${zone}/`)
                      .replace(/-[0-9a-f]{8}-grp$/, `-${change.hash}-grp`)
                  : `https://www.googleapis.com/compute/v1/projects/${op.projectId}/zones/${zone}/instanceGroupManagers/gke-${op.cluster}-${p.pool.name}-${change.hash}-grp`),
            ),
          },
          { bump: true },
        );
      }
      break;
    case 'none':
      break;
  }
  refreshCluster(state, record);
}

/** Closes the upgrade's entry in the pool's upgrade history (fetchNodePoolUpgradeInfo). */
function endUpgrade(pool: PoolRecord, op: OperationRecord, state: 'SUCCEEDED' | 'FAILED' | 'CANCELED'): void {
  const entry = pool.upgrades?.find((u) => u.state === 'RUNNING' && u.startTime === timestamp(op.startTime));
  if (!entry) return;
  entry.state = state;
  entry.endTime = timestamp(op.endTime ?? op.startTime);
}

function failChange(state: ClusterState, op: OperationRecord, cancelled: boolean): void {
  const record = targetRecord(state, op);
  if (!record) return;
  const poolRecord = op.nodePool === undefined ? undefined : record.pools.get(op.nodePool);
  if (poolRecord) {
    // A cancelled update leaves the pool running; a failed one shows the error status.
    const status = cancelled && op.change.kind === 'updatePool' ? 'RUNNING' : state.settings.failedPoolStatus;
    const rollout = op.rollout;
    if (rollout?.kind === 'upgrade' && op.change.kind === 'updatePool') {
      // Nodes already upgraded stay upgraded (GKE: "Rolls back a previously Aborted or Failed NodePool
      // upgrade"): a mixed pool, kept for nodePools.rollback and shown in fetchNodePoolUpgradeInfo.
      const done = rolloutNodesDone(op);
      const phase = phaseOf(rollout);
      if (done > 0 || phase !== undefined) {
        poolRecord.partial = {
          strategy: rollout.strategy,
          from: rollout.from,
          to: op.change.desired,
          nodesUpgraded: done,
          ...(phase ? { phase } : {}),
          ...(rollout.greenInstanceGroupUrls
            ? { greenInstanceGroupUrls: rollout.greenInstanceGroupUrls }
            : {}),
        };
      }
      endUpgrade(poolRecord, op, cancelled ? 'CANCELED' : 'FAILED');
    }
    writePool(poolRecord, { ...poolRecord.pool, status }, { bump: true });
  }
  if (op.change.kind === 'createCluster' || op.change.kind === 'deleteCluster')
    record.cluster.status = 'ERROR';
  refreshCluster(state, record);
}

const pct = (k: number, n: number) => (n === 0 ? 0 : (100 * k) / n).toFixed(1);

/**
 * The wire form of an operation at `now`: links in the caller's API version, progress metrics derived
 * from the clock (reading never changes the operation).
 */
export function renderOperation(state: ClusterState, op: OperationRecord, now: number, version: ApiVersion) {
  const fraction = progressOf(op, now);
  const n = op.nodesTotal;
  const k = op.rollout ? rolloutNodesDone(op) : Math.floor(n * fraction);
  const metric = (name: string, value: number) => ({ name, intValue: String(value) });
  // A blue-green upgrade names its phase first (recorded: `{name: "UPGRADE_STAGE", stringValue: …}`).
  const stage = op.rollout?.strategy === 'BLUE_GREEN' ? phaseOf(op.rollout) : undefined;
  const stageMetric = stage ? [{ name: 'UPGRADE_STAGE', stringValue: stage }] : [];
  const isNodes = op.type === 'UPGRADE_NODES';
  const onPool = isNodes || (op.type === 'UPDATE_CLUSTER' && op.nodePool !== undefined);
  let progress:
    | { metrics: ({ name: string; intValue: string } | { name: string; stringValue: string })[] }
    | undefined;
  let detail: string | undefined;
  if (onPool && n === 0 && stageMetric.length === 0) {
    // Changes made in place (taints, autoscaling): the recordings end with only `NODES_TOTAL: 0`.
    if (op.status === 'DONE') progress = { metrics: [metric('NODES_TOTAL', 0)] };
  } else if (isNodes && op.status === 'RUNNING') {
    detail = `Updating ${op.nodePool}, processed ${k} out of ${n} nodes (${pct(k, n)}%)`;
    progress = {
      metrics: [
        ...stageMetric,
        metric('NODES_TOTAL', n),
        metric('NODES_COMPLETE', k),
        metric('NODES_DONE', k),
      ],
    };
  } else if (isNodes && op.status !== 'PENDING') {
    const failed = op.error && op.error.code !== 1 ? Math.min(1, n - k) : 0;
    progress = {
      metrics: [
        ...stageMetric,
        metric('NODES_TOTAL', n),
        metric('NODES_FAILED', failed),
        metric('NODES_COMPLETE', k),
        metric('NODES_DONE', k + failed),
        metric('NODE_PDB_DELAY_SECONDS', 0),
      ],
    };
  }
  return {
    name: op.id,
    zone: op.location,
    operationType: op.type,
    status: op.status,
    ...(detail ? { detail } : {}),
    ...(op.statusMessage ? { statusMessage: op.statusMessage } : {}),
    selfLink: operationSelfLink(state, version, op.projectId, op.location, op.id),
    targetLink: targetLink(state, version, op.projectId, op.location, op.cluster, op.nodePool),
    startTime: timestamp(op.startTime),
    ...(op.endTime !== undefined ? { endTime: timestamp(op.endTime) } : {}),
    ...(progress ? { progress } : {}),
    // No error.details: the GAPIC REST client cannot decode ErrorInfo/RequestInfo inside an Operation.
    ...(op.error ? { error: { code: op.error.code, message: op.error.message } } : {}),
  };
}

/** RFC 3339 with microseconds, like the recorded responses (`2024-04-01T12:34:56.123456Z`). */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
