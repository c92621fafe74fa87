import { describe, expect, it, vi } from 'vitest';
import { processClientEvents } from '../../src/domain/events/client-events';
import type { EventRecord } from '../../src/domain/events/record';
import { createEventsState, recordEvents } from '../../src/domain/events/state';
import { EventStore } from '../../src/domain/events/store';

/**
 * A client-events batch as large as the JSON budget lets through (~190,000 minimal events in 16 MiB)
 * costs work in proportion to its events, and no more memory an event than the event itself: the work
 * is counted (Map writes, rows written to the log), never timed.
 */

const caller = { user: { id: 1, username: 'admin', email: 'admin@example.com' }, org: null };
const SENT = '2026-08-12T10:00:00Z';
const RECEIVED_US = Date.parse(SENT) * 1000;
/** Event `i`'s time: one a second, from an hour before the batch was sent. */
const at = (i: number) => new Date(Date.parse(SENT) - 3_600_000 + i * 1000).toISOString();

function accept(events: Record<string, unknown>[]) {
  const r = processClientEvents({ timestamp: SENT, events }, caller, RECEIVED_US, { id: 'req' });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

/** Map entries written while `run` runs (every Map: the log's, the serializer's, any other). */
function countMapWrites<T>(run: () => T): { result: T; writes: number } {
  const set = vi.spyOn(Map.prototype, 'set');
  try {
    const result = run();
    return { result, writes: set.mock.calls.length };
  } finally {
    set.mockRestore();
  }
}

/** Rows like the server's: row `i` has `obj_id` `i`. */
const row = (i: number): EventRecord => ({
  scope: 'update:job',
  obj_name: 'stage',
  obj_id: i,
  obj_val: 'validation',
  source: 'server',
  timestamp: 1_786_000_000_000 + i,
  count: null,
  duration: 0,
  project_id: 1,
  task_id: 2,
  job_id: i % 7,
  user_id: 1,
  user_name: 'admin',
  user_email: 'admin@example.com',
  org_id: null,
  org_slug: null,
  payload: `{"i":${i}}`,
  access_token_id: null,
});
const rows = (n: number) => Array.from({ length: n }, (_, i) => row(i));

describe('POST /api/events with a large batch', () => {
  it('accepts 150,000 events that each name another job, with a working-time row for each gap', () => {
    // Spreading the working-time rows into Array.push overflowed the stack past ~120,000 of them: a 500.
    const n = 150_000;
    const value = accept(
      Array.from({ length: n }, (_, i) => ({ scope: 'click:element', timestamp: at(i), job_id: i + 1 })),
    );
    const working = value.records.filter((r) => r.scope === 'send:working_time');
    // Each one-second gap counts for the job of the event before it; the last job has no gap after it.
    expect(working).toHaveLength(n - 1);
    expect(working[0]).toMatchObject({ job_id: 1, duration: 1000 });
    expect(working[n - 2]).toMatchObject({ job_id: n - 1, duration: 1000 });
    expect(value.records).toHaveLength(n + n - 1);
  });

  it('validates and enriches a batch without a Map an event: Map writes stay at one a working-time group', () => {
    // A Map of 17 entries an event took 170 MB for 190,000 events: a 256 MB heap died of one batch.
    for (const n of [1_000, 20_000]) {
      const events = Array.from({ length: n }, (_, i) => ({
        scope: 'click:element',
        timestamp: at(i),
        job_id: 7,
        obj_name: 'button',
      }));
      const { result, writes } = countMapWrites(() => accept(events));
      expect(result.records).toHaveLength(n + 1);
      expect(writes).toBeLessThanOrEqual(1);
    }
  });

  it('writes only the rows the log keeps when one write holds more than maxEvents, the same rows as one at a time', () => {
    const max = 1_000;
    for (const n of [4 * max, 40 * max]) {
      const batched = createEventsState({ maxEvents: max });
      const append = vi.spyOn(EventStore.prototype, 'append');
      let written: number;
      try {
        expect(recordEvents(batched, rows(n))).toBe(n);
        written = append.mock.calls.length;
      } finally {
        append.mockRestore();
      }
      // The oldest rows of the write would be evicted before it ends: they are counted, not written.
      expect(written).toBeLessThanOrEqual(max);
      const oneByOne = createEventsState({ maxEvents: max });
      for (const r of rows(n)) recordEvents(oneByOne, [r]);
      expect(batched.store.length).toBe(oneByOne.store.length);
      expect(batched.store.evicted).toBe(oneByOne.store.evicted);
      expect(batched.store.appended).toBe(n);
      expect([...batched.store.rows()]).toEqual([...oneByOne.store.rows()]);
    }
  });
});
