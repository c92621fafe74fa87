/**
 * A world's delivery rows in the process's memory budget (`deliveries`, docs/decisions/0019): a row is
 * written when an attempt ended, so every row counts, from its write or from the import or seed that
 * brought it. An evicted row is gone as a row CVAT no longer has: the API answers for it as for any
 * missing id. A webhook's deletion takes its rows out of the count with them (`forgetCounted`).
 */
import { budgetedTable, type WorldBudget } from '@sims/sim-core';
import type { DeliveryRec } from '../domain/model';
import type { AnnotationState } from '../domain/state';
import { LazyTables } from '../domain/state-tables';

/**
 * About what a delivery row keeps: its payload as an object (twice its JSON text), the receiver's
 * response text, and the row's other fields.
 */
function rowBytes(row: DeliveryRec): number {
  return (
    512 + 2 * (JSON.stringify(row.request)?.length ?? 0) + row.response.length + row.changed_fields.length
  );
}

/** A world's `deliveries` table in the budget. */
export const DELIVERY_ROWS = budgetedTable<number, DeliveryRec>({
  kind: 'deliveries',
  slot: 'deliveries',
  finished: () => true,
  bytes: rowBytes,
});

/**
 * The state's rows were replaced (a snapshot import): the replaced table's leave the budget, the new
 * ones count from now on. A table never made holds nothing and is left unmade.
 */
export function syncDeliveryRows(budget: WorldBudget, state: AnnotationState): void {
  const rows = state instanceof LazyTables ? state.tableIfMade('deliveries') : state.deliveries;
  if (rows !== undefined) DELIVERY_ROWS.sync(budget, rows as Map<number, DeliveryRec>);
}
