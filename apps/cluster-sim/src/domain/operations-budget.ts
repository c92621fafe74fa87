/**
 * Finished (DONE) operations in the process's memory budget (`operations`, docs/decisions/0019): an
 * operation counts once it is DONE, so one still running is never evicted; an evicted one is gone as
 * one past `maxOperations` is, and `operations.get` answers for it as GKE answers for a missing one.
 */
import type { BudgetKind, WorldBudget } from '@sims/sim-core';
import { attachBudget, type ClusterState, type OperationRecord } from './state';

/**
 * What cluster-sim's namespaces fill besides the request journal (`--operations-max-bytes`). With the
 * journal's 64 MiB, 1,000 busy namespaces stay within about 150 MB of heap.
 */
export const CLUSTER_BUDGET_KINDS: readonly BudgetKind[] = [
  { name: 'operations', defaultMaxBytes: 32 * 1024 * 1024, holds: 'finished (DONE) operations' },
];

const OPERATIONS_SLOT = 'operations';

/** About what a DONE operation keeps: twice its JSON text (objects cost more than their text) and a map entry. */
function operationBytes(op: OperationRecord): number {
  return 256 + 2 * (JSON.stringify(op)?.length ?? 0);
}

/** The world's DONE operations in the budget, made on first use with those the state holds then. */
function operationsBudget(state: ClusterState) {
  return state.budget?.queue<string>(
    'operations',
    OPERATIONS_SLOT,
    (id) => {
      if (state.operations.get(id)?.status === 'DONE') state.operations.delete(id);
    },
    () =>
      [...state.operations.values()]
        .filter((op) => op.status === 'DONE')
        .map((op) => [op.id, operationBytes(op)] as const),
  );
}

/** An operation reached DONE: it counts in the budget from now on. */
export function countDoneOperation(state: ClusterState, op: OperationRecord): void {
  if (op.status === 'DONE' && state.operations.get(op.id) === op)
    operationsBudget(state)?.add(op.id, operationBytes(op));
}

/** An operation left the table for the state's own reasons (`maxOperations`): counted as evicted. */
export function forgetOperation(state: ClusterState, id: string): void {
  state.operations.delete(id);
  if (state.budget?.find(OPERATIONS_SLOT)) operationsBudget(state)?.remove(id, true);
}

/**
 * Gives a state made from a snapshot the world's budget: the replaced state's operations leave it, the
 * snapshot's DONE ones count from now on.
 */
export function adoptBudget(state: ClusterState, budget: WorldBudget): void {
  budget.release(OPERATIONS_SLOT);
  attachBudget(state, budget);
  if ([...state.operations.values()].some((op) => op.status === 'DONE')) operationsBudget(state);
}
