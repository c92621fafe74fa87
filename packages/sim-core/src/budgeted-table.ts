import type { BudgetPool } from './budget-pool';
import { BudgetQueue } from './budget-queue';
import type { WorldBudget } from './memory-budget';

/** What a store says of one of its tables for the process's memory budget (docs/decisions/0019). */
export interface BudgetedTableSpec<V> {
  /** The pool its items count in: `requests`, `deliveries`, `operations`, … */
  kind: string;
  /** Its slot in a world's budget: one table per slot. */
  slot: string;
  /** Whether an item is history (ended, DONE, written): only those count, so only those are evicted. */
  finished(item: V): boolean;
  /**
   * About what a finished item keeps, in bytes. A function of the item alone, so that what the budget
   * holds for a table is what {@link BudgetedTable.bytesOf} gives for it (tests check that).
   */
  bytes(item: V): number;
}

/**
 * A store's table of keyed records in the process's memory budget: its finished records count in the
 * world's slot, oldest first, and the budget evicts the oldest of any namespace by deleting it from the
 * table (the API then answers as for a record it never had).
 *
 * Every call names the table, so a table replaced by an import or a seed is never counted in its
 * predecessor's place: `sync` after replacing or refilling a table counts what it holds now, and a
 * `count` on a table the slot does not count yet does the same. A counted table knows what counts it, so
 * `forget` (or {@link forgetCounted}) needs no budget: a cascade that deletes rows cannot leave their
 * bytes behind.
 */
export interface BudgetedTable<K, V> {
  readonly kind: string;
  readonly slot: string;
  /**
   * The record under `key` was added, replaced or finished: counted if it is finished now (the budget may
   * evict it, or older ones, at once), no longer counted if it is not (or is gone).
   */
  count(budget: WorldBudget | undefined, table: Map<K, V>, key: K): void;
  /** Deletes `key` from `table` and from the budget's count (expired, deleted, past a store's own cap). */
  forget(table: Map<K, V>, key: K): boolean;
  /**
   * Makes the count match `table` after it was replaced or changed wholesale (an import, a seed): what
   * the slot counted and the table no longer holds (or holds as another record) is given back, its
   * finished records not counted yet are counted as new; those counted already keep their age.
   */
  sync(budget: WorldBudget | undefined, table: Map<K, V>): void;
  /** Gives the slot back (the table goes with its world's state). */
  release(budget: WorldBudget | undefined): void;
  /** What the table's finished records cost by the spec's estimate: what the budget counts for it. */
  bytesOf(table: ReadonlyMap<K, V>): number;
}

/** The member counting a table, kept on the table (not enumerable: copies and snapshots leave it out). */
const COUNTED_BY = Symbol('memory budget member');

type Counted = { [COUNTED_BY]?: TableMember<NonNullable<unknown>, unknown> };

/** A slot's queue of one table's finished records, which it evicts from the table it counts now. */
class TableMember<K extends NonNullable<unknown>, V> extends BudgetQueue<K, V> {
  constructor(
    pool: BudgetPool | undefined,
    public table: Map<K, V>,
    onEvict: (key: K, value: V) => void,
  ) {
    super(pool, onEvict);
  }

  /** Counts `table` from now on (a new table of the same store). */
  bind(table: Map<K, V>): void {
    this.table = table;
    Object.defineProperty(table, COUNTED_BY, { value: this, writable: true, configurable: true });
  }
}

/**
 * A store's table in the process's memory budget (see {@link BudgetedTable}): one spec per table of a
 * store, made once (it holds nothing itself; what is counted lives in each world's slot).
 *
 * @example
 * const REQUESTS = budgetedTable<string, Request>({ kind: 'requests', slot: 'requests',
 *   finished: (r) => r.outcome !== null, bytes: (r) => 1024 + r.file.length });
 * REQUESTS.count(world.budget, state.requests, id); // it ended
 * REQUESTS.forget(state.requests, id); // it expired
 * REQUESTS.sync(world.budget, imported.requests); // after an import
 */
export function budgetedTable<K extends NonNullable<unknown>, V>(
  spec: BudgetedTableSpec<V>,
): BudgetedTable<K, V> {
  const { kind, slot, finished, bytes } = spec;

  /** The slot's member if it counts `table` now. */
  const counting = (budget: WorldBudget, table: Map<K, V>): TableMember<K, V> | undefined => {
    const found = budget.find(slot);
    return found instanceof TableMember && found.table === table ? (found as TableMember<K, V>) : undefined;
  };

  const sync = (budget: WorldBudget | undefined, table: Map<K, V>): void => {
    if (!budget) return;
    const found = budget.find(slot);
    if (found !== undefined && !(found instanceof TableMember))
      throw new TypeError(`memory budget slot "${slot}" is not a table's`);
    let member = found as TableMember<K, V> | undefined;
    if (member === undefined) {
      // Most namespaces never finish anything: no member for a table with nothing to count.
      if (!hasFinished(table)) return;
      member = budget.member(kind, slot, (pool) => {
        const made: TableMember<K, V> = new TableMember<K, V>(pool, table, (key, value) => {
          // Only the record it counted: one that took its key since is not history yet.
          if (made.table.get(key) === value) made.table.delete(key);
        });
        return made;
      });
    }
    if (member.table !== table || (table as Counted)[COUNTED_BY] !== (member as object)) member.bind(table);
    // Keys first, then removal: removing compacts the queue under an iterator.
    for (const key of [...member.keys()]) {
      const record = table.get(key);
      if (record === undefined || record !== member.valueOf(key) || !finished(record)) member.remove(key);
    }
    for (const [key, record] of table)
      if (!member.has(key) && finished(record)) member.add(key, bytes(record), record);
  };

  const hasFinished = (table: Map<K, V>): boolean => {
    for (const record of table.values()) if (finished(record)) return true;
    return false;
  };

  return {
    kind,
    slot,
    count(budget, table, key) {
      if (!budget) return;
      const record = table.get(key);
      const member = counting(budget, table);
      if (record === undefined || !finished(record)) member?.remove(key);
      else if (member) member.add(key, bytes(record), record);
      // Not counted yet (its first finished record, or a table that replaced the counted one).
      else sync(budget, table);
    },
    forget: (table, key) => forgetCounted(table, key),
    sync,
    release(budget) {
      budget?.release(slot);
    },
    bytesOf(table) {
      let sum = 0;
      for (const record of table.values()) if (finished(record)) sum += bytes(record);
      return sum;
    },
  };
}

/**
 * Deletes `key` from `table` and from what counts the table in the memory budget, if anything does
 * ({@link budgetedTable}): for code that deletes records without knowing the store's spec (a cascade).
 */
export function forgetCounted<K, V>(table: Map<K, V>, key: K): boolean {
  const member = (table as Counted)[COUNTED_BY];
  if (member !== undefined && member.table === table) member.remove(key as NonNullable<unknown>);
  return table.delete(key);
}
