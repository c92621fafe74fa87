import type {
  ClusterRecord,
  ClusterState,
  NodePoolShape,
  OperationRecord,
  PoolRecord,
} from '../domain/state';

/**
 * The Compute Engine managed instance groups behind the node pools, derived on every read from the
 * container state (nothing of their own is stored, so nothing can fall out of step): one manager per
 * URL in a pool's `instanceGroupUrls` (a zone each), and while a blue-green upgrade runs (or after it
 * stopped midway), the green pool's managers too. A pool or cluster deleted takes its managers with it.
 */

export const COMPUTE_ROOT = 'https://www.googleapis.com/compute/v1';

/** What a manager is made of, before it is rendered as Compute's resource. */
export interface ManagedGroup {
  project: string;
  zone: string;
  /** The manager's name (`gke-{cluster}-{pool}-{8 hex}-grp`); the instance group has the same name. */
  name: string;
  /** The target size in this zone. */
  targetSize: number;
  /** Instances being created beside the target (a surge batch in this zone), or 0. */
  creating: number;
  /** Instances being recreated (a surge batch's nodes in this zone), or 0. */
  recreating: number;
  /** The cluster and pool the group's nodes belong to. */
  cluster: ClusterRecord;
  pool: NodePoolShape;
}

const IGM_URL = /\/projects\/([^/]+)\/zones\/([^/]+)\/instanceGroupManagers\/([^/]+)$/;

/** The (project, zone, name) of a Compute instance group manager URL, or undefined. */
function parseIgmUrl(url: string): { project: string; zone: string; name: string } | undefined {
  const m = IGM_URL.exec(url);
  return m ? { project: m[1] as string, zone: m[2] as string, name: m[3] as string } : undefined;
}

/**
 * The per-zone node count a pool's managers hold: its `initialNodeCount` (what `setSize` sets, per
 * zone), kept within the autoscaler's limits when autoscaling is on (per-zone limits as given; total
 * limits shared out over the zones), since the autoscaler moves a group into its range.
 */
function perZoneTarget(pool: NodePoolShape): number {
  const zones = Math.max(1, pool.locations?.length ?? 1);
  let count = pool.initialNodeCount ?? 0;
  const a = pool.autoscaling;
  if (a?.enabled) {
    const min = a.minNodeCount ?? (a.totalMinNodeCount ? Math.ceil(a.totalMinNodeCount / zones) : 0);
    const max =
      a.maxNodeCount ??
      (a.totalMaxNodeCount ? Math.floor(a.totalMaxNodeCount / zones) : Number.MAX_SAFE_INTEGER);
    count = Math.min(Math.max(count, min), Math.max(min, max));
  }
  return count;
}

/** The pool's operation still running with a node rollout, if any. */
function runningRollout(
  state: ClusterState,
  record: ClusterRecord,
  pool: string,
): OperationRecord | undefined {
  for (const op of state.operations.values()) {
    if (op.status === 'DONE' || !op.rollout) continue;
    if (op.projectId !== record.projectId || op.location !== record.location) continue;
    if (op.cluster === record.name && op.nodePool === pool) return op;
  }
  return undefined;
}

function groupsOfPool(state: ClusterState, record: ClusterRecord, poolRecord: PoolRecord): ManagedGroup[] {
  const pool = poolRecord.pool;
  const target = perZoneTarget(pool);
  const op = runningRollout(state, record, pool.name ?? '');
  const rollout = op?.rollout;
  const step = rollout ? rollout.steps[rollout.reached] : undefined;
  const groups: ManagedGroup[] = [];
  const add = (url: string, extra?: { creating: number; recreating: number }) => {
    const at = parseIgmUrl(url);
    if (!at) return;
    groups.push({
      ...at,
      targetSize: target,
      creating: extra?.creating ?? 0,
      recreating: extra?.recreating ?? 0,
      cluster: record,
      pool,
    });
  };
  for (const url of pool.instanceGroupUrls ?? []) {
    // A surge batch works in one zone: its surge nodes are created beside the target size (the
    // target does not move, as under a managed group's rolling update) and its nodes recreated.
    const inBatch =
      rollout?.strategy === 'SURGE' && step?.zone !== undefined && url.includes(`/zones/${step.zone}/`);
    const surge = inBatch && step ? step.extraNodes : 0;
    add(url, inBatch ? { creating: surge, recreating: Math.max(0, Math.min(target, surge)) } : undefined);
  }
  // The green pool's managers exist from the rollout's first phase until it ends (then they are the
  // pool's own), and after a blue-green upgrade stopped midway until a rollback deletes them.
  const green =
    rollout?.strategy === 'BLUE_GREEN' && rollout.kind === 'upgrade' && rollout.reached >= 0
      ? rollout.greenInstanceGroupUrls
      : poolRecord.partial?.strategy === 'BLUE_GREEN' && !op
        ? poolRecord.partial.greenInstanceGroupUrls
        : undefined;
  const own = new Set(pool.instanceGroupUrls ?? []);
  for (const url of green ?? []) if (!own.has(url)) add(url);
  return groups;
}

/** Every manager of a project's node pools, in one zone or all (sorted by name, as Compute lists). */
export function managedGroups(state: ClusterState, project: string, zone?: string): ManagedGroup[] {
  const out: ManagedGroup[] = [];
  for (const record of state.clusters.values()) {
    if (record.projectId !== project) continue;
    for (const poolRecord of record.pools.values()) {
      for (const g of groupsOfPool(state, record, poolRecord)) {
        if (zone === undefined || g.zone === zone) out.push(g);
      }
    }
  }
  return out.sort((a, b) => (a.zone === b.zone ? cmp(a.name, b.name) : cmp(a.zone, b.zone)));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One manager by zone and name, or undefined (a deleted pool's, a name never handed out). */
export function findManagedGroup(
  state: ClusterState,
  project: string,
  zone: string,
  name: string,
): ManagedGroup | undefined {
  return managedGroups(state, project, zone).find((g) => g.name === name);
}
