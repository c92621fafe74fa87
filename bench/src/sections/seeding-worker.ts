// Figure 10 (in its own process, `--expose-gc`): seed and import time per item of each simulator at each
// size. Usage: seeding-worker.ts <simulators, comma-separated> <sizes, comma-separated> <warm-up items>.
// Prints one JSON line (SeedingCurve[]) on stdout; progress on stderr.
import { createAnnotationSim } from '@sims/annotation-sim';
import { createClusterSim } from '@sims/cluster-sim';

/**
 * One measurement of a size: a fresh simulator seeded, its state exported, imported into another. Wall
 * time, and the process's CPU time (user + system, its GC threads included), which another process on
 * the same cores does not inflate.
 */
interface SeedingRun {
  seedMs: number;
  importMs: number;
  seedCpuMs: number;
  importCpuMs: number;
}

export interface SeedingPoint {
  count: number;
  runs: SeedingRun[];
  /** Medians over the runs, µs per item: wall and CPU time. */
  seedUs: number;
  importUs: number;
  seedCpuUs: number;
  importCpuUs: number;
  seedBodyBytes: number;
  snapshotBytes: number;
}

export interface SeedingCurve {
  simulator: string;
  item: string;
  warmup: number;
  points: SeedingPoint[];
}

type Sim = ReturnType<typeof createClusterSim> | ReturnType<typeof createAnnotationSim>;
type Kind = 'cluster-sim' | 'annotation-sim';

const kinds = (process.argv[2] ?? 'cluster-sim,annotation-sim').split(',') as Kind[];
const sizes = (process.argv[3] ?? '1000').split(',').map(Number);
const warmup = Number(process.argv[4] ?? 500);
const OPTIONS = { seed: 1, clock: { mode: 'manual' as const, start: '2026-01-01T00:00:00Z' } };
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** The seed document of `count` items: clusters of 3 pools in one network, or tasks with data (2 jobs). */
function seedOf(kind: Kind, count: number): unknown {
  if (kind === 'cluster-sim') {
    return {
      clusters: Array.from({ length: count }, (_, i) => ({
        projectId: 'bench',
        location: 'us-central1-a',
        name: `c${i}`,
        nodePools: [1, 2, 3].map((n) => ({ name: `np${n}`, initialNodeCount: 1 })),
      })),
    };
  }
  const projects = Math.max(1, Math.round(count / 100));
  return {
    projects: Array.from({ length: projects }, (_, i) => ({
      name: `p${i}`,
      owner: 'admin',
      labels: [{ name: 'car' }],
    })),
    tasks: Array.from({ length: count }, (_, i) => ({
      name: `t${i}`,
      owner: 'admin',
      project: `p${i % projects}`,
      size: 10,
      segment_size: 5,
    })),
  };
}

/** The process's CPU time since `from`, ms. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

const make = (kind: Kind): Sim =>
  kind === 'cluster-sim' ? createClusterSim(OPTIONS) : createAnnotationSim(OPTIONS);

/** Seeds a fresh simulator through `POST /_sim/seed`, exports its state, imports it into another. */
async function measure(
  kind: Kind,
  count: number,
): Promise<SeedingRun & { seedBodyBytes: number; snapshotBytes: number }> {
  const body = JSON.stringify(seedOf(kind, count));
  const sim = make(kind);
  gc();
  let c0 = process.cpuUsage();
  let t0 = performance.now();
  const res = await sim.app.request('/_sim/seed', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const seedMs = performance.now() - t0;
  const seedCpuMs = cpuMs(c0);
  if (res.status !== 201)
    throw new Error(`seed of ${count}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  // `PUT /_sim/state` takes at most 32 MiB and a world of 16,000 clusters is ~150 MB: the import is the
  // definition's, on the parsed state, as the control plane and `--state-file` run it after reading.
  const def = sim.kernel.def as {
    exportState(w: unknown): unknown;
    importState(w: unknown, s: unknown): void;
  };
  const text = JSON.stringify(def.exportState(sim.world()));
  sim.close();
  const snapshot = JSON.parse(text);
  const other = make(kind);
  gc();
  c0 = process.cpuUsage();
  t0 = performance.now();
  (other.kernel.def as typeof def).importState(other.world(), snapshot);
  const importMs = performance.now() - t0;
  const importCpuMs = cpuMs(c0);
  other.close();
  return { seedMs, importMs, seedCpuMs, importCpuMs, seedBodyBytes: body.length, snapshotBytes: text.length };
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** The curve of one simulator: a warm-up, then each size, the largest first. */
async function curveOf(kind: Kind): Promise<SeedingCurve> {
  // Twice: the first import runs the validation's code cold (~4x the steady time per item).
  if (warmup > 0) for (let i = 0; i < 2; i++) await measure(kind, warmup);
  const points: SeedingPoint[] = [];
  // The smallest size is the baseline of every ratio. It is measured last, when the code is warmest (the
  // JIT still gains ~20 % over the first few thousand clusters): what is left of the warm-up can only
  // raise the ratios, never flatten them. Each size is measured until 8 times the smallest have been
  // seeded (at most 8 runs), and at least 3 times: a run of 1,000 tasks imports in ~10 ms, where one GC
  // more or less moves the time per item by half, and a single run of the largest sizes read 1.98x one
  // evening and 1.34x the next minute (the same build; Map reads per task are the same at every size).
  const enough = 8 * Math.min(...sizes);
  for (const count of [...sizes].sort((a, b) => b - a)) {
    const runs: SeedingRun[] = [];
    let bytes = { seedBodyBytes: 0, snapshotBytes: 0 };
    for (let done = 0; runs.length < 3 || (runs.length < 8 && done < enough); done += count) {
      const { seedBodyBytes, snapshotBytes, ...run } = await measure(kind, count);
      runs.push(run);
      bytes = { seedBodyBytes, snapshotBytes };
      process.stderr.write(
        `  ${kind} ${count}: seed ${((run.seedCpuMs * 1000) / count).toFixed(0)} µs CPU (wall ${((run.seedMs * 1000) / count).toFixed(0)}), import ${((run.importCpuMs * 1000) / count).toFixed(0)} µs CPU (wall ${((run.importMs * 1000) / count).toFixed(0)}) per item\n`,
      );
    }
    points.unshift({
      count,
      runs,
      seedUs: median(runs.map((r) => (r.seedMs * 1000) / count)),
      importUs: median(runs.map((r) => (r.importMs * 1000) / count)),
      seedCpuUs: median(runs.map((r) => (r.seedCpuMs * 1000) / count)),
      importCpuUs: median(runs.map((r) => (r.importCpuMs * 1000) / count)),
      ...bytes,
    });
  }
  return {
    simulator: kind,
    item: kind === 'cluster-sim' ? 'cluster (3 node pools)' : 'task (10 frames: 2 jobs)',
    warmup,
    points,
  };
}

const curves: SeedingCurve[] = [];
for (const kind of kinds) curves.push(await curveOf(kind));
console.log(JSON.stringify(curves));
process.exit(0);
