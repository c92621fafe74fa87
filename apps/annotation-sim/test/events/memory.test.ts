import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, START_MS } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

// A full collection before each sample, so what is measured is memory still held, not garbage.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
function retainedHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}
/**
 * The heap plus ArrayBuffer backing stores (the store's columns and line segments live there). Dead
 * backing stores are freed off the main thread: collect, let a few turns pass, collect again.
 */
async function retainedHeapAndBuffers(): Promise<number> {
  for (let k = 0; k < 3; k++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const MiB = 1024 * 1024;

describe('export memory', () => {
  it('streams a large export with flat memory: the file is never built in memory', {
    timeout: 120_000,
  }, async () => {
    h = createHarness();
    const store = h.events().store;
    const rows = 150_000;
    const padding = 'x'.repeat(300);
    for (let i = 0; i < rows; i++) {
      store.append({
        scope: 'click:element',
        obj_name: 'button',
        obj_id: i,
        obj_val: null,
        source: 'client',
        timestamp: START_MS - 60_000 + Math.floor(i / 10),
        count: null,
        duration: 0,
        project_id: 1,
        task_id: 2,
        job_id: 3,
        user_id: 1,
        user_name: 'admin',
        user_email: 'admin@example.com',
        org_id: null,
        org_slug: null,
        // A distinct payload per row, as real ones are: no shared string to cheat with.
        payload: `{"i": ${i}, "text": "${padding}"}`,
        access_token_id: null,
      });
    }
    const start = await h.request('/api/events/export', { method: 'POST' });
    const { rq_id } = (await start.json()) as { rq_id: string };
    await h.advance('2s');

    const baseline = retainedHeap();
    const res = await h.request(`/api/events/download?rq_id=${encodeURIComponent(rq_id)}`);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let bytes = 0;
    let chunks = 0;
    let peak = 0;
    let newlines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      for (let k = 0; k < value.length; k++) if (value[k] === 10) newlines++;
      if (++chunks % 100 === 0) peak = Math.max(peak, retainedHeap() - baseline);
    }
    peak = Math.max(peak, retainedHeap() - baseline);

    expect(newlines).toBe(rows + 1);
    expect(bytes).toBeGreaterThan(50 * MiB);
    // Holding the file (or its rows as strings) would retain at least `bytes`; streaming holds a chunk.
    expect(
      peak,
      `peak retained growth ${(peak / MiB).toFixed(1)} MiB for ${(bytes / MiB).toFixed(0)} MiB of CSV`,
    ).toBeLessThan(8 * MiB);
  });

  it('keeps the per-event cost of the store compact', async () => {
    h = createHarness();
    const store = h.events().store;
    const before = await retainedHeapAndBuffers();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      store.append({
        scope: 'update:job',
        obj_name: 'stage',
        obj_id: null,
        obj_val: 'validation',
        source: 'server',
        timestamp: START_MS + i,
        count: null,
        duration: 0,
        project_id: 1,
        task_id: 2,
        job_id: i,
        user_id: 1,
        user_name: 'admin',
        user_email: 'admin@example.com',
        org_id: 10,
        org_slug: 'acme',
        payload: '{"old_value":"annotation"}',
        access_token_id: null,
      });
    }
    const perEvent = ((await retainedHeapAndBuffers()) - before) / n;
    const line = store.line(n - 1).length;
    // The row's CSV line (~130 bytes here, in 4 MiB segments) plus columns: 6 float64, 5 uint32 codes,
    // 3 uint32 line positions and a flags byte (81 bytes), with doubling headroom.
    expect(perEvent).toBeLessThan(line + 150);
  });
});
