import { BudgetPool } from './budget-pool';
import { DEFAULT_JOURNAL_MAX_BYTES } from './memory-budget';

export { DEFAULT_JOURNAL_MAX_BYTES };

/**
 * A byte budget that several journals share (one simulator's namespaces): when the entries they hold
 * together pass `maxBytes`, the oldest entries of any of them are dropped (counted in their `dropped`)
 * until they fit again. Sizes are estimates: `DeferredJournalEntry.byteSize`, or the JSON length
 * of a plain entry, plus a fixed overhead per entry; an entry that has been read also holds its built
 * form, which the estimate leaves out. It is the `journal` pool of the process's memory budget
 * (`memory-budget.ts`), or one of its own.
 */
export interface JournalBudget {
  readonly maxBytes: number;
  /** Bytes the journals sharing the budget hold now (estimated). */
  used(): number;
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
  return new BudgetPool('journal', maxBytes);
}
