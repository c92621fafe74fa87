import { afterEach, describe, expect, it } from 'vitest';
import type { EventsControlView } from '../../src/control/views';
import { CSV_HEADER, createCsvStream, renderCsvRow } from '../../src/domain/events/csv';
import type { EventQuery, EventRecord } from '../../src/domain/events/record';
import {
  applyEventsSettings,
  createEventsState,
  type EventsState,
  recordEvents,
} from '../../src/domain/events/state';
import { createHarness, type Harness, START_MS } from './support/harness';

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

/** Row `i`: its `obj_id` is `i`, its time `i` ms after a minute before the harness's start. */
const row = (i: number, timestamp = START_MS - 60_000 + i): EventRecord => ({
  scope: 'update:job',
  obj_name: 'stage',
  obj_id: i,
  obj_val: 'validation',
  source: 'server',
  timestamp,
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
  payload: `{"old_value":"annotation","i":${i}}`,
  access_token_id: null,
});
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => row(from + k));

const ALL: EventQuery = { from: 0, to: START_MS, ids: {} };
const ids = (events: EventsState) => [...events.store.rows()].map((r) => r.obj_id);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
const csvOf = (records: EventRecord[]) => `${CSV_HEADER}\r\n${records.map((r) => renderCsvRow(r)).join('')}`;

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

