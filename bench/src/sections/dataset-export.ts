import http from 'node:http';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { json, request } from '../lib/http';
import { probeMemory, processCpuMs } from '../lib/probe';
import { rssMb, stop } from '../lib/proc';
import { type Spread, spread } from '../lib/stats';
import { BENCH_DIR, launch, type Running } from '../lib/targets';
import { addShapes, seedShapesTask } from './shapes';
import { CVAT_AUTH } from './throughput';

/** The formats exported: COCO's JSON (judged against the bare loop) and CVAT's own XML. */
const FORMATS = ['COCO 1.0', 'CVAT for images 1.1'] as const;
type Format = (typeof FORMATS)[number];
/** The archive's file the bare loop writes again (COCO's instances, the one a training job reads). */
const COCO_FILE = 'annotations/instances_default.json';
/** What the simulator's zip writer deflates at once (docs/decisions/0030); the bare loop batches the same. */
const BATCH = 1 << 20;

/** One format's exports: each round `POST …/dataset/export` → the request finished → the archive downloaded. */
interface FormatExport {
  format: Format;
  /** Wall time, the export asked to the archive's last byte, ms. */
  wallMs: Spread;
  /** The simulator's CPU time over the same span (user + system, from /proc), ms. */
  cpuMs: Spread;
  /** Shapes per second of the simulator's CPU time (the median round). */
  rowsPerSecond: number;
  /** The archive's size and its annotations file's, bytes. */
  archiveBytes: number;
  fileBytes: number;
  /** RSS before the rounds, and its peak while they ran (sampled every 10 ms), MB. */
  rssBeforeMb: number;
  rssPeakMb: number;
  /** Heap + external after a full GC, after the rounds over before them, MB: what the exports left held. */
  retainedMb: number;
}

export interface DatasetExportResult {
  shapes: number;
  rounds: number;
  formats: FormatExport[];
  /** The bare loop: COCO's instances file written again from its parsed document, deflated as the archive is. */
  bare: {
    /** CPU time of writing the JSON (`JSON.stringify` of each image and annotation, joined), ms. */
    jsonMs: Spread;
    /** CPU time of writing it and deflating it in 1 MiB batches (the archive's work), ms. */
    archiveMs: Spread;
    /** Shapes per second of `archiveMs` (the median round): the baseline of the ratio. */
    rowsPerSecond: number;
    bytes: number;
  };
}

/** GETs a binary body (the archive). */
function download(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: CVAT_AUTH, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks))
            : reject(new Error(`download answered ${res.statusCode}`)),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The named file of a zip archive (its central directory's entry; stored or deflated). */
function unzipFile(zip: Buffer, name: string): Buffer {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive: no end record');
  let at = zip.readUInt32LE(end + 16);
  const count = zip.readUInt16LE(end + 10);
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      return method === 8 ? inflateRawSync(data) : Buffer.from(data);
    }
    at += 46 + nameLength + extra;
  }
  throw new Error(`${name} is not in the archive`);
}

/**
 * The bare loop: COCO's document written again, `JSON.stringify` of each image and annotation joined
 * into the same top-level object, and, for the archive, deflated in 1 MiB batches with a CRC-32 as the
 * simulator's zip writer does. Returns the CPU time of both, ms, and the JSON's size.
 */
function bareLoop(doc: Record<string, unknown[] | unknown>): {
  jsonMs: number;
  archiveMs: number;
  bytes: number;
} {
  const write = (sink: (piece: string) => void) => {
    const { images, annotations, ...head } = doc as { images: unknown[]; annotations: unknown[] };
    sink(`${JSON.stringify(head).slice(0, -1)},"images":[`);
    for (let i = 0; i < images.length; i++) sink((i ? ',' : '') + JSON.stringify(images[i]));
    sink('],"annotations":[');
    for (let i = 0; i < annotations.length; i++) sink((i ? ',' : '') + JSON.stringify(annotations[i]));
    sink(']}');
  };
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let t0 = cpu();
  let bytes = 0;
  write((piece) => {
    bytes += Buffer.byteLength(piece);
  });
  const jsonMs = cpu() - t0;
  t0 = cpu();
  let batch: string[] = [];
  let held = 0;
  let crc = 0;
  let compressed = 0;
  const flush = () => {
    const raw = Buffer.from(batch.join(''), 'utf8');
    crc = crc32(raw, crc);
    compressed += deflateRawSync(raw, { finishFlush: constants.Z_SYNC_FLUSH }).length;
    batch = [];
    held = 0;
  };
  write((piece) => {
    batch.push(piece);
    held += piece.length;
    if (held >= BATCH) flush();
  });
  flush();
  const archiveMs = cpu() - t0;
  if (!(compressed > 0)) throw new Error('the bare loop wrote nothing');
  return { jsonMs, archiveMs, bytes };
}

/**
 * Figure 13: a task of `count` shapes (rectangles of two labels on 1,000 frames, one job; 100,000 in the
 * full run) seeded into annotation-sim's CLI, then exported `rounds` times per format (`POST
 * /api/tasks/1/dataset/export?format=…&save_images=false`, the request ended at once through
 * `/_sim/requests/{rq_id}/complete`, the archive downloaded from `result_url`), against a bare loop in
 * the load process writing COCO's instances file again from its parsed document and deflating it. The
 * export is judged on CPU time (the simulator's from /proc, the loop's its own), as figure 12 is; its
 * memory on the simulator's RSS peak while the rounds ran over its RSS before them (the archive is
 * streamed, docs/decisions/0030), beside what its heap and buffers hold after a full GC once they ended
 * (the memory probe, as figure 12 reads it: the finished export's archive is kept with its request).
 */
