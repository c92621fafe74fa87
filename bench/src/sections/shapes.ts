import { join } from 'node:path';
import { json, request } from '../lib/http';
import { probeMemory, processCpuMs } from '../lib/probe';
import { stop } from '../lib/proc';
import { type Spread, spread } from '../lib/stats';
import { BENCH_DIR, launch, type Running } from '../lib/targets';
import { CVAT_AUTH } from './throughput';

/** Frames of the job the shapes are drawn on; `PATCH ?action=create` batches (JSON bodies hold ≤ 1M values). */
const FRAMES = 1_000;
const BATCH = 10_000;

export interface ShapesResult {
  shapes: number;
  /** What the simulator's heap and buffers grew by, after a full GC, per stored shape. */
  heapBytesPerShape: number;
  /** The shapes' JSON as `GET …/annotations` answers it, per shape: the physical floor. */
  jsonBytesPerShape: number;
  /** The answer's size in bytes. */
  bodyBytes: number;
  /** Wall time of a `GET /api/jobs/1/annotations` (request to last byte), ms. */
  getMs: Spread;
  /** The simulator's CPU time per GET (user + system, from /proc), ms. */
  getCpuMs: Spread;
  /** CPU time of `JSON.stringify` of the same shapes (parsed from the answer) in the load process, ms. */
  stringifyMs: Spread;
  /** The event log of the namespace after the writes: bytes and rows it holds, the budget it draws on. */
  events: { bytes: number; maxBytes: number; evicted: number; stored: number };
}

/** A rectangle as a model would send it: fractional pixel coordinates, one of two labels, frame by frame. */
function rectangle(i: number, labels: readonly number[]) {
  const x = (i * 37) % 1_800;
  const y = (i * 53) % 1_000;
  return {
    type: 'rectangle',
    frame: i % FRAMES,
    label_id: labels[i % labels.length],
    points: [x + 0.25, y + 0.5, x + 40.75, y + 80.125],
    occluded: false,
    z_order: 0,
    source: 'auto',
    attributes: [],
  };
}

/**
 * Seeds the bench user and one task (`name`) of two rectangle labels and {@link FRAMES} frames in one job,
 * task 1 of a fresh simulator; answers the labels' ids.
 */
export async function seedShapesTask(url: string, name: string): Promise<number[]> {
  await json(`${url}/_sim/seed`, {
    method: 'POST',
    body: {
      users: [{ username: 'bench', password: 'bench-pw', token: 'bench-token' }],
      tasks: [
        {
          name,
          owner: 'bench',
          size: FRAMES,
          segment_size: FRAMES,
          labels: [
            { name: 'car', type: 'rectangle' },
            { name: 'person', type: 'rectangle' },
          ],
        },
      ],
    },
  });
  const labelPage = JSON.parse(
    (await request(`${url}/api/labels?task_id=1`, { headers: CVAT_AUTH })).body,
  ) as {
    results: { id: number }[];
  };
  return labelPage.results.map((l) => l.id);
}

/** Adds `count` rectangles to a job's or task's annotations (`path`) by `PATCH ?action=create` in batches. */
export async function addShapes(path: string, labels: readonly number[], count: number): Promise<void> {
  const headers = { ...CVAT_AUTH, 'content-type': 'application/json' };
  for (let from = 0; from < count; from += BATCH) {
    const shapes = [];
    for (let i = from; i < Math.min(count, from + BATCH); i++) shapes.push(rectangle(i, labels));
    const r = await request(`${path}?action=create`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ version: 0, tags: [], shapes, tracks: [] }),
      timeoutMs: 120_000,
    });
    if (r.status !== 200) throw new Error(`PATCH answered ${r.status}: ${r.body.slice(0, 300)}`);
  }
}

/**
 * Figure 12: a job of `count` shapes (rectangles; 100,000 in the full run). The CLI (`--expose-gc`, the
 * memory probe preloaded) is seeded with a task of two labels and 1,000 frames in one job; the shapes
 * are added by `PATCH ?action=create` in batches; then the bench reads what the heap grew by per shape
 * against the JSON size per shape, times `GET` of the whole job against `JSON.stringify` of the same
 * shapes, and reads the namespace's event log budget.
 */