describe('event store eviction (maxEvents)', () => {
  it('keeps the newest rows: appending 1,000 with maxEvents 100 holds the last ≤100, the oldest evicted', () => {
    const events = createEventsState({ maxEvents: 100 });
    for (let i = 0; i < 1_000; i++) expect(recordEvents(events, [row(i)])).toBe(1);
    const held = events.store.length;
    expect(held).toBeLessThanOrEqual(100);
    expect(held).toBeGreaterThanOrEqual(75);
    expect(ids(events)).toEqual(range(1_000 - held, 1_000));
    expect(events.store.evicted).toBe(1_000 - held);
    expect(events.store.appended).toBe(1_000);
    expect(events.dropped).toBe(0);
    // Row numbers are absolute: the newest row is still row 999, the oldest evicted ones are gone.
    expect(events.store.row(999)).toEqual(row(999));
    expect(() => events.store.row(0)).toThrow(RangeError);
  });

  it('keeps the newest maxEvents of one large batch', () => {
    const events = createEventsState({ maxEvents: 100 });
    expect(recordEvents(events, rows(0, 1_000))).toBe(1_000);
    expect(ids(events)).toEqual(range(900, 1_000));
  });

  it('holds memory bounded by maxEvents, not by the rows appended', () => {
    const events = createEventsState({ maxEvents: 100 });
    const peakBetween = (from: number, to: number) => {
      let peak = 0;
      for (let i = from; i < to; i++) {
        recordEvents(events, [row(i)]);
        peak = Math.max(peak, events.store.allocatedBytes());
      }
      return peak;
    };
    const early = peakBetween(0, 1_000);
    const late = peakBetween(1_000, 20_000);
    expect(late).toBeLessThanOrEqual(early);
    // 100 rows of ~150-byte lines and 81 bytes of columns: tens of KB, whatever was appended.
    expect(late).toBeLessThan(64 * 1024);
    expect(events.store.approxBytes()).toBeLessThan(64 * 1024);
    expect(ids(events).at(-1)).toBe(19_999);
  });

  it('applies a lower maxEvents at once and gives the memory back', () => {
    const events = createEventsState();
    recordEvents(events, rows(0, 20_000));
    const before = events.store.allocatedBytes();
    applyEventsSettings(events, { maxEvents: 100 });
    expect(ids(events)).toEqual(range(19_900, 20_000));
    expect(events.store.allocatedBytes()).toBeLessThan(before / 20);
    recordEvents(events, rows(20_000, 20_050));
    expect(ids(events).at(-1)).toBe(20_049);
    expect(events.store.length).toBeLessThanOrEqual(100);
  });

  it('streams exactly the surviving rows, in order, after evictions (ordered and out-of-order times)', async () => {
    for (const shuffled of [false, true]) {
      const events = createEventsState({ maxEvents: 100 });
      // Out of order: every pair of rows swapped in time, so an export sorts.
      const t = (i: number) => START_MS - 60_000 + (shuffled ? i ^ 1 : i);
      for (let i = 0; i < 1_000; i++) recordEvents(events, [row(i, t(i))]);
      const held = [...events.store.rows()].sort((a, b) => a.timestamp - b.timestamp);
      expect(held.map((r) => r.obj_id).sort((a, b) => (a as number) - (b as number))).toEqual(
        range(1_000 - held.length, 1_000),
      );
      const stream = createCsvStream(events.store, ALL, events.store.appended, 512);
      expect(await readAll(stream.getReader())).toBe(csvOf(held));
      const filtered = createCsvStream(events.store, { ...ALL, ids: { job_id: 3 } }, events.store.appended);
      expect(await readAll(filtered.getReader())).toBe(csvOf(held.filter((r) => r.job_id === 3)));
    }
  });

  it('downloads an export finished before an eviction: its rows that survive, none logged after it', async () => {
    h = createHarness();
    applyEventsSettings(h.events(), { maxEvents: 100 });
    recordEvents(h.events(), rows(0, 100));
    const start = await h.request('/api/events/export', { method: 'POST' });
    const { rq_id } = (await start.json()) as { rq_id: string };
    await h.advance('2s');
    const url = `/api/events/download?rq_id=${encodeURIComponent(rq_id)}`;
    const first = await (await h.request(url)).text();
    expect(first).toBe(csvOf(rows(0, 100)));

    // 25 more rows evict the oldest quarter: the export keeps rows 25..99, and never shows 100..124.
    recordEvents(h.events(), rows(100, 125));
    expect(h.events().store.evicted).toBe(25);
    const after = await (await h.request(url)).text();
    expect(after).toBe(csvOf(rows(25, 100)));
  });

  it('keeps an export stream consistent when rows are evicted while it downloads', async () => {
    for (const shuffled of [false, true]) {
      const events = createEventsState({ maxEvents: 100 });
      const t = (i: number) => START_MS - 60_000 + (shuffled ? i ^ 1 : i);
      for (let i = 0; i < 100; i++) recordEvents(events, [row(i, t(i))]);
      const limit = events.store.appended;
      const reader = createCsvStream(events.store, ALL, limit, 1_024).getReader();
      const decoder = new TextDecoder();
      const head = await reader.read();
      const firstChunk = decoder.decode(head.value);
      const lines = firstChunk.split('\r\n').slice(1, -1);
      const seen = lines.length;
      expect(seen).toBeGreaterThan(0);
      expect(seen).toBeLessThan(40);
      // 50 rows more: the oldest 50 are evicted, and the columns and segments move under the stream.
      for (let i = 100; i < 150; i++) recordEvents(events, [row(i, t(i))]);
      expect(events.store.evicted).toBe(50);
      const rest = await readAll(reader);
      const sorted = rows(0, 100)
        .map((r, i) => ({ ...r, timestamp: t(i) }))
        .sort((a, b) => a.timestamp - b.timestamp);
      // What was read stays; then only the export's rows still held (numbers 50..99), in order.
      expect(firstChunk + rest).toBe(
        csvOf([...sorted.slice(0, seen), ...sorted.slice(seen).filter((r) => (r.obj_id as number) >= 50)]),
      );
    }
  });

  it('counts stored, dropped (store disconnected) and evicted rows in the control plane', async () => {
    const sim = createHarness();
    h = sim;
    const events = async () => (await sim.app.request('/_sim/events')).json() as Promise<EventsControlView>;
    expect(await events()).toMatchObject({ settings: { maxEvents: 100_000 }, evicted: 0 });
    await sim.app.request('/_sim/events/settings', {
      method: 'PATCH',
      body: JSON.stringify({ maxEvents: 8 }),
    });
    const post = async (from: number, to: number) =>
      sim.app.request('/_sim/events/records', {
        method: 'POST',
        body: JSON.stringify({ events: range(from, to).map((i) => ({ scope: 'load:job', obj_id: i })) }),
      });
    expect(await (await post(0, 20)).json()).toEqual({ stored: 20 });
    // Each time 8 rows are held the oldest 2 go: 12 of the 20 rows are evicted, the newest 8 held.
    expect(await events()).toMatchObject({ stored: 8, dropped: 0, evicted: 12 });
    expect(ids(sim.events())).toEqual(range(12, 20));

    await sim.app.request('/_sim/events/settings', {
      method: 'PATCH',
      body: JSON.stringify({ storeConnected: false }),
    });
    expect(await (await post(20, 23)).json()).toEqual({ stored: 0 });
    expect(await events()).toMatchObject({ stored: 8, dropped: 3, evicted: 12 });
  });

  it('keeps row numbers across a state snapshot, so a finished export downloads the same rows', async () => {
    h = createHarness();
    applyEventsSettings(h.events(), { maxEvents: 100 });
    recordEvents(h.events(), rows(0, 130));
    const start = await h.request('/api/events/export', { method: 'POST' });
    const { rq_id } = (await start.json()) as { rq_id: string };
    await h.advance('2s');
    recordEvents(h.events(), rows(130, 140));
    const url = `/api/events/download?rq_id=${encodeURIComponent(rq_id)}`;
    const before = await (await h.request(url)).text();
    const snapshot = await (await h.app.request('/_sim/state')).json();
    const put = await h.app.request('/_sim/state', { method: 'PUT', body: JSON.stringify(snapshot) });
    expect(put.status, await put.clone().text()).toBeLessThan(300);
    // Rows 0..49 were evicted (two quarters); the export covers rows up to 129, not the 10 after it.
    expect(h.events().store.evicted).toBe(50);
    expect(h.events().store.appended).toBe(140);
    expect(await (await h.request(url)).text()).toBe(before);
    expect(before).toBe(csvOf(rows(50, 130)));
  });
});
