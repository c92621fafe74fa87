import { compileGlob } from './glob';
import { type BudgetMember, type JournalBudget, SharedJournalBudget } from './journal-budget';

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
  const capacity = Math.max(1, options.capacity ?? 10_000);
  const budget = options.budget as SharedJournalBudget | undefined;
  if (budget !== undefined && !(budget instanceof SharedJournalBudget))
    throw new TypeError('a journal budget is made by createJournalBudget');
  type Slot = JournalEntry | DeferredJournalEntry;
  // Grown on demand up to `capacity` (a namespace that sees few requests does not hold a full ring),
  // with each entry's size and budget order beside it.
  let ring: (Slot | undefined)[] = [];
  let sizes: number[] = [];
  let orders: number[] = [];
  let start = 0;
  let size = 0;
  let bytes = 0;
  let seq = 0;
  let dropped = 0;
  const waiters = new Set<{
    accepts: (e: Matchable) => boolean;
    resolve: (e: JournalEntry | undefined) => void;
  }>();
  const read = (slot: Slot): JournalEntry => (slot instanceof DeferredJournalEntry ? slot.entry() : slot);

  function* slots(): Generator<Slot> {
    for (let i = 0; i < size; i++) yield ring[(start + i) % ring.length] as Slot;
  }

  function grow(): void {
    const length = Math.min(capacity, Math.max(16, ring.length * 2));
    const nextRing: (Slot | undefined)[] = new Array(length);
    const nextSizes: number[] = new Array(length).fill(0);
    const nextOrders: number[] = new Array(length).fill(0);
    for (let i = 0; i < size; i++) {
      const from = (start + i) % ring.length;
      nextRing[i] = ring[from];
      nextSizes[i] = sizes[from] as number;
      nextOrders[i] = orders[from] as number;
    }
    ring = nextRing;
    sizes = nextSizes;
    orders = nextOrders;
    start = 0;
  }

  const member: BudgetMember = {
    heapIndex: -1,
    oldestOrder: () => orders[start] as number,
    dropOldest() {
      const freed = sizes[start] as number;
      ring[start] = undefined;
      start = (start + 1) % ring.length;
      size--;
      bytes -= freed;
      dropped++;
      budget?.released(member, freed, size === 0);
    },
  };

  return {
    record(partial: Omit<JournalEntry, 'seq'> | DeferredJournalEntry) {
      let entry: Slot;
      let entryBytes: number;
      if (partial instanceof DeferredJournalEntry) {
        partial.seq = ++seq;
        entry = partial;
        entryBytes = budget ? partial.byteSize() : 0;
      } else {
        entry = { seq: ++seq, ...partial } as JournalEntry;
        entryBytes = budget ? plainEntryBytes(entry) : 0;
      }
      if (size === capacity) member.dropOldest();
      else if (size === ring.length) grow();
      const at = (start + size) % ring.length;
      ring[at] = entry;
      sizes[at] = entryBytes;
      orders[at] = budget ? budget.nextOrder() : 0;
      size++;
      bytes += entryBytes;
      budget?.added(member, entryBytes);
      for (const w of waiters) {
        if (w.accepts(entry)) {
          waiters.delete(w);
          w.resolve(read(entry));
        }
      }
      // After the waiters: an entry dropped at once (larger than the whole budget) still answers them.
      budget?.enforce();
      // biome-ignore lint/suspicious/noExplicitAny: the overloads above give callers the precise type
      return entry as any;
    },
    list(filter = {}, limit = Number.POSITIVE_INFINITY) {
      const out: Slot[] = [];
      const accepts = compileJournalFilter(filter);
      for (const e of slots()) {
        if (accepts(e)) out.push(e);
      }
      return (out.length > limit ? out.slice(out.length - limit) : out).map(read);
    },
    get(wanted) {
      // Seqs are consecutive in the ring: the entry sits at a known offset from the oldest one.
      if (size === 0 || !Number.isInteger(wanted)) return undefined;
      const at = wanted - (ring[start] as Slot).seq;
      if (at < 0 || at >= size) return undefined;
      const slot = ring[(start + at) % ring.length] as Slot;
      return slot.seq === wanted ? read(slot) : undefined;
    },
    wait(filter, timeoutMs, signal) {
      const accepts = compileJournalFilter(filter);
      for (const e of slots()) if (accepts(e)) return Promise.resolve(read(e));
      return new Promise((resolve) => {
        const waiter = {
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
    },
    clear() {
      const freed = bytes;
      ring = [];
      sizes = [];
      orders = [];
      start = 0;
      size = 0;
      bytes = 0;
      dropped = 0;
      budget?.released(member, freed, true);
    },
    stats: () => ({ capacity, size, dropped, total: size + dropped }),
  };
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
