import { globMatch } from './glob';

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
  /** Entries pushed out of the ring since the last clear. */
  dropped: number;
  /** Entries ever recorded since the last clear. */
  total: number;
}

/**
 * An entry recorded now and built when first read. Most entries are never read, and building each one
 * as it was recorded (header copies, parsed bodies, an ISO time) was most of the journal's cost under
 * load (bench/, issue 8). The fields filters match on are plain; the rest comes from `build()`.
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
  /** The entry as readers see it (built once, then the same object). */
  entry(): JournalEntry {
    this.#built ??= { seq: this.seq, ...this.build() };
    return this.#built;
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
  /** Resolves with the first entry matching `filter` (existing or future), or `undefined` after `timeoutMs`. */
  wait(filter: JournalFilter, timeoutMs: number, signal?: AbortSignal): Promise<JournalEntry | undefined>;
  clear(): void;
  stats(): JournalStats;
}

export function journalMatches(entry: Matchable, f: JournalFilter): boolean {
  if (f.since !== undefined && entry.seq <= f.since) return false;
  if (f.operation !== undefined && !(entry.operation && globMatch(f.operation, entry.operation)))
    return false;
  if (f.resource !== undefined && !(entry.resource && globMatch(f.resource, entry.resource))) return false;
  if (f.method !== undefined && entry.method !== f.method.toUpperCase()) return false;
  if (f.path !== undefined && !globMatch(f.path, entry.path)) return false;
  if (f.status !== undefined && entry.status !== f.status) return false;
  if (f.fault !== undefined && !entry.faults.includes(f.fault)) return false;
  return true;
}

/**
 * A bounded request journal: a ring buffer of `capacity` entries with a dropped counter.
 *
 * @example
 * const journal = createJournal({ capacity: 10_000 });
 * await journal.wait({ operation: 'nodePools.update' }, 5_000);
 */
export function createJournal(options: { capacity?: number } = {}): Journal {
  const capacity = Math.max(1, options.capacity ?? 10_000);
  type Slot = JournalEntry | DeferredJournalEntry;
  let ring: (Slot | undefined)[] = new Array(capacity);
  let start = 0;
  let size = 0;
  let seq = 0;
  let dropped = 0;
  const waiters = new Set<{ filter: JournalFilter; resolve: (e: JournalEntry | undefined) => void }>();
  const read = (slot: Slot): JournalEntry => (slot instanceof DeferredJournalEntry ? slot.entry() : slot);

  function* slots(): Generator<Slot> {
    for (let i = 0; i < size; i++) yield ring[(start + i) % capacity] as Slot;
  }

  return {
    record(partial: Omit<JournalEntry, 'seq'> | DeferredJournalEntry) {
      let entry: Slot;
      if (partial instanceof DeferredJournalEntry) {
        partial.seq = ++seq;
        entry = partial;
      } else entry = { seq: ++seq, ...partial } as JournalEntry;
      if (size < capacity) {
        ring[(start + size) % capacity] = entry;
        size++;
      } else {
        ring[start] = entry;
        start = (start + 1) % capacity;
        dropped++;
      }
      for (const w of waiters) {
        if (journalMatches(entry, w.filter)) {
          waiters.delete(w);
          w.resolve(read(entry));
        }
      }
      // biome-ignore lint/suspicious/noExplicitAny: the overloads above give callers the precise type
      return entry as any;
    },
    list(filter = {}, limit = Number.POSITIVE_INFINITY) {
      const out: Slot[] = [];
      for (const e of slots()) {
        if (journalMatches(e, filter)) out.push(e);
      }
      return (out.length > limit ? out.slice(out.length - limit) : out).map(read);
    },
    wait(filter, timeoutMs, signal) {
      for (const e of slots()) if (journalMatches(e, filter)) return Promise.resolve(read(e));
      return new Promise((resolve) => {
        const waiter = {
          filter,
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
      ring = new Array(capacity);
      start = 0;
      size = 0;
      dropped = 0;
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
