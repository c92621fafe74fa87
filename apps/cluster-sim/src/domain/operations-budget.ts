/**
 * Finished (DONE) operations in the process's memory budget (`operations`, docs/decisions/0019): an
 * operation counts once it is DONE, so one still running is never evicted; an evicted one is gone as
 * one past `maxOperations` is, and `operations.get` answers for it as GKE answers for a missing one.
 */
import { type BudgetKind, budgetedTable, type WorldBudget } from '@sims/sim-core';
import { attachBudget, type ClusterState, type OperationRecord } from './state';

/**
 * What cluster-sim's namespaces fill besides the request journal (`--operations-max-bytes`). With the
 * journal's 64 MiB, 1,000 busy namespaces stay within about 150 MB of heap.
 */
export const CLUSTER_BUDGET_KINDS: readonly BudgetKind[] = [
  { name: 'operations', defaultMaxBytes: 32 * 1024 * 1024, holds: 'finished (DONE) operations' },
];

/** A world's operations table in the budget: its DONE operations count, about twice their JSON and a map entry. */
export const DONE_OPERATIONS = budgetedTable<string, OperationRecord>({
  kind: 'operations',
  slot: 'operations',
  finished: (op) => op.status === 'DONE',
  bytes: (op) => 256 + 2 * (JSON.stringify(op)?.length ?? 0),
});

/** An operation reached DONE: it counts in the budget from now on. */
export function countDoneOperation(state: ClusterState, op: OperationRecord): void {
  if (state.operations.get(op.id) === op) DONE_OPERATIONS.count(state.budget, state.operations, op.id);
}

/** An operation left the table for the state's own reasons (`maxOperations`). */
export function forgetOperation(state: ClusterState, id: string): void {
  DONE_OPERATIONS.forget(state.operations, id);
}

/**
 * The state's operations table was replaced or refilled (a seed applied): what the budget counts follows
 * it, the operations it counted already keeping their age.
 */
export function syncDoneOperations(state: ClusterState): void {
  DONE_OPERATIONS.sync(state.budget, state.operations);
}

/**
 * Gives a state made from a snapshot the world's budget: the replaced state's operations leave it, the
 * snapshot's DONE ones count from now on.
 */
export function adoptBudget(state: ClusterState, budget: WorldBudget): void {
  attachBudget(state, budget);
  syncDoneOperations(state);
}
