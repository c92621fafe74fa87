// The outbound journal: what went (or would have gone) on the wire, newest last, in a bounded ring, with
// waits for an entry to come. Its entries count in the process's memory budget with the delivery rows.
import type { BudgetQueue, WorldBudget } from '@sims/sim-core';
import type { OutboundEntry } from './types';

/** What a journal entry of one attempt shares, whatever its outcome. */
export interface Base {
  webhookId: number;
  event: string;
  attempt: number;
  redelivery: boolean;
  url: string;
  headers: [string, string][];
  body: string;
  faults: string[];
}

export interface Journal {
  /** Appends the entry of one attempt's outcome and wakes the waits it satisfies. */
  record(
    base: Base,
    deliveryId: number | null,
    outcome: OutboundEntry['outcome'],
    statusCode: number | null,
    error?: string,
  ): OutboundEntry;
  read(): { entries: OutboundEntry[]; dropped: number };
  clear(): void;
  /** The first entry matching `pred` (existing or future), or undefined after `timeoutMs` (wall time). */
  waitFor(pred: (e: OutboundEntry) => boolean, timeoutMs: number): Promise<OutboundEntry | undefined>;
  /** Ends every wait with undefined. */
  close(): void;
}

/** About what an entry keeps: its body and header texts and its other fields. */
export function entryBytes(entry: OutboundEntry): number {
  let bytes = 384 + entry.body.length + entry.url.length;
  for (const [name, value] of entry.headers) bytes += 32 + name.length + value.length;
  return bytes;
}

/**
 * A journal of at most `capacity` entries, stamped with the world's time (`now`); with `budget`, its
 * entries also count in the world's `deliveries` share of the process's memory, which may evict the
 * oldest (counted in `dropped`).
 */
export function createJournal(now: () => string, capacity: number, budget?: WorldBudget): Journal {
  const entries: OutboundEntry[] = [];
  let counted: BudgetQueue<number> | undefined;
  /** Made with the first entry (most worlds deliver nothing). */
  const countedEntries = () => {
    counted ??= budget?.queue<number>('deliveries', 'outbound', (seq) => {
      const at = entries[0]?.seq === seq ? 0 : entries.findIndex((e) => e.seq === seq);
      if (at < 0) return;
      entries.splice(at, 1);
      dropped++;
    });
    return counted;
  };
  const waiters = new Set<{
    pred: (e: OutboundEntry) => boolean;
    resolve: (e: OutboundEntry | undefined) => void;
  }>();
  let dropped = 0;
  let seq = 0;
  return {
    record(base, deliveryId, outcome, statusCode, error) {
      // The same keys in the same order as ever (the journal is served as JSON).
      const entry: OutboundEntry = {
        seq: ++seq,
        time: now(),
        webhookId: base.webhookId,
        event: base.event,
        attempt: base.attempt,
        redelivery: base.redelivery,
        url: base.url,
        method: 'POST',
        headers: base.headers,
        body: base.body,
        faults: base.faults,
        deliveryId,
        outcome,
        statusCode,
      };
      if (error !== undefined) entry.error = error;
      entries.push(entry);
      if (entries.length > capacity) {
        const gone = entries.shift();
        dropped++;
        if (gone) counted?.remove(gone.seq);
      }
      countedEntries()?.add(entry.seq, entryBytes(entry));
      if (waiters.size === 0) return entry;
      for (const w of [...waiters]) {
        if (w.pred(entry)) {
          waiters.delete(w);
          w.resolve(entry);
        }
      }
      return entry;
    },
    read: () => ({ entries: [...entries], dropped }),
    clear() {
      entries.length = 0;
      counted?.clear();
    },
    waitFor(pred, timeoutMs) {
      const found = entries.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => {
        const waiter = {
          pred,
          resolve: (e: OutboundEntry | undefined) => {
            clearTimeout(timer);
            resolve(e);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(undefined);
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close() {
      for (const w of waiters) w.resolve(undefined);
      waiters.clear();
    },
  };
}
