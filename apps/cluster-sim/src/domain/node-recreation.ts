/**
 * GKE's own node recreations during an IP or credential rotation: "When you start an IP address
 * rotation, GKE recreates your nodes for you, respecting maintenance availability" (GKE's "Rotate your
 * control plane IP"). Each pool the rotation waits for gets an UPGRADE_NODES operation to the version it
 * runs, the same operation `nodePools.update` to its own version starts (which the user may run sooner,
 * and which counts the same), started by GKE:
 * - only while the cluster runs no operation at all, so one pool at a time and never beside a
 *   user's operation (GKE does not run two node upgrades on a cluster at once);
 * - from an hour after the start is DONE (`recreateFrom`, cluster-rotation.ts: GKE begins "some time"
 *   later), only inside a maintenance window and outside exclusions that hold node changes
 *   (maintenance-availability.ts); without a window, at that hour.
 *
 * The work is one key per cluster on the world's timers (sim-core's `timers.ts`): a check whose time is
 * not stored. The state says everything a check reads (the rotation's pools, the cluster's operations,
 * the policy), so after a state import every cluster still rotating is checked at the import's time.
 * A check that cannot start anything looks again when what stops it ends (the running operation's
 * planned end, the window's opening), and at least every hour, so a policy changed meanwhile is read.
 */
import type { WorkKind, World } from '@sims/sim-core';
import { maintenanceOpening } from './maintenance-availability';
import { liveOperations } from './operation-admission';
import { OPERATION_WORK } from './operation-work';
import { updateNodePool } from './pool-requests';
import { type ClusterRecord, type ClusterState, clusterKey, type OperationRecord } from './state';

const HOUR = 3_600_000;

/** The world a recreation starts its operations in. */
type RecreationWorld = Pick<World<ClusterState>, 'ids' | 'timers' | 'clock'>;

/** A cluster to check, and when. */
interface RecreationCheck {
  readonly key: string;
  readonly at: number;
}

/** A rotation's start still running on the cluster (its recreations begin when it is DONE). */
function runningStart(state: ClusterState, record: ClusterRecord): OperationRecord | undefined {
  return liveOperations(state, record).find((op) => op.change.kind === 'startIpRotation');
}

/** Whether the cluster has recreations ahead (a rotation waiting for pools, or a start running). */
function hasWork(state: ClusterState, record: ClusterRecord): boolean {
  const rotation = record.credentials?.rotation;
  if (rotation) return rotation.poolsToRecreate.some((pool) => record.pools.has(pool));
  return runningStart(state, record) !== undefined;
}

/** When an operation is planned to end (on the clock), or undefined (it waits for polls). */
function plannedEnd(op: OperationRecord): number | undefined {
  if (op.status === 'ABORTING') return op.abortDoneAt;
  return op.plan.mode === 'time' ? op.plan.doneAt : undefined;
}

/** The next check: when `until` comes, and at least every hour; never at `at` again. */
function later(at: number, until: number | undefined): number {
  return Math.max(at + 1, Math.min(until ?? Number.POSITIVE_INFINITY, at + HOUR));
}

/**
 * One check of a cluster at `at`: starts the next pool's recreation when it may. Answers when to look
 * again (undefined: nothing is left to do), and `at` itself when it may go on at once.
 */
function check(world: RecreationWorld, state: ClusterState, key: string, at: number): number | undefined {
  const record = state.clusters.get(key);
  if (!record || !hasWork(state, record)) return undefined;
  const rotation = record.credentials?.rotation;
  const live = liveOperations(state, record);
  if (!rotation || live.length > 0) {
    const ends = live.map(plannedEnd).filter((t): t is number => t !== undefined && t > at);
    return later(at, ends.length > 0 ? Math.min(...ends) : undefined);
  }
  const from = Math.max(at, rotation.recreateFrom ?? at);
  const opens = maintenanceOpening(record.cluster.maintenancePolicy, from);
  if (opens === undefined || opens > at) return later(at, opens);
  for (const name of rotation.poolsToRecreate) {
    const pool = record.pools.get(name);
    if (!pool) continue;
    const version = pool.pool.version ?? record.cluster.currentMasterVersion ?? '-';
    // GKE's own operation: no request, so no fault rule shapes it (no effects: the world's timing).
    const ctx = { now: at, ids: world.ids, operationEffects: () => ({}) };
    const op = updateNodePool(state, record, name, { nodeVersion: version }, ctx);
    if (!op.ok) continue;
    world.timers.arm(OPERATION_WORK, op.value);
    return at;
  }
  // No pool could be recreated by GKE (a version no longer offered, a flex-start pool): the user's turn.
  return later(at, undefined);
}

/**
 * GKE's node recreations during rotations as long-running work of `world`: one key per cluster (its
 * checks), made per world since a check starts operations on the world's timers with its ids.
 */
export function nodeRecreationWork(world: RecreationWorld): WorkKind<ClusterState, RecreationCheck, 'check'> {
  const kind: WorkKind<ClusterState, RecreationCheck, 'check'> = {
    name: 'node-recreation',
    *items(state) {
      const at = world.clock.now();
      for (const [key, record] of state.clusters) if (hasWork(state, record)) yield { key, at };
    },
    key: (item) => item.key,
    steps: (item) => [{ at: item.at, event: 'check' }],
    fire(state, key, _event, at) {
      // A check that starts a recreation looks again at once (the next pool then waits for it); one
      // due before now (a step fired late) is made now, in order.
      let next = check(world, state, key, at);
      for (let i = 0; next !== undefined && next <= world.clock.now() && i < 10_000; i++)
        next = check(world, state, key, next);
      if (next !== undefined) world.timers.arm(kind, { key, at: Math.max(next, world.clock.now() + 1) });
    },
  };
  return kind;
}

/** Puts a cluster's recreations on the clock now (a rotation was just asked for). */
export function armNodeRecreation(world: RecreationWorld, record: ClusterRecord): void {
  const key = clusterKey(record.projectId, record.location, record.name);
  world.timers.arm(nodeRecreationWork(world), { key, at: world.clock.now() });
}
