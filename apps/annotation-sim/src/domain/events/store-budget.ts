/**
 * The event log's part in the process's memory budget (`events`, docs/decisions/0019): a namespace's
 * store as one member of the pool, its rows in runs (the rows one write appended, with the pool order
 * of that write), so that the namespace whose oldest row is the oldest of all loses rows first.
 *
 * It loses them a quarter of its rows at a time, as the store's own `maxEvents` cap does: evicting
 * moves the rows kept (`EventStore.evictOldest`), so a row at a time under a full budget would cost a
 * whole store per row logged anywhere; a quarter makes it O(1) per row, amortized.
 */
import type { BudgetPool, SlotMember, WorldBudget } from '@sims/sim-core';
import type { EventStore } from './store';

/** The kind and slot of the event log in a world's budget. */
const EVENTS_BUDGET_KIND = 'events';
const EVENTS_SLOT = 'events';

export class EventsBudgetMember implements SlotMember {
  heapIndex = -1;
  /** Runs, oldest first from `head`: each ends (exclusive) at an absolute row number, with its order. */
  private ends: number[] = [];
  private orders: number[] = [];
  private head = 0;
  /** Bytes counted in the pool now (the store's `heldBytes` when last synced). */
  private counted = 0;
  private evictedRows = 0;

  constructor(
    private pool: BudgetPool | undefined,
    private readonly store: () => EventStore,
  ) {}

  get bytes(): number {
    return this.counted;
  }
  /** Rows the budget evicted (the store's own cap counts in the store's `evicted` only). */
  get evicted(): number {
    return this.evictedRows;
  }

  /**
   * Brings the pool up to date with the store after it changed: the rows appended since become a run
   * of a new order, runs the store evicted itself (its cap) are dropped, and the bytes follow. Then,
   * when the store grew, the pool evicts what no longer fits.
   */
  sync(): void {
    const store = this.store();
    const first = store.evicted;
    const end = store.appended;
    const headBefore = this.head;
    while (this.head < this.ends.length && (this.ends[this.head] as number) <= first) this.head++;
    if (this.head === this.ends.length) {
      this.ends = [];
      this.orders = [];
      this.head = 0;
    } else if (this.head > 64 && this.head * 2 > this.ends.length) {
      this.ends = this.ends.slice(this.head);
      this.orders = this.orders.slice(this.head);
      this.head = 0;
    }
    const last = this.ends.length > 0 ? (this.ends[this.ends.length - 1] as number) : first;
    const pool = this.pool;
    if (end > last) {
      this.ends.push(end);
      this.orders.push(pool ? pool.nextOrder() : 0);
    }
    const held = store.length === 0 ? 0 : store.heldBytes();
    const delta = held - this.counted;
    this.counted = held;
    if (!pool) return;
    const empty = store.length === 0;
    if (empty) {
      pool.released(this, -delta, true);
      return;
    }
    if (delta > 0 || this.heapIndex === -1) pool.added(this, delta);
    else pool.released(this, -delta, false);
    // The oldest run moved on: the member's place in the heap moves with it.
    if (this.head !== headBefore && delta > 0) pool.released(this, 0, false);
    if (delta > 0) pool.enforce();
  }

  oldestOrder(): number {
    return this.orders[this.head] as number;
  }

  dropOldest(): number {
    const store = this.store();
    const n = Math.max(1, Math.ceil(store.length / 4));
    store.evictOldest(n);
    this.evictedRows += n;
    this.sync();
    return n;
  }

  detach(): void {
    const pool = this.pool;
    this.pool = undefined;
    pool?.released(this, this.counted, true);
    this.counted = 0;
    this.ends = [];
    this.orders = [];
    this.head = 0;
  }
}

/** What an events state keeps of the world's budget: the world's side of it. */
export interface EventsBudgetHolder {
  budget?: WorldBudget;
  store: EventStore;
}

/**
 * The events member of the world whose state this is, made on first use (a store that never logs a row
 * is never a member): it starts with the rows the store holds then (an imported log).
 */
export function eventsBudgetOf(state: EventsBudgetHolder): EventsBudgetMember | undefined {
  return state.budget?.member(
    EVENTS_BUDGET_KIND,
    EVENTS_SLOT,
    (pool) => new EventsBudgetMember(pool, () => state.store),
  );
}

/** The member if it was made, without making it (reads and settings that only shrink the log). */
export function eventsBudgetIfMade(state: EventsBudgetHolder): EventsBudgetMember | undefined {
  return state.budget?.find(EVENTS_SLOT) as EventsBudgetMember | undefined;
}

/** Lets go of the world's event-log member (its store is being replaced by a snapshot's). */
export function releaseEventsBudget(budget: WorldBudget | undefined): void {
  budget?.release(EVENTS_SLOT);
}
