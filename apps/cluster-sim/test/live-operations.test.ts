import { countMapReads } from '@sims/test-support/map-reads';
import { afterEach, describe, expect, it } from 'vitest';
import { refreshCluster } from '../src/domain/node-pools';
import { checkConcurrency, liveOperations } from '../src/domain/operation-admission';
import { OPERATION_CHANGES } from '../src/domain/operation-changes';
import {
  cancelOperation,
  createOperation,
  fireOperationEvent,
  recordDoneOperation,
  settleNow,
} from '../src/domain/operations';
import { forgetOperation } from '../src/domain/operations-budget';
import { type ClusterRecord, type ClusterState, clusterKey, type OperationRecord } from '../src/domain/state';
import { createHarness, type Harness } from './support/harness';

const LOCATION = 'us-central1-a';

/** `count` clusters of one pool, each with a running and a finished operation; c0 has two running. */
function busyWorld(h: Harness, count: number) {
  const clusters = Array.from({ length: count }, (_, i) => ({
    projectId: 'p1',
    location: LOCATION,
    name: `c${i}`,
    nodePools: [{ name: 'np', initialNodeCount: 1 }],
  }));
  const op = (i: number, status: 'RUNNING' | 'DONE') => ({
    projectId: 'p1',
    location: LOCATION,
    cluster: `c${i}`,
    operationType: 'UPDATE_CLUSTER' as const,
    status,
  });
  h.sim.kernel.def.seed(h.world(), {
    clusters,
    operations: [op(0, 'RUNNING'), ...clusters.flatMap((_, i) => [op(i, 'RUNNING'), op(i, 'DONE')])],
  });
  return h.world().state as ClusterState;
}

describe('a change to a cluster of a busy world', () => {
  let h: Harness;
  afterEach(() => h.close());

  it("reads the cluster's running operations, not the world's", () => {
    const readsOf = (count: number) => {
      h?.close();
      h = createHarness();
      const state = busyWorld(h, count);
      expect(state.operations.size).toBe(2 * count + 1);
      const record = state.clusters.get(clusterKey('p1', LOCATION, 'c0')) as ClusterRecord;
      refreshCluster(state, record);
      const refresh = countMapReads(() => refreshCluster(state, record), { sets: true });
      const admission = countMapReads(
        () => checkConcurrency(state, record, { type: 'UPGRADE_NODES', nodePool: 'np' }),
        { sets: true },
      );
      // The cluster's two running operations hold it (UPDATE_CLUSTER holds the whole cluster).
      expect(record.cluster.status).toBe('RECONCILING');
      expect(admission.result).toMatchObject({ ok: false, error: { code: 'CLUSTER_BUSY' } });
      return { refresh: refresh.reads, admission: admission.reads };
    };
    const small = readsOf(100);
    const large = readsOf(1000);
    // A scan of every operation of the world per change read 2,001 of them at 1,000 clusters.
    expect(large).toEqual(small);
    // Its pool (twice: versions, nodes) and its two running operations; admission stops at the first.
    expect(small).toEqual({ refresh: 4, admission: 2 });
  });
});

/** The cluster's operations that are not DONE, by a scan of the world's in the table's order. */
const scanned = (state: ClusterState, key: string): OperationRecord[] =>
  [...state.operations.values()].filter(
    (op) => op.status !== 'DONE' && clusterKey(op.projectId, op.location, op.cluster) === key,
  );

