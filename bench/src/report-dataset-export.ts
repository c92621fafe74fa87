import type { DatasetExportResult } from './sections/dataset-export';

/**
 * Figure 13's bounds (BENCHMARKS.md, "A task's dataset export", says why they are not figure 6's): rows/s
 * against the bare loop, which does none of Datumaro's per-instance work, and the RSS growth of the
 * exports' short-lived objects, set between what the exporters measure now and what they measured before
 * their allocation cuts (0.17–0.25×, 133–173 MB) to catch such a regression; and what an export leaves
 * held after a full GC, the streaming's guard.
 */
const MIN_RATIO = 0.33;
const MAX_GROWTH_MB = 150;
const MAX_HELD_MIB = 1;

const n = (x: number, digits = 0) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const x = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}×` : '–');

/** The rows of the targets table for figure 13. */
export function datasetExportTargets(d: DatasetExportResult | undefined) {
  const out: { figure: string; what: string; value: string; target: string; met: boolean | undefined }[] = [];
  if (!d) return out;
  const coco = d.formats.find((f) => f.format === 'COCO 1.0');
  if (coco) {
    // Judged on CPU time (the simulator's from /proc, the loop's its own), as figure 12 is.
    const ratio = coco.rowsPerSecond / d.bare.rowsPerSecond;
    out.push({
      figure: '13',
      what: `COCO 1.0 export of ${n(d.shapes)} shapes, rows/s / bare loop (JSON + deflate)`,
      value: `${x(ratio)} (${n(coco.rowsPerSecond)} / ${n(d.bare.rowsPerSecond)})`,
      target: `≥ ${x(MIN_RATIO)}`,
      met: ratio >= MIN_RATIO,
    });
  }
  for (const f of d.formats) {
    const growth = f.rssPeakMb - f.rssBeforeMb;
    out.push({
      figure: '13',
      what: `${f.format} export: RSS growth`,
      value: `${n(growth, 1)} MB`,
      target: `≤ ${MAX_GROWTH_MB} MB`,
      met: growth <= MAX_GROWTH_MB,
    });
    out.push({
      figure: '13',
      what: `${f.format} export: held after a full GC (archives kept with their requests included)`,
      value: `${n(f.retainedMb, 1)} MiB`,
      target: `≤ ${MAX_HELD_MIB} MiB`,
      met: f.retainedMb <= MAX_HELD_MIB,
    });
  }
  return out;
}

/** Figure 13's section of BENCHMARKS.md. */
export function renderDatasetExport(L: string[], d: DatasetExportResult): void {
  L.push(
    `### 13. A task's dataset export of ${n(d.shapes)} shapes (annotation-sim's CLI: figure 12's rectangles in one task; \`POST /api/tasks/1/dataset/export?format=…&save_images=false\`, the request ended through \`/_sim/requests/{rq_id}/complete\`, the archive downloaded, ${d.rounds} rounds a format; against a bare loop in the load process writing COCO's instances file again from its parsed document, \`JSON.stringify\` of each image and annotation, deflated in 1 MiB batches as the archive is)`,
  );
  L.push('');
  L.push(
    '| what | CPU ms median (min–max) | wall ms median | shapes/s (CPU) | / bare loop | file MiB → archive MiB | RSS before → peak MB | growth | held after a GC |',
  );
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const f of d.formats) {
    L.push(
      `| ${f.format} | ${n(f.cpuMs.median)} (${n(f.cpuMs.min)}–${n(f.cpuMs.max)}) | ${n(f.wallMs.median)} | ${n(f.rowsPerSecond)} | ${f.format === 'COCO 1.0' ? x(f.rowsPerSecond / d.bare.rowsPerSecond) : '(not judged)'} | ${n(f.fileBytes / 2 ** 20, 1)} → ${n(f.archiveBytes / 2 ** 20, 2)} | ${n(f.rssBeforeMb)} → ${n(f.rssPeakMb)} | ${n(f.rssPeakMb - f.rssBeforeMb, 1)} MB | ${f.retainedMb === undefined ? '–' : `${n(f.retainedMb, 1)} MiB`} |`,
    );
  }
  const b = d.bare;
  L.push(
    `| bare loop: COCO's JSON + deflate | ${n(b.archiveMs.median)} (${n(b.archiveMs.min)}–${n(b.archiveMs.max)}) | | ${n(b.rowsPerSecond)} | 1.00× | ${n(b.bytes / 2 ** 20, 1)} | | | |`,
  );
  L.push(
    `| bare loop: the JSON alone | ${n(b.jsonMs.median)} (${n(b.jsonMs.min)}–${n(b.jsonMs.max)}) | | ${n((d.shapes * 1000) / b.jsonMs.median)} | | | | | |`,
  );
  L.push('');
}
