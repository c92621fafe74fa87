import { type BudgetMember, BudgetPool, type BudgetPoolStats } from './budget-pool';
import { BudgetQueue } from './budget-queue';

/**
 * A kind of thing namespaces fill (the request journal; an app's event log, delivery history, finished
 * requests, operations) with its share of the process's memory. Its option is `--<name>-max-bytes`
 * (`SIM_<NAME>_MAX_BYTES`), its kernel option `budgets[name]` (docs/decisions/0019).
 */
export interface BudgetKind {
  /** Lower-case letters: `journal`, `events`, `deliveries`, … */
  name: string;
  /** Bytes the stores of this kind hold together unless told otherwise. */
  defaultMaxBytes: number;
  /** What they hold, for `--help`: `webhook delivery rows and what went on the wire`. */
  holds: string;
}

/** 64 MiB: what the journals of one simulator's namespaces may hold together unless told otherwise. */
export const DEFAULT_JOURNAL_MAX_BYTES = 64 * 1024 * 1024;

/** The request journal's kind: every simulator has it. */
export const JOURNAL_BUDGET_KIND: BudgetKind = {
  name: 'journal',
  defaultMaxBytes: DEFAULT_JOURNAL_MAX_BYTES,
  holds: 'request journals',
};

/** A member a world keeps in a slot: a {@link BudgetQueue}, or a store's own member. */
export interface SlotMember extends BudgetMember {
  /** Bytes held (estimated). */
  readonly bytes: number;
  /** Items the budget evicted (a store's own per-namespace cap is not counted here: it says so itself). */
  readonly evicted: number;
  /** Gives every byte back to the pool, and leaves it for good. */
  detach(): void;
}

/** What one world holds of one kind, and what the budget evicted of it since the world was made. */
export interface WorldBudgetStats {
  bytes: number;
  evicted: number;
}

/**
 * A world's side of the process's budget: its members by slot (`deliveries`, `outbound`, …), each in
 * its kind's pool. Disposing the world gives all their bytes back at once.
 */
export interface WorldBudget {
  /** The world's queue in `slot`, made on first use in `kind`'s pool (a store of keyed records: {@link budgetedTable}). */
  queue<K extends NonNullable<unknown>, V = undefined>(
    kind: string,
    slot: string,
    onEvict: (key: K, value: V) => void,
  ): BudgetQueue<K, V>;
  /** The world's member in `slot`, made by `make` on first use (`pool` undefined once the world is disposed). */
  member<M extends SlotMember>(kind: string, slot: string, make: (pool: BudgetPool | undefined) => M): M;
  /** The member in `slot`, if it was made. */
  find(slot: string): SlotMember | undefined;
  /**
   * Gives a slot's bytes back and forgets it (its store was replaced: the next use makes a new one). What
   * the budget evicted of it stays counted in `stats`.
   */
  release(slot: string): void;
  /**
   * Bytes held, and items the budget evicted since the world was made, by kind: over the namespaces that
   * exist, they add up to the pools' `usedBytes` and `evicted` (a deleted namespace's evictions stay in
   * its pools').
   */
  stats(): Record<string, WorldBudgetStats>;
  /** Releases every slot; members asked for later count nothing. */
  dispose(): void;
}

/** One simulator process's budget: a pool per kind, shared by the worlds of every namespace. */
export interface MemoryBudget {
  /** The pool of `kind`; throws RangeError for a kind the simulator does not have. */
  pool(kind: string): BudgetPool;
  /** Every kind's pool, the journal's first. */
  pools(): BudgetPool[];
  stats(): BudgetPoolStats[];
  /** A new world's side of it. */
  forWorld(): WorldBudget;
}

/**
 * A budget with a pool for the journal and each of `kinds`, each of `maxBytes[kind]` bytes or its
 * kind's default.
 *
 * @example
 * const budget = createMemoryBudget([{ name: 'events', defaultMaxBytes: 64 << 20, holds: 'event logs' }], { events: 8 << 20 });
 * const outbound = budget.forWorld().queue<number>('events', 'outbound', (seq) => entries.delete(seq));
 */
export function createMemoryBudget(
  kinds: readonly BudgetKind[] = [],
  maxBytes: Readonly<Record<string, number | undefined>> = {},
): MemoryBudget {
  const all = [JOURNAL_BUDGET_KIND, ...kinds.filter((k) => k.name !== JOURNAL_BUDGET_KIND.name)];
  for (const name of Object.keys(maxBytes)) {
    if (maxBytes[name] !== undefined && !all.some((k) => k.name === name))
      throw new RangeError(
        `no memory budget "${name}" in this simulator (it has ${all.map((k) => k.name).join(', ')})`,
      );
  }
  const pools = new Map(
    all.map((k) => [k.name, new BudgetPool(k.name, maxBytes[k.name] ?? k.defaultMaxBytes)]),
  );
  const pool = (kind: string): BudgetPool => {
    const found = pools.get(kind);
    if (!found) throw new RangeError(`no memory budget "${kind}" in this simulator`);
    return found;
  };
  return {
    pool,
    pools: () => [...pools.values()],
    stats: () => [...pools.values()].map((p) => p.stats()),
    forWorld: () => new WorldSlots(pool),
  };
}

/** A world's members by slot; nothing is allocated before the first (most namespaces fill nothing). */
class WorldSlots implements WorldBudget {
  #slots: Map<string, { kind: string; member: SlotMember }> | undefined;
  /** What the budget evicted of released members, by kind (their stores were replaced). */
  #released: Record<string, number> | undefined;
  #disposed = false;
  constructor(private readonly poolOf: (kind: string) => BudgetPool) {}

  queue<K extends NonNullable<unknown>, V = undefined>(
    kind: string,
    slot: string,
    onEvict: (key: K, value: V) => void,
  ): BudgetQueue<K, V> {
    return this.member(kind, slot, (pool) => new BudgetQueue<K, V>(pool, onEvict));
  }

  member<M extends SlotMember>(kind: string, slot: string, make: (pool: BudgetPool | undefined) => M): M {
    const found = this.#slots?.get(slot);
    if (found) return found.member as M;
    const pool = this.poolOf(kind);
    const member = make(this.#disposed ? undefined : pool);
    this.#slots ??= new Map();
    this.#slots.set(slot, { kind, member });
    return member;
  }

  find(slot: string): SlotMember | undefined {
    return this.#slots?.get(slot)?.member;
  }

  release(slot: string): void {
    const found = this.#slots?.get(slot);
    if (!found) return;
    this.#slots?.delete(slot);
    if (found.member.evicted > 0) {
      this.#released ??= {};
      this.#released[found.kind] = (this.#released[found.kind] ?? 0) + found.member.evicted;
    }
    found.member.detach();
  }

  stats(): Record<string, WorldBudgetStats> {
    const out: Record<string, WorldBudgetStats> = {};
    for (const [kind, evicted] of Object.entries(this.#released ?? {})) out[kind] = { bytes: 0, evicted };
    for (const { kind, member } of this.#slots?.values() ?? []) {
      const s = out[kind] ?? { bytes: 0, evicted: 0 };
      s.bytes += member.bytes;
      s.evicted += member.evicted;
      out[kind] = s;
    }
    return out;
  }

  dispose(): void {
    this.#disposed = true;
    for (const { member } of this.#slots?.values() ?? []) member.detach();
  }
}
