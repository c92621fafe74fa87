/** 64 MiB: what the journals of one simulator's namespaces may hold together unless told otherwise. */
export const DEFAULT_JOURNAL_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A byte budget that several journals share (one simulator's namespaces): when the entries they hold
 * together pass `maxBytes`, the oldest entries of any of them are dropped (counted in their `dropped`)
 * until they fit again. Sizes are estimates: `DeferredJournalEntry.byteSize`, or the JSON length
 * of a plain entry, plus a fixed overhead per entry; an entry that has been read also holds its built
 * form, which the estimate leaves out.
 */
export interface JournalBudget {
  readonly maxBytes: number;
  /** Bytes the journals sharing the budget hold now (estimated). */
  used(): number;
}

/** A journal's side of a budget: where its oldest entry stands in the order of all their entries. */
export interface BudgetMember {
  /** Position in the budget's heap; -1 while the journal holds nothing. */
  heapIndex: number;
  /** The budget order of the journal's oldest entry. */
  oldestOrder(): number;
  /** Drops the journal's oldest entry, reporting it with `released`. */
  dropOldest(): void;
}

/** A min-heap of journals by the age of their oldest entry, so the oldest entry of all is found in O(1). */
export class SharedJournalBudget implements JournalBudget {
  #used = 0;
  #order = 0;
  readonly #heap: BudgetMember[] = [];
  constructor(readonly maxBytes: number) {}
  used(): number {
    return this.#used;
  }
  /** The order of an entry recorded now: later entries, of any journal, have higher orders. */
  nextOrder(): number {
    return ++this.#order;
  }
  added(member: BudgetMember, bytes: number): void {
    this.#used += bytes;
    if (member.heapIndex === -1) {
      member.heapIndex = this.#heap.length;
      this.#heap.push(member);
      this.#up(member.heapIndex);
    }
  }
  /** `member` dropped `bytes` of its oldest entries; `empty` when it holds nothing now. */
  released(member: BudgetMember, bytes: number, empty: boolean): void {
    this.#used -= bytes;
    const at = member.heapIndex;
    if (at === -1) return;
    if (!empty) {
      this.#down(at);
      return;
    }
    const last = this.#heap.pop() as BudgetMember;
    member.heapIndex = -1;
    if (last === member) return;
    this.#heap[at] = last;
    last.heapIndex = at;
    this.#down(at);
    this.#up(last.heapIndex);
  }
  /** Drops the oldest entries of all the journals until what they hold fits. */
  enforce(): void {
    while (this.#used > this.maxBytes && this.#heap.length > 0) (this.#heap[0] as BudgetMember).dropOldest();
  }
  #swap(i: number, j: number): void {
    const a = this.#heap[i] as BudgetMember;
    const b = this.#heap[j] as BudgetMember;
    this.#heap[i] = b;
    this.#heap[j] = a;
    b.heapIndex = i;
    a.heapIndex = j;
  }
  #key(i: number): number {
    return (this.#heap[i] as BudgetMember).oldestOrder();
  }
  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#key(parent) <= this.#key(i)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }
  #down(i: number): void {
    const n = this.#heap.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.#key(right) < this.#key(left) ? right : left;
      if (this.#key(i) <= this.#key(child)) return;
      this.#swap(i, child);
      i = child;
    }
  }
}

/**
 * A byte budget for the journals given it (see {@link JournalBudget}).
 *
 * @example
 * const budget = createJournalBudget(64 * 1024 * 1024);
 * const a = createJournal({ budget });
 * const b = createJournal({ budget }); // a and b hold at most 64 MiB together
 */
export function createJournalBudget(maxBytes: number = DEFAULT_JOURNAL_MAX_BYTES): JournalBudget {
  if (!(maxBytes >= 0)) throw new RangeError(`journal budget must be >= 0 bytes, got ${maxBytes}`);
  return new SharedJournalBudget(maxBytes);
}
