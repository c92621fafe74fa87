import type { SeedingPoint, SeedingResult } from './sections/seeding';

/** Figure 10's target: time per item at any size within this factor of the smallest size's. */
const FLAT = 1.5;

const n = (x: number, digits = 0) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const x = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}×` : '–');

/** Judged on CPU time: on a shared host other processes inflate wall time (both are in the table). */
const STEPS = [
  ['seed', (p: SeedingPoint) => p.seedCpuUs],
  ['import', (p: SeedingPoint) => p.importCpuUs],
] as const;

/** The rows of the targets table for figure 10: the worst size's CPU time per item over the smallest's. */
export function seedingTargets(s: SeedingResult | undefined) {
  const out: { figure: string; what: string; value: string; target: string; met: boolean | undefined }[] = [];
  if (!s) return out;
  for (const [sim, curve] of Object.entries(s.simulators)) {
    const [base, ...rest] = curve.points;
    if (!base || rest.length === 0) continue;
    for (const [step, us] of STEPS) {
      const worst = rest.reduce((a, b) => (us(b) > us(a) ? b : a));
      const ratio = us(worst) / us(base);
      out.push({
        figure: '10',
        what: `${step} ${sim}: CPU time per ${curve.item.split(' ')[0]} at ${curve.points.map((p) => n(p.count)).join(', ')}, worst / at ${n(base.count)}`,
        value: `${x(ratio)} (${n(us(base))} → ${n(us(worst))} µs, at ${n(worst.count)})`,
        target: `≤ ${x(FLAT)}`,
        met: ratio <= FLAT,
      });
    }
  }
  return out;
}

/** Figure 10's section of BENCHMARKS.md. */
export function renderSeeding(L: string[], s: SeedingResult): void {
  L.push(
    `### 10. Seeding and importing: time per item from ${n(s.sizes[0] ?? 0)} to ${n(s.sizes.at(-1) ?? 0)} items in one namespace`,
  );
  L.push('');
  L.push(
    `Both simulators run in one process of their own (their sources, in-process, \`--expose-gc\`), each warmed up by two seeds and imports of ${n(s.warmup)} items. At each size a fresh simulator is seeded through \`POST /_sim/seed\` (cluster-sim: clusters of 3 node pools in one project, location and VPC network; annotation-sim: tasks of 10 frames in 2 jobs, 100 to a project), its state is exported and imported into another fresh one (the definition's \`importState\` on the parsed state, what \`PUT /_sim/state\` and \`--state-file\` run after reading it: a world of 16,000 clusters is past the control plane's 32 MiB body limit). A full GC comes before each timed step. The sizes go largest first, so that the baseline, the smallest, is measured warmest (what is left of the warm-up can only raise the ratios). Each size is run at least 3 times and until eight times the smallest size has been seeded (at most 8 runs); the table gives the medians. Time: the process's CPU time (user + system, its GC threads included: the target is judged on it, as other processes on the same cores inflate wall time) and wall time. Ratio: time per item over the smallest size's (target ≤ ${x(FLAT)}: flat).`,
  );
  L.push('');
  L.push(
    '| simulator | items | runs | seed µs/item: CPU | / first | wall | / first | import µs/item: CPU | / first | wall | / first | seed body MB | state MB |',
  );
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [sim, curve] of Object.entries(s.simulators)) {
    const base = curve.points[0];
    const cell = (p: SeedingPoint, us: (q: SeedingPoint) => number) =>
      `${n(us(p))} | ${x(us(p) / (base ? us(base) : Number.NaN))}`;
    for (const p of curve.points) {
      L.push(
        `| ${sim} | ${n(p.count)} | ${p.runs.length} | ${cell(p, (q) => q.seedCpuUs)} | ${cell(p, (q) => q.seedUs)} | ${cell(p, (q) => q.importCpuUs)} | ${cell(p, (q) => q.importUs)} | ${n(p.seedBodyBytes / 1e6, 1)} | ${n(p.snapshotBytes / 1e6, 1)} |`,
      );
    }
  }
  L.push('');
}