describe('the running operations of a cluster', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('are what a scan of the operations finds, in its order, through every kind of change', () => {
    h = createHarness();
    const names = ['c0', 'c1', 'c2', 'gone'];
    h.sim.kernel.def.seed(h.world(), {
      clusters: names.slice(0, 3).map((name) => ({ projectId: 'p1', location: LOCATION, name })),
    });
    let random = 11;
    const pick = (n: number) => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return Math.floor((random / 2147483648) * n);
    };
    const state = () => h.world().state as ClusterState;
    const now = () => h.world().clock.now();
    const anyOp = (): OperationRecord | undefined =>
      [...state().operations.values()][pick(state().operations.size)];
    const aCluster = () => names[pick(names.length)] as string;
    let saved: unknown;
    const changes: Record<string, () => void> = {
      start: () => {
        const op = createOperation(
          state(),
          {
            projectId: 'p1',
            location: LOCATION,
            type: 'UPDATE_CLUSTER',
            cluster: aCluster(),
            nodesTotal: 0,
            change: { kind: 'none' },
          },
          now(),
          h.world().ids,
        );
        if (pick(2) === 0) fireOperationEvent(state(), op.id, 'run', now(), OPERATION_CHANGES);
      },
      finish: () => {
        const op = anyOp();
        if (op)
          fireOperationEvent(state(), op.id, pick(3) === 0 ? 'fail' : 'finish', now(), OPERATION_CHANGES);
      },
      cancel: () => {
        const op = anyOp();
        if (op) cancelOperation(state(), op, now());
      },
      aborted: () => {
        const op = anyOp();
        if (op) fireOperationEvent(state(), op.id, 'aborted', now(), OPERATION_CHANGES);
      },
      settle: () => {
        const op = anyOp();
        if (op) settleNow(state(), op, now(), OPERATION_CHANGES);
      },
      'record done': () => {
        recordDoneOperation(
          state(),
          { projectId: 'p1', location: LOCATION, type: 'UPDATE_CLUSTER', cluster: aCluster() },
          now(),
          h.world().ids,
        );
      },
      forget: () => {
        const op = anyOp();
        if (op?.status === 'DONE') forgetOperation(state(), op.id);
      },
      'seed with ids': () => {
        const id = `operation-${String(pick(1e12)).padStart(13, '0')}-${pick(1e9).toString(16)}`;
        const status = (['PENDING', 'RUNNING', 'DONE'] as const)[pick(3)];
        h.sim.kernel.def.seed(h.world(), {
          operations: [
            { projectId: 'p1', location: LOCATION, cluster: names[pick(3)] as string, status, id },
          ],
        });
      },
      snapshot: () => {
        saved = JSON.parse(JSON.stringify(h.sim.kernel.def.exportState(h.world())));
      },
      import: () => {
        if (saved) h.sim.kernel.def.importState(h.world(), saved);
      },
      'clock moves': () => {
        h.world().clock.advance(pick(3000));
      },
    };
    const weights: Record<string, number> = { start: 6, 'seed with ids': 2, 'clock moves': 2 };
    const weighted = Object.entries(changes).flatMap((change) =>
      Array(weights[change[0]] ?? 1).fill(change),
    ) as [string, () => void][];
    // Few kept, so that `maxOperations` drops finished ones as operations are made.
    state().settings.maxOperations = 40;
    const done = new Map<string, number>();
    let most = 0;
    for (let step = 0; step < 800; step++) {
      const [name, change] = weighted[pick(weighted.length)] as [string, () => void];
      change();
      done.set(name, (done.get(name) ?? 0) + 1);
      let running = 0;
      for (const cluster of names) {
        const key = clusterKey('p1', LOCATION, cluster);
        const record =
          state().clusters.get(key) ??
          ({ projectId: 'p1', location: LOCATION, name: cluster } as ClusterRecord);
        const got = liveOperations(state(), record);
        const want = scanned(state(), key);
        if (got.length !== want.length || got.some((op, i) => op !== want[i]))
          expect.fail(`step ${step} (${name}): the running operations of ${cluster} differ from a scan`);
        running += got.length;
      }
      most = Math.max(most, running);
    }
    expect([...done.keys()].sort()).toEqual(Object.keys(changes).sort());
    expect(Math.min(...done.values())).toBeGreaterThan(10);
    expect(most).toBeGreaterThan(10);
  });
});
