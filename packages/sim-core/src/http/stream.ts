import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { SimInputError } from '../duration';
import type { JournalEntry } from '../journal';
import type { Namespaces, World } from '../world-types';
import { resolveNamespace } from './namespace';

/** What the stream sends for each new journal entry: enough for a list row; the rest is one GET away. */
export interface StreamRequestEvent {
  seq: number;
  requestId: string;
  time: string;
  method: string;
  path: string;
  status: number;
  operation?: string;
  durationMs: number;
  faults: string[];
}

/** The events of `GET /_sim/stream` (server-sent events), by event name. */
export interface StreamEvents {
  /** First event: the namespace watched and the journal's last seq (entries after it follow as `request`). */
  hello: { namespace: string; seq: number; clock: { now: string; mode: string } };
  /** A new journal entry in this namespace. */
  request: StreamRequestEvent;
  /** More entries arrived than the stream sends at once; `skipped` of them were not sent (GET /_sim/journal has them). */
  gap: { skipped: number; seq: number };
  /** Something changed through the control plane (this namespace, or the list of namespaces). */
  changed: { reason: string };
  /** The namespace's world was replaced (reset, state import) or deleted: re-read everything. */
  reset: { exists: boolean };
  /** Every few seconds: the world clock, so views of timed things (operations, deliveries) can move on. */
  tick: { now: string; mode: string };
}

/** Most entries sent per burst; past it a `gap` says how many were left out (a load test must not flood a page). */
const BURST = 100;
const TICK_MS = 2_000;

/**
 * Tells streams that something changed through the control plane: `notify(namespace)` wakes the streams
 * of that namespace, `notifyAll()` every stream (namespaces created or deleted).
 */
export interface ChangeHub {
  notify(namespace: string, reason: string): void;
  notifyAll(reason: string): void;
  subscribe(namespace: string, listener: (reason: string) => void): () => void;
}

export function createChangeHub(): ChangeHub {
  const listeners = new Map<string, Set<(reason: string) => void>>();
  return {
    notify(namespace, reason) {
      for (const l of listeners.get(namespace) ?? []) l(reason);
    },
    notifyAll(reason) {
      for (const set of listeners.values()) for (const l of set) l(reason);
    },
    subscribe(namespace, listener) {
      const set = listeners.get(namespace) ?? new Set();
      listeners.set(namespace, set);
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(namespace);
      };
    },
  };
}

function summary(e: JournalEntry): StreamRequestEvent {
  return {
    seq: e.seq,
    requestId: e.requestId,
    time: e.time,
    method: e.method,
    path: e.path,
    status: e.status,
    ...(e.operation === undefined ? {} : { operation: e.operation }),
    durationMs: e.durationMs,
    faults: e.faults,
  };
}

/**
 * `GET /_sim/stream`: one server-sent-event stream per watcher of a namespace (the dashboard's only live
 * channel). New journal entries come from the journal's own wait (no polling); control-plane changes from
 * the {@link ChangeHub}; a `tick` every two seconds carries the world clock. It never creates a namespace.
 */
export function streamRoute<S>(namespaces: Namespaces<S>, hub: ChangeHub) {
  return (c: Context) => {
    const name = resolveNamespace(c.req.raw);
    const sinceQuery = c.req.query('since');
    // Refused like the journal's own `since`: a stream that silently started elsewhere would mislead.
    if (sinceQuery !== undefined && !/^\d+$/.test(sinceQuery))
      throw new SimInputError('since must be a non-negative integer', 'since');
    return streamSSE(c, async (stream) => {
      const closed = new AbortController();
      stream.onAbort(() => closed.abort());
      c.req.raw.signal.addEventListener('abort', () => closed.abort());
      let wake: (() => void) | undefined;
      let reasons: string[] = [];
      const unsubscribe = hub.subscribe(name, (reason) => {
        reasons.push(reason);
        wake?.();
      });
      const send = (event: keyof StreamEvents, data: unknown) =>
        stream.writeSSE({ event, data: JSON.stringify(data) });
      const current = (): World<S> | undefined => (namespaces.has(name) ? namespaces.get(name) : undefined);
      let world = current();
      const lastSeq = (w: World<S> | undefined) => w?.journal.list(undefined, 1)[0]?.seq ?? 0;
      let since = sinceQuery !== undefined ? Number(sinceQuery) : lastSeq(world);
      const clockOf = (w: World<S> | undefined) =>
        w ? { now: w.clock.iso(), mode: w.clock.mode } : { now: new Date().toISOString(), mode: 'none' };
      try {
        await send('hello', { namespace: name, seq: since, clock: clockOf(world) });
        let nextTick = Date.now() + TICK_MS;
        while (!closed.signal.aborted) {
          const now = current();
          if (now !== world) {
            world = now;
            since = 0;
            await send('reset', { exists: world !== undefined });
          }
          if (reasons.length > 0) {
            const sent = [...new Set(reasons)];
            reasons = [];
            for (const reason of sent) await send('changed', { reason });
          }
          const fresh = world ? world.journal.list({ since }) : [];
          if (Date.now() >= nextTick) {
            nextTick = Date.now() + TICK_MS;
            await send('tick', clockOf(world));
          }
          if (fresh.length > 0) {
            const last = fresh[fresh.length - 1] as JournalEntry;
            const sent = fresh.slice(-BURST);
            // Left out: past the burst, or dropped by the journal before this stream read them.
            const skipped = last.seq - since - sent.length;
            if (skipped > 0) await send('gap', { skipped, seq: last.seq });
            for (const e of sent) await send('request', summary(e));
            since = last.seq;
            // A burst at most every 250 ms: under load the page gets batches, not one event per request.
            await sleep(250, closed.signal);
            continue;
          }
          if (Date.now() >= nextTick) {
            nextTick = Date.now() + TICK_MS;
            await send('tick', clockOf(world));
          }
          // Sleep until an entry, a change, or the next tick.
          const waiting = new AbortController();
          const stop = () => waiting.abort();
          closed.signal.addEventListener('abort', stop, { once: true });
          const woken = new Promise<void>((resolve) => {
            wake = resolve;
          });
          const timeout = Math.max(1, nextTick - Date.now());
          await Promise.race([
            world ? world.journal.wait({ since }, timeout, waiting.signal) : sleep(timeout, waiting.signal),
            woken,
            sleep(timeout, waiting.signal),
          ]);
          wake = undefined;
          waiting.abort();
          closed.signal.removeEventListener('abort', stop);
        }
      } catch {
        // The watcher went away mid-write: nothing to tell anyone.
      } finally {
        unsubscribe();
      }
    });
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
