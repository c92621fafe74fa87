import { type BudgetMember, BudgetPool } from './budget-pool';
import { compileGlob } from './glob';
import type { JournalBudget } from './journal-budget';

/** One emulated-API request as the journal keeps it. */
export interface JournalEntry {
  /** Position in this namespace's journal, from 1; never reused, also after the ring drops old entries. */
  seq: number;
  requestId: string;
  /** World-clock time at which the request arrived. */
  time: string;
  namespace: string;
  operation?: string;
  resource?: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names; credentials redacted. */
  headers: Record<string, string>;
  requestBody?: unknown;
  status: number;
  responseBody?: unknown;
  /** Wall-clock milliseconds spent answering. */
  durationMs: number;
  /** Ids of the fault rules that fired for this request. */
  faults: string[];
}

export interface JournalFilter {
  operation?: string;
  resource?: string;
  method?: string;
  path?: string;
  status?: number;
  /** Only entries for which this rule fired. */
  fault?: string;
  /** Only entries with seq greater than this. */
  since?: number;
}

export interface JournalStats {
  capacity: number;
  size: number;
  /** Entries pushed out since the last clear: by the ring's capacity or by the shared byte budget. */
  dropped: number;
  /** Entries ever recorded since the last clear. */
  total: number;
}

/**
 * An entry recorded now and built when first read. Most entries are never read, and building each one
 * as it was recorded (header copies, parsed bodies, an ISO time) was most of the journal's cost under
 * load (bench/). The fields filters match on are plain; the rest comes from `build()`.
 *
 * @example class MyEntry extends DeferredJournalEntry { protected build() { return { … } } }
 */
export abstract class DeferredJournalEntry {
  /** Set by the journal when recorded. */
  seq = 0;
  abstract readonly operation: string | undefined;
  abstract readonly resource: string | undefined;
  abstract readonly method: string;
  abstract readonly path: string;
  abstract readonly status: number;
  abstract readonly faults: string[];
  #built: JournalEntry | undefined;
  /** Everything but `seq`, in the order a plain entry has its fields. */
  protected abstract build(): Omit<JournalEntry, 'seq'>;
  /**
   * About how many bytes the entry keeps, for a {@link JournalBudget}: override it to count the raw
   * text a subclass holds (headers, bodies). Must give the same answer every time it is asked.
   */
  byteSize(): number {
    return (
      ENTRY_OVERHEAD_BYTES + this.path.length + (this.operation?.length ?? 0) + (this.resource?.length ?? 0)
    );
  }
  /** The entry as readers see it (built once, then the same object). */
  entry(): JournalEntry {
    this.#built ??= { seq: this.seq, ...this.build() };
    return this.#built;
  }
}

/** What an entry costs besides its strings (object headers, fields, numbers), as budgets count it. */
const ENTRY_OVERHEAD_BYTES = 256;

/** A plain entry's size for a budget: its JSON length (counted once, when recorded). */
function plainEntryBytes(entry: JournalEntry): number {
  try {
    return ENTRY_OVERHEAD_BYTES + (JSON.stringify(entry)?.length ?? 0);
  } catch {
    return ENTRY_OVERHEAD_BYTES * 4;
  }
}

/** The fields `journalMatches` reads: a plain entry has them, and so does a deferred one. */
type Matchable = Pick<
  JournalEntry,
  'seq' | 'operation' | 'resource' | 'method' | 'path' | 'status' | 'faults'
>;

export interface Journal {
  /** Records a plain entry, or a deferred one (built when read; returned as recorded). */
  record(entry: Omit<JournalEntry, 'seq'>): JournalEntry;
  record<D extends DeferredJournalEntry>(entry: D): D;
  list(filter?: JournalFilter, limit?: number): JournalEntry[];
  /** The entry with this seq, if the journal still holds it. */
  get(seq: number): JournalEntry | undefined;
  /** Resolves with the first entry matching `filter` (existing or future), or `undefined` after `timeoutMs`. */
  wait(filter: JournalFilter, timeoutMs: number, signal?: AbortSignal): Promise<JournalEntry | undefined>;
  clear(): void;
  stats(): JournalStats;
  /** Bytes the entries held count in the budget (estimated; 0 for a journal without a budget). */
  bytes(): number;
  /**
   * Entries the shared byte budget evicted since the journal was made: its pool's `evicted` counts the
   * same (`dropped` also counts the ring's capacity and starts again at a clear).
   */
  budgetEvicted(): number;
}