export async function shapesFigure(opts: {
  count: number;
  rounds: number;
  log: (s: string) => void;
}): Promise<ShapesResult> {
  let sim: Running | undefined;
  try {
    sim = await launch('annotation-sim', undefined, [], {
      nodeArgs: ['--expose-gc', '--import', join(BENCH_DIR, 'src/servers/memory-probe.mjs')],
      ipc: true,
    });
    const headers = { ...CVAT_AUTH, 'content-type': 'application/json' };
    const labels = await seedShapesTask(sim.url, 'shapes');
    const path = `${sim.url}/api/jobs/1/annotations`;
    // Warm the write and read paths on a few shapes, then clear them, so that the code is compiled.
    const warm = await request(`${path}?action=create`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({
        version: 0,
        tags: [],
        shapes: [0, 1, 2].map((i) => rectangle(i, labels)),
        tracks: [],
      }),
    });
    if (warm.status !== 200) throw new Error(`PATCH answered ${warm.status}: ${warm.body.slice(0, 300)}`);
    await request(path, { headers: CVAT_AUTH });
    const cleared = await request(path, { method: 'DELETE', headers: CVAT_AUTH });
    if (cleared.status !== 204)
      throw new Error(`DELETE answered ${cleared.status}: ${cleared.body.slice(0, 300)}`);
    const m0 = await probeMemory(sim.child, 60_000);
    await addShapes(path, labels, opts.count);
    const m1 = await probeMemory(sim.child, 60_000);
    const heapBytes = m1.heapUsed + m1.external - (m0.heapUsed + m0.external);
    opts.log(`  ${opts.count} shapes stored: heap +${(heapBytes / 2 ** 20).toFixed(1)} MiB`);
    const getMs: number[] = [];
    const getCpuMs: number[] = [];
    const stringifyMs: number[] = [];
    let body = '';
    for (let round = 0; round < opts.rounds; round++) {
      const cpu0 = processCpuMs(sim.child.pid as number);
      const t0 = performance.now();
      const r = await request(path, { headers: CVAT_AUTH, timeoutMs: 120_000 });
      getMs.push(performance.now() - t0);
      getCpuMs.push(processCpuMs(sim.child.pid as number) - cpu0);
      if (r.status !== 200) throw new Error(`GET answered ${r.status}`);
      body = r.body;
      const data = JSON.parse(body) as { shapes: unknown[] };
      if (data.shapes.length !== opts.count) throw new Error(`GET gave ${data.shapes.length} shapes`);
      // CPU time, as the simulator's is read: on a shared host wall time also counts other processes.
      const s0 = process.cpuUsage();
      JSON.stringify(data);
      const spent = process.cpuUsage(s0);
      stringifyMs.push((spent.user + spent.system) / 1000);
    }
    const memory = await json<{
      kinds: { kind: string; maxBytes: number }[];
      namespace: { kinds: Record<string, { bytes: number; evicted: number }> };
    }>(`${sim.url}/_sim/memory`);
    const events = memory.namespace.kinds.events ?? { bytes: 0, evicted: 0 };
    const stored = (await json<{ stored: number }>(`${sim.url}/_sim/events`)).stored;
    const bodyBytes = Buffer.byteLength(body);
    const result: ShapesResult = {
      shapes: opts.count,
      heapBytesPerShape: heapBytes / opts.count,
      jsonBytesPerShape: bodyBytes / opts.count,
      bodyBytes,
      getMs: spread(getMs),
      getCpuMs: spread(getCpuMs),
      stringifyMs: spread(stringifyMs),
      events: {
        bytes: events.bytes,
        maxBytes: memory.kinds.find((k) => k.kind === 'events')?.maxBytes ?? Number.NaN,
        evicted: events.evicted,
        stored,
      },
    };
    opts.log(
      `  ${result.heapBytesPerShape.toFixed(0)} B/shape held (JSON ${result.jsonBytesPerShape.toFixed(0)} B); GET ${result.getMs.median.toFixed(0)} ms (server CPU ${result.getCpuMs.median.toFixed(0)} ms) vs JSON.stringify ${result.stringifyMs.median.toFixed(0)} ms`,
    );
    return result;
  } finally {
    if (sim) await stop(sim.child);
  }
}
