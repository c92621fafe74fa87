/**
 * A table whose rows belong to a parent (a job to its task, a delivery to its webhook) and that answers
 * "the rows of this parent" without reading the others: rendering a task read every job of the world, so
 * a page of tasks in a world of 40,000 jobs read 40,000 jobs per task.
 *
 * Why an index kept by the table itself rather than one rebuilt when a version counter moves: children
 * are added all the time between two reads (a task is created, rendered, its data attached, rendered
 * again), and a rebuilt index would read the whole table at each of them, which is the cost it removes.
 * Every change of a row goes through `set` and `delete` (the engine's delivery rows, the domain's
 * records, tests), so the table sees them all; the one exception is a parent changed in place on a row
 * (a task moved to another project by `update()`), which its writer announces with `parentChanged`.
 *
 * The index is made on the first question (a world that is only written, a seed or an import, never pays
 * for it), is never in a snapshot (the rows are the table's entries; the index is a private field), and
 * goes with its table when a snapshot import or a reset replaces the table.
 */
export class ChildTable<K, V> extends Map<K, V> {
  /** Parent id → the keys of its rows, in the table's order (insertion order of the keys). */
  #byParent: Map<unknown, Set<K>> | undefined;

  /** `rows` are copied in (a table of a snapshot import). */
  constructor(
    readonly parentOf: (row: V) => unknown,
    rows?: Iterable<readonly [K, V]>,
  ) {
    super();
    if (rows) for (const [key, row] of rows) super.set(key, row);
  }

  /** The rows of `parent`, in the order the table holds them (a scan of the table filtered by parent). */
  rowsOf(parent: unknown): V[] {
    const keys = this.#index().get(parent);
    if (keys === undefined) return [];
    const rows: V[] = [];
    for (const key of keys) rows.push(super.get(key) as V);
    return rows;
  }

  /** How many rows `parent` has. */
  countOf(parent: unknown): number {
    return this.#index().get(parent)?.size ?? 0;
  }

  /**
   * A row's parent was changed in place (no `set`): the index is made again, in the table's order, by the
   * next question. Cheap to call before and after the change (moves are rare; their order is the table's).
   */
  parentChanged(): void {
    this.#byParent = undefined;
  }

  override set(key: K, row: V): this {
    const index = this.#byParent;
    if (index !== undefined) {
      const parent = this.parentOf(row);
      const keys = index.get(parent);
      if (!super.has(key)) {
        // A new key is last in the table and last among its parent's rows.
        if (keys) keys.add(key);
        else index.set(parent, new Set([key]));
      } else if (!keys?.has(key)) {
        // An existing key under another parent: where it goes among its new siblings is its place in the
        // table, which only a new index knows.
        this.#byParent = undefined;
      }
    }
    return super.set(key, row);
  }

  override delete(key: K): boolean {
    const index = this.#byParent;
    if (index === undefined || !super.has(key)) return super.delete(key);
    const parent = this.parentOf(super.get(key) as V);
    const keys = index.get(parent);
    if (keys?.delete(key)) {
      if (keys.size === 0) index.delete(parent);
    } else this.#byParent = undefined; // its parent changed in place unannounced: the index is stale
    return super.delete(key);
  }

  override clear(): void {
    this.#byParent = undefined;
    super.clear();
  }

  #index(): Map<unknown, Set<K>> {
    if (this.#byParent !== undefined) return this.#byParent;
    const index = new Map<unknown, Set<K>>();
    for (const [key, row] of super.entries()) {
      const parent = this.parentOf(row);
      const keys = index.get(parent);
      if (keys) keys.add(key);
      else index.set(parent, new Set([key]));
    }
    this.#byParent = index;
    return index;
  }
}

/**
 * The rows of `table` under `parent`: through its index when it is a ChildTable keyed by `parentOf`,
 * else a scan (a plain Map), both in the table's order.
 */
export function rowsOf<K, V>(table: ReadonlyMap<K, V>, parentOf: (row: V) => unknown, parent: unknown): V[] {
  if (table instanceof ChildTable && table.parentOf === parentOf)
    return (table as ChildTable<K, V>).rowsOf(parent);
  const rows: V[] = [];
  for (const row of table.values()) if (parentOf(row) === parent) rows.push(row);
  return rows;
}

/** How many rows of `table` are under `parent` (see `rowsOf`). */
export function countOf<K, V>(
  table: ReadonlyMap<K, V>,
  parentOf: (row: V) => unknown,
  parent: unknown,
): number {
  if (table instanceof ChildTable && table.parentOf === parentOf) return table.countOf(parent);
  let count = 0;
  for (const row of table.values()) if (parentOf(row) === parent) count++;
  return count;
}