/** A journal filter compiled once per query: its globs become matchers. */
export function compileJournalFilter(f: JournalFilter): (entry: Matchable) => boolean {
  const operation = f.operation === undefined ? undefined : compileGlob(f.operation);
  const resource = f.resource === undefined ? undefined : compileGlob(f.resource);
  const path = f.path === undefined ? undefined : compileGlob(f.path);
  const method = f.method?.toUpperCase();
  return (entry) => {
    if (f.since !== undefined && entry.seq <= f.since) return false;
    if (operation !== undefined && !(entry.operation && operation(entry.operation))) return false;
    if (resource !== undefined && !(entry.resource && resource(entry.resource))) return false;
    if (method !== undefined && entry.method !== method) return false;
    if (path !== undefined && !path(entry.path)) return false;
    if (f.status !== undefined && entry.status !== f.status) return false;
    if (f.fault !== undefined && !entry.faults.includes(f.fault)) return false;
    return true;
  };
}

/** Whether one entry passes a filter (compiles the filter: for many entries, use {@link compileJournalFilter}). */
export function journalMatches(entry: Matchable, f: JournalFilter): boolean {
  return compileJournalFilter(f)(entry);
}

/**
 * A bounded request journal: a ring buffer of `capacity` entries with a dropped counter; with a
 * `budget`, also bounded in bytes together with the other journals that share it.
 *
 * @example
 * const journal = createJournal({ capacity: 10_000 });
 * await journal.wait({ operation: 'nodePools.update' }, 5_000);
 */
export function createJournal(options: { capacity?: number; budget?: JournalBudget } = {}): Journal {
  const budget = options.budget as BudgetPool | undefined;
  if (budget !== undefined && !(budget instanceof BudgetPool))
    throw new TypeError('a journal budget is made by createJournalBudget or createMemoryBudget');
  return new RingJournal(Math.max(1, options.capacity ?? 10_000), budget);
}

type Slot = JournalEntry | DeferredJournalEntry;
interface Waiter {
  accepts: (e: Matchable) => boolean;
  resolve: (e: JournalEntry | undefined) => void;
}
const read = (slot: Slot): JournalEntry => (slot instanceof DeferredJournalEntry ? slot.entry() : slot);
/** The arrays of a journal before its first entry (frozen: `grow` replaces them, nothing writes them). */
const EMPTY: never[] = Object.freeze([]) as never[];

/**
 * The journal of one world, and its budget's member. Its ring is grown on demand up to `capacity` (a
 * namespace that sees few requests does not hold a full ring), with each entry's size and budget order
 * beside it; nothing is allocated before the first entry (methods on the prototype, the waiters made by
 * the first wait).
 */
class RingJournal implements Journal, BudgetMember {
  heapIndex = -1;
  private ring: (Slot | undefined)[] = EMPTY;
  private sizes: number[] = EMPTY;
  private orders: number[] = EMPTY;
  private start = 0;
  private size = 0;
  private heldBytes = 0;
  private seq = 0;
  private dropped = 0;
  private evictedByBudget = 0;
  private waiters: Set<Waiter> | undefined;

  constructor(
    private readonly capacity: number,
    private readonly budget: BudgetPool | undefined,
  ) {}

  private *slots(): Generator<Slot> {
    for (let i = 0; i < this.size; i++) yield this.ring[(this.start + i) % this.ring.length] as Slot;
  }

  private grow(): void {
    const { ring, sizes, orders, start } = this;
    const length = Math.min(this.capacity, Math.max(16, ring.length * 2));
    const nextRing: (Slot | undefined)[] = new Array(length);
    const nextSizes: number[] = new Array(length).fill(0);
    const nextOrders: number[] = new Array(length).fill(0);
    for (let i = 0; i < this.size; i++) {
      const from = (start + i) % ring.length;
      nextRing[i] = ring[from];
      nextSizes[i] = sizes[from] as number;
      nextOrders[i] = orders[from] as number;
    }
    this.ring = nextRing;
    this.sizes = nextSizes;
    this.orders = nextOrders;
    this.start = 0;
  }

  oldestOrder(): number {
    return this.orders[this.start] as number;
  }
  /** The budget's eviction (the ring's own drop is `dropFirst`). */
  dropOldest(): number {
    this.evictedByBudget++;
    this.dropFirst();
    return 1;
  }
  private dropFirst(): void {
    const freed = this.sizes[this.start] as number;
    this.ring[this.start] = undefined;
    this.start = (this.start + 1) % this.ring.length;
    this.size--;
    this.heldBytes -= freed;
    this.dropped++;
    this.budget?.released(this, freed, this.size === 0);
  }