export async function datasetExportFigure(opts: {
  count: number;
  rounds: number;
  log: (s: string) => void;
}): Promise<DatasetExportResult> {
  let sim: Running | undefined;
  try {
    sim = await launch('annotation-sim', undefined, [], {
      nodeArgs: ['--expose-gc', '--import', join(BENCH_DIR, 'src/servers/memory-probe.mjs')],
      ipc: true,
    });
    const pid = sim.child.pid as number;
    // Figure 12's boxes, in one task (a seed or a body holds at most a million values: batches).
    const labels = await seedShapesTask(sim.url, 'export');
    await addShapes(`${sim.url}/api/tasks/1/annotations`, labels, opts.count);
    const exportOnce = async (format: Format) => {
      const query = `format=${encodeURIComponent(format)}&save_images=false`;
      const asked = await request(`${sim?.url}/api/tasks/1/dataset/export?${query}`, {
        method: 'POST',
        headers: CVAT_AUTH,
      });
      if (asked.status !== 202)
        throw new Error(`export answered ${asked.status}: ${asked.body.slice(0, 300)}`);
      const rq = encodeURIComponent((JSON.parse(asked.body) as { rq_id: string }).rq_id);
      await json(`${sim?.url}/_sim/requests/${rq}/complete`, { method: 'POST', body: {} });
      const status = await json<{ status: string; result_url: string | null; message: string }>(
        `${sim?.url}/api/requests/${rq}`,
        { headers: CVAT_AUTH },
      );
      if (status.status !== 'finished' || !status.result_url)
        throw new Error(`export ${status.status}: ${status.message}`);
      const url = new URL(status.result_url);
      return download(`${sim?.url}${url.pathname}${url.search}`);
    };
    // Warm the export path of each format on the same task, so that its code is compiled.
    for (const format of FORMATS) await exportOnce(format);
    const formats: FormatExport[] = [];
    let coco: Buffer | undefined;
    for (const format of FORMATS) {
      const m0 = await probeMemory(sim.child, 60_000);
      await new Promise((r) => setTimeout(r, 300));
      const rssBeforeMb = rssMb(pid);
      let rssPeakMb = rssBeforeMb;
      const sampler = setInterval(() => {
        rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
      }, 10);
      const wallMs: number[] = [];
      const cpuMs: number[] = [];
      let archive: Buffer = Buffer.alloc(0);
      try {
        for (let round = 0; round < opts.rounds; round++) {
          const cpu0 = processCpuMs(pid);
          const t0 = performance.now();
          archive = await exportOnce(format);
          rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
          wallMs.push(performance.now() - t0);
          cpuMs.push(processCpuMs(pid) - cpu0);
        }
      } finally {
        clearInterval(sampler);
      }
      const m1 = await probeMemory(sim.child, 60_000);
      const file = unzipFile(archive, format === 'COCO 1.0' ? COCO_FILE : 'annotations.xml');
      if (format === 'COCO 1.0') coco = file;
      const cpu = spread(cpuMs);
      formats.push({
        format,
        wallMs: spread(wallMs),
        cpuMs: cpu,
        rowsPerSecond: (opts.count * 1000) / cpu.median,
        archiveBytes: archive.length,
        fileBytes: file.length,
        rssBeforeMb,
        rssPeakMb,
        retainedMb: (m1.heapUsed + m1.external - (m0.heapUsed + m0.external)) / 2 ** 20,
      });
      opts.log(
        `  ${format}: ${cpu.median.toFixed(0)} ms of CPU (wall ${spread(wallMs).median.toFixed(0)} ms), archive ${(archive.length / 2 ** 20).toFixed(1)} MiB of ${(file.length / 2 ** 20).toFixed(1)} MiB, RSS +${(rssPeakMb - rssBeforeMb).toFixed(1)} MB, held after a GC +${((m1.heapUsed + m1.external - (m0.heapUsed + m0.external)) / 2 ** 20).toFixed(1)} MiB`,
      );
    }
    const doc = JSON.parse((coco as Buffer).toString('utf8')) as { annotations: unknown[] };
    if (doc.annotations.length !== opts.count)
      throw new Error(`COCO gave ${doc.annotations.length} annotations of ${opts.count}`);
    bareLoop(doc); // warm-up
    const jsonMs: number[] = [];
    const archiveMs: number[] = [];
    let bytes = 0;
    for (let round = 0; round < opts.rounds; round++) {
      const b = bareLoop(doc);
      jsonMs.push(b.jsonMs);
      archiveMs.push(b.archiveMs);
      bytes = b.bytes;
    }
    const bareArchive = spread(archiveMs);
    const bare = {
      jsonMs: spread(jsonMs),
      archiveMs: bareArchive,
      rowsPerSecond: (opts.count * 1000) / bareArchive.median,
      bytes,
    };
    opts.log(
      `  bare loop: JSON ${bare.jsonMs.median.toFixed(0)} ms, with its deflate ${bareArchive.median.toFixed(0)} ms of CPU`,
    );
    return { shapes: opts.count, rounds: opts.rounds, formats, bare };
  } finally {
    if (sim) await stop(sim.child);
  }
}
