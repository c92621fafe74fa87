import type { BudgetMember, BudgetPool } from './budget-pool';

/**
 * A store's finished items in one namespace, oldest first, as a member of its kind's pool: a delivery
 * row, a finished request, a DONE operation, an outbound journal entry. The store adds an item when it
 * is finished (what still runs is never added, so never evicted), removes it when it goes for its own
 * reasons (expired, replaced, deleted), and is called back with `onEvict(key, value)` when the budget
 * takes it. A store of keyed records uses it through {@link budgetedTable}, which does all of that.
 *
 * Keys are never `undefined`. `value` is what the store said the key stood for when it was added (a
 * table's record), given back to `onEvict` and by `valueOf`. Removal by key leaves a hole that the oldest
 * end skips; holes are compacted away once they outnumber the items, so a store that keeps replacing
 * items does not grow the queue.
 */
export class BudgetQueue<K extends NonNullable<unknown>, V = undefined> implements BudgetMember {
  heapIndex = -1;
  #keys: (K | undefined)[] = [];
  #values: (V | undefined)[] = [];
  #bytes: number[] = [];
  #orders: number[] = [];
  #head = 0;
  /** Key → index in the arrays. */
  readonly #at = new Map<K, number>();
  #heldBytes = 0;
  #evicted = 0;
  #pool: BudgetPool | undefined;

  constructor(
    pool: BudgetPool | undefined,
    private readonly onEvict: (key: K, value: V) => void,
  ) {
    this.#pool = pool;
  }

  /** Items held. */
  get size(): number {
    return this.#at.size;
  }
  /** Bytes held (estimated, as given). */
  get bytes(): number {
    return this.#heldBytes;
  }
  /** Items the budget evicted (not those the store removed itself, whatever its reason). */
  get evicted(): number {
    return this.#evicted;
  }
  has(key: K): boolean {
    return this.#at.has(key);
  }
  /** The value `key` was added with (undefined when it is not held). */
  valueOf(key: K): V | undefined {
    const at = this.#at.get(key);
    return at === undefined ? undefined : this.#values[at];
  }

  /**
   * Adds a finished item of about `bytes` (one already held under `key` is removed first), then lets the
   * pool evict what no longer fits: the item itself when it is larger than the whole share.
   */
  add(key: K, bytes: number, value?: V): void {
    this.remove(key);
    const pool = this.#pool;
    const at = this.#keys.length;
    this.#keys.push(key);
    this.#values.push(value);
    this.#bytes.push(bytes);
    this.#orders.push(pool ? pool.nextOrder() : 0);
    this.#at.set(key, at);
    this.#heldBytes += bytes;
    if (pool) {
      pool.added(this, bytes);
      pool.enforce();
    }
  }

  /**
   * Forgets an item that went for the store's own reasons (expired, replaced, deleted, past a
   * per-namespace cap), without calling `onEvict`. False when it was not held.
   */
  remove(key: K): boolean {
    const at = this.#at.get(key);
    if (at === undefined) return false;
    const bytes = this.#bytes[at] as number;
    this.#at.delete(key);
    this.#keys[at] = undefined;
    this.#values[at] = undefined;
    this.#bytes[at] = 0;
    this.#heldBytes -= bytes;
    const wasOldest = at === this.#head;
    this.#skipHoles();
    this.#pool?.released(this, bytes, this.#at.size === 0);
    if (!wasOldest) this.#compactIfSparse();
    return true;
  }

  oldestOrder(): number {
    return this.#orders[this.#head] as number;
  }

  dropOldest(): number {
    const key = this.#keys[this.#head] as K;
    const value = this.#values[this.#head] as V;
    this.remove(key);
    this.#evicted++;
    this.onEvict(key, value);
    return 1;
  }

  /** Forgets every item (a cleared store, a disposed world): its bytes go back to the pool. */
  clear(): void {
    const freed = this.#heldBytes;
    this.#keys = [];
    this.#values = [];
    this.#bytes = [];
    this.#orders = [];
    this.#head = 0;
    this.#at.clear();
    this.#heldBytes = 0;
    this.#pool?.released(this, freed, true);
  }

  /** Clears the queue and leaves the pool for good: later adds are kept but not counted (a disposed world). */
  detach(): void {
    this.clear();
    this.#pool = undefined;
  }

  /** Keys held, oldest first. */
  *keys(): Generator<K> {
    for (let i = this.#head; i < this.#keys.length; i++) {
      const key = this.#keys[i];
      if (key !== undefined) yield key;
    }
  }

  #skipHoles(): void {
    while (this.#head < this.#keys.length && this.#keys[this.#head] === undefined) this.#head++;
    if (this.#head === this.#keys.length) {
      this.#keys = [];
      this.#values = [];
      this.#bytes = [];
      this.#orders = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#keys.length) this.#compact();
  }

  #compactIfSparse(): void {
    const length = this.#keys.length - this.#head;
    if (length > 64 && this.#at.size * 2 < length) this.#compact();
  }

  /** Rewrites the arrays with the items held only, in order. */
  #compact(): void {
    const keys: K[] = [];
    const values: (V | undefined)[] = [];
    const bytes: number[] = [];
    const orders: number[] = [];
    for (let i = this.#head; i < this.#keys.length; i++) {
      const key = this.#keys[i];
      if (key === undefined) continue;
      this.#at.set(key, keys.length);
      keys.push(key);
      values.push(this.#values[i]);
      bytes.push(this.#bytes[i] as number);
      orders.push(this.#orders[i] as number);
    }
    this.#keys = keys;
    this.#values = values;
    this.#bytes = bytes;
    this.#orders = orders;
    this.#head = 0;
  }
}