  record(entry: Omit<JournalEntry, 'seq'>): JournalEntry;
  record<D extends DeferredJournalEntry>(entry: D): D;
  record(partial: Omit<JournalEntry, 'seq'> | DeferredJournalEntry): Slot {
    const { budget } = this;
    let entry: Slot;
    let entryBytes: number;
    if (partial instanceof DeferredJournalEntry) {
      partial.seq = ++this.seq;
      entry = partial;
      entryBytes = budget ? partial.byteSize() : 0;
    } else {
      entry = { seq: ++this.seq, ...partial } as JournalEntry;
      entryBytes = budget ? plainEntryBytes(entry) : 0;
    }
    if (this.size === this.capacity) this.dropFirst();
    else if (this.size === this.ring.length) this.grow();
    const at = (this.start + this.size) % this.ring.length;
    this.ring[at] = entry;
    this.sizes[at] = entryBytes;
    this.orders[at] = budget ? budget.nextOrder() : 0;
    this.size++;
    this.heldBytes += entryBytes;
    budget?.added(this, entryBytes);
    if (this.waiters) {
      for (const w of this.waiters) {
        if (w.accepts(entry)) {
          this.waiters.delete(w);
          w.resolve(read(entry));
        }
      }
    }
    // After the waiters: an entry dropped at once (larger than the whole budget) still answers them.
    budget?.enforce();
    return entry;
  }
  list(filter: JournalFilter = {}, limit = Number.POSITIVE_INFINITY): JournalEntry[] {
    const out: Slot[] = [];
    const accepts = compileJournalFilter(filter);
    for (const e of this.slots()) {
      if (accepts(e)) out.push(e);
    }
    return (out.length > limit ? out.slice(out.length - limit) : out).map(read);
  }
  get(wanted: number): JournalEntry | undefined {
    // Seqs are consecutive in the ring: the entry sits at a known offset from the oldest one.
    if (this.size === 0 || !Number.isInteger(wanted)) return undefined;
    const at = wanted - (this.ring[this.start] as Slot).seq;
    if (at < 0 || at >= this.size) return undefined;
    const slot = this.ring[(this.start + at) % this.ring.length] as Slot;
    return slot.seq === wanted ? read(slot) : undefined;
  }
  wait(filter: JournalFilter, timeoutMs: number, signal?: AbortSignal): Promise<JournalEntry | undefined> {
    const accepts = compileJournalFilter(filter);
    for (const e of this.slots()) if (accepts(e)) return Promise.resolve(read(e));
    this.waiters ??= new Set();
    const waiters = this.waiters;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        accepts,
        resolve: (e: JournalEntry | undefined) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(e);
        },
      };
      const onAbort = () => {
        waiters.delete(waiter);
        waiter.resolve(undefined);
      };
      // A long-poll waits in wall time: it is a transport concern, not simulated time.
      const timer = setTimeout(onAbort, timeoutMs);
      signal?.addEventListener('abort', onAbort);
      waiters.add(waiter);
    });
  }
  clear(): void {
    const freed = this.heldBytes;
    this.ring = EMPTY;
    this.sizes = EMPTY;
    this.orders = EMPTY;
    this.start = 0;
    this.size = 0;
    this.heldBytes = 0;
    this.dropped = 0;
    this.budget?.released(this, freed, true);
  }
  bytes(): number {
    return this.heldBytes;
  }
  budgetEvicted(): number {
    return this.evictedByBudget;
  }
  stats(): JournalStats {
    const { capacity, size, dropped } = this;
    return { capacity, size, dropped, total: size + dropped };
  }
}

/**
 * One line for a request, as `--log debug` prints it.
 *
 * @example formatRequestLog(entry) // "[default] PUT /v1beta1/…/nodePools/np1 409 1.2ms nodePools.update faults=abort"
 */
export function formatRequestLog(e: JournalEntry): string {
  const query = Object.keys(e.query).length > 0 ? `?${new URLSearchParams(e.query)}` : '';
  const faults = e.faults.length > 0 ? ` faults=${e.faults.join(',')}` : '';
  return `[${e.namespace}] ${e.method} ${e.path}${query} ${e.status} ${e.durationMs}ms ${e.operation ?? '-'}${faults}`;
}
