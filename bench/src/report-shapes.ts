import type { ShapesResult } from './sections/shapes';

/** Issue 36's target: GET of a job's shapes within this factor of `JSON.stringify` of them. */
const MAX_GET_RATIO = 2;

const n = (x: number, digits = 0) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const x = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}×` : '–');

/** The rows of the targets table for figure 12. */
export function shapesTargets(s: ShapesResult | undefined) {
  const out: { figure: string; what: string; value: string; target: string; met: boolean | undefined }[] = [];
  if (!s) return out;
  // Judged on CPU time (the simulator's per GET, from /proc; JSON.stringify's in the load process), as
  // figure 10 is: on a shared host wall time counts the other processes too (both are in the table).
  const ratio = s.getCpuMs.median / s.stringifyMs.median;
  out.push({
    figure: '12',
    what: `GET of a job's ${n(s.shapes)} shapes: the simulator's CPU / JSON.stringify's`,
    value: `${x(ratio)} (${n(s.getCpuMs.median)} ms / ${n(s.stringifyMs.median)} ms)`,
    target: `≤ ${x(MAX_GET_RATIO)}`,
    met: ratio <= MAX_GET_RATIO,
  });
  out.push({
    figure: '12',
    what: `event log of the ${n(s.shapes)}-shape writes within its budget`,
    value: `${n(s.events.bytes / 2 ** 20, 1)} MiB of ${n(s.events.maxBytes / 2 ** 20)} MiB`,
    target: '≤ the budget',
    met: s.events.bytes <= s.events.maxBytes,
  });
  return out;
}

/** Figure 12's section of BENCHMARKS.md. */
export function renderShapes(L: string[], s: ShapesResult): void {
  L.push(
    `### 12. A job of ${n(s.shapes)} shapes (annotation-sim's CLI: rectangles of two labels on 1,000 frames, added by \`PATCH ?action=create\` in batches of 10,000; heap and buffers after a full GC; GET: request to last byte over HTTP/1.1, against \`JSON.stringify\` of the same shapes in the load process)`,
  );
  L.push('');
  L.push('| what | value |');
  L.push('|---|---|');
  L.push(
    `| held per shape (heap + external growth) | ${n(s.heapBytesPerShape)} B (${x(s.heapBytesPerShape / s.jsonBytesPerShape)} its JSON) |`,
  );
  L.push(
    `| JSON per shape (the answer's bytes / shapes) | ${n(s.jsonBytesPerShape)} B (${n(s.bodyBytes / 2 ** 20, 1)} MiB) |`,
  );
  L.push(
    `| GET /api/jobs/1/annotations, ms median (min–max) | ${n(s.getMs.median)} (${n(s.getMs.min)}–${n(s.getMs.max)}) |`,
  );
  L.push(
    `| the simulator's CPU per GET, ms median (min–max) | ${n(s.getCpuMs.median)} (${n(s.getCpuMs.min)}–${n(s.getCpuMs.max)}) |`,
  );
  L.push(
    `| JSON.stringify of the shapes, CPU ms median (min–max) | ${n(s.stringifyMs.median)} (${n(s.stringifyMs.min)}–${n(s.stringifyMs.max)}) |`,
  );
  L.push(
    `| event log after the writes | ${n(s.events.stored)} rows, ${n(s.events.bytes / 2 ** 20, 1)} MiB of the ${n(s.events.maxBytes / 2 ** 20)} MiB budget, ${n(s.events.evicted)} evicted |`,
  );
  L.push('');
}
