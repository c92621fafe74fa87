/**
 * One kind's share of the process's memory (docs/decisions/0019): the stores of that kind in every
 * namespace (members) draw on one byte count, and past `maxBytes` the oldest items of any of them go
 * first. Sizes are estimates each store gives when it adds an item.
 */
export interface BudgetMember {
  /** Position in the pool's heap; -1 while the member holds nothing evictable. */
  heapIndex: number;
  /** The pool order of the member's oldest evictable item. */
  oldestOrder(): number;
  /**
   * Evicts the member's oldest item (or its oldest batch, for a store that evicts in batches), reporting
   * the bytes with `released`; returns how many items went.
   */
  dropOldest(): number;
}

/** What a pool reports: its limit, what its members hold now, and what it evicted since the start. */
export interface BudgetPoolStats {
  kind: string;
  maxBytes: number;
  /** Bytes the members hold now (estimated). */
  usedBytes: number;
  /** Items evicted to keep within `maxBytes`, since the process started. */
  evicted: number;
  /** Members holding something now (about one per busy namespace and store). */
  members: number;
}

/**
 * A min-heap of members by the order of their oldest item, so the oldest item of all is found in O(1)
 * and evicting it costs O(log members).
 */
export class BudgetPool {
  #used = 0;
  #order = 0;
  #evicted = 0;
  readonly #heap: BudgetMember[] = [];
  constructor(
    readonly kind: string,
    readonly maxBytes: number,
  ) {
    if (!(maxBytes >= 0)) throw new RangeError(`${kind} budget must be >= 0 bytes, got ${maxBytes}`);
  }
  /** Bytes the members hold now (estimated). */
  used(): number {
    return this.#used;
  }
  /** Items the pool evicted since it was made. */
  evicted(): number {
    return this.#evicted;
  }
  stats(): BudgetPoolStats {
    return {
      kind: this.kind,
      maxBytes: this.maxBytes,
      usedBytes: this.#used,
      evicted: this.#evicted,
      members: this.#heap.length,
    };
  }
  /** The order of an item added now: later items, of any member, have higher orders. */
  nextOrder(): number {
    return ++this.#order;
  }
  /** `member` added `bytes` (an item whose order it took from `nextOrder`). */
  added(member: BudgetMember, bytes: number): void {
    this.#used += bytes;
    if (member.heapIndex === -1) {
      member.heapIndex = this.#heap.length;
      this.#heap.push(member);
      this.#up(member.heapIndex);
    }
  }
  /**
   * `member` let go of `bytes` (its oldest items, or any); `empty` when it holds nothing evictable now.
   * Its oldest order may only have grown.
   */
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
  /** Evicts the oldest items of all the members until what they hold fits. */
  enforce(): void {
    while (this.#used > this.maxBytes && this.#heap.length > 0)
      this.#evicted += (this.#heap[0] as BudgetMember).dropOldest();
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
