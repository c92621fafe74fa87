import { join } from 'node:path';
import { run } from '../lib/proc';
import { BENCH_DIR } from '../lib/targets';
import type { SeedingCurve } from './seeding-worker';

export type { SeedingPoint } from './seeding-worker';

export interface SeedingResult {
  sizes: number[];
  warmup: number;
  simulators: Record<string, SeedingCurve>;
}

/**
 * Figure 10: seed and import time per item at each size, for both simulators, in a process of their own
 * (sources, as figures 2 and 4; `--expose-gc`, a full GC before each timed step): after a warm-up, each
 * size seeds a fresh simulator through `POST /_sim/seed`, exports its state and imports it into another.
 * The reading is each size's time per item over the smallest size's.
 */
export async function seedingFigure(opts: {
  sizes: number[];
  warmup: number;
  log: (s: string) => void;
}): Promise<SeedingResult> {
  const out = await run(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      '--conditions=@sims/source',
      join(BENCH_DIR, 'src/sections/seeding-worker.ts'),
      'cluster-sim,annotation-sim',
      opts.sizes.join(','),
      String(opts.warmup),
    ],
    3_600_000,
    { cwd: BENCH_DIR },
  );
  const simulators: Record<string, SeedingCurve> = {};
  for (const curve of JSON.parse(out.trim().split('\n').pop() ?? '[]') as SeedingCurve[]) {
    const base = curve.points[0];
    const ratio = (us: number, of: number | undefined) => `${(us / (of ?? Number.NaN)).toFixed(2)}×`;
    for (const p of curve.points) {
      opts.log(
        `  ${curve.simulator} ${p.count}: seed ${p.seedCpuUs.toFixed(0)} µs CPU/item (${ratio(p.seedCpuUs, base?.seedCpuUs)}; wall ${p.seedUs.toFixed(0)} µs), import ${p.importCpuUs.toFixed(0)} µs CPU/item (${ratio(p.importCpuUs, base?.importCpuUs)}; wall ${p.importUs.toFixed(0)} µs)`,
      );
    }
    simulators[curve.simulator] = curve;
  }
  return { sizes: opts.sizes, warmup: opts.warmup, simulators };
}
