import { type ClusterRecord, type ClusterState, clusterKey, type OperationRecord } from './state';

/**
 * Each cluster's operations that may still run, so that what a pool change asks (is work running on the
 * cluster, how many surge nodes) reads that cluster's operations, not the world's up to `maxOperations`
 * (10,000) per change.
 *
 * Why an index that forgets lazily rather than one kept exact at every status change: an operation turns
 * DONE in several places (its events, a settle, a cancel's end, a seed that records a finished one) and
 * leaves the table when the budget or `maxOperations` drops it, but it never runs again once DONE. So the
 * index adds an operation where one is made (`createOperation`) and a question drops those that are DONE
 * or gone: the cluster's live ones and those that ended since the last question are all it reads.
 *
 * It holds the records (a seed re-keys the one it made under its given id) and the table it was made for:
 * a state whose table is replaced (an import makes a new state, a seed assigns its draft's table) makes
 * it again from the table on its next question. It is a property keyed by a symbol and not enumerable,
 * so snapshots, a seed's draft (a spread) and `structuredClone` leave it out.
 */
const LIVE = Symbol('live operations by cluster');

interface LiveIndex {
  table: Map<string, OperationRecord>;
  /** Cluster key → its operations not known to be DONE, in the order they were made (the table's). */
  byCluster: Map<string, Set<OperationRecord>>;
}

type Indexed = ClusterState & { [LIVE]?: LiveIndex };

const keyOf = (op: OperationRecord) => clusterKey(op.projectId, op.location, op.cluster);

function add(byCluster: LiveIndex['byCluster'], op: OperationRecord): void {
  const key = keyOf(op);
  const ops = byCluster.get(key);
  if (ops) ops.add(op);
  else byCluster.set(key, new Set([op]));
}

function indexOf(state: ClusterState): LiveIndex {
  const made = (state as Indexed)[LIVE];
  if (made !== undefined && made.table === state.operations) return made;
  const index: LiveIndex = { table: state.operations, byCluster: new Map() };
  for (const op of state.operations.values()) if (op.status !== 'DONE') add(index.byCluster, op);
  Object.defineProperty(state, LIVE, { value: index, writable: true, configurable: true, enumerable: false });
  return index;
}

/** An operation was put in the state's table: its cluster's next question finds it. */
export function operationMade(state: ClusterState, op: OperationRecord): void {
  const index = (state as Indexed)[LIVE];
  // An index not made yet (or made for a replaced table) reads the table when it is made.
  if (index !== undefined && index.table === state.operations && op.status !== 'DONE')
    add(index.byCluster, op);
}

/** The cluster's operations that are not DONE yet, in the order they were made. */
export function liveOperationsOf(state: ClusterState, record: ClusterRecord): OperationRecord[] {
  const { byCluster } = indexOf(state);
  const key = clusterKey(record.projectId, record.location, record.name);
  const ops = byCluster.get(key);
  if (ops === undefined) return [];
  const live: OperationRecord[] = [];
  for (const op of ops) {
    if (op.status !== 'DONE' && state.operations.get(op.id) === op) live.push(op);
    else ops.delete(op);
  }
  if (ops.size === 0) byCluster.delete(key);
  return live;
}
