import type { CurvePoint, NamespacesResult, Round } from './sections/namespaces';

/** Figure 9's targets: what a namespace costs, at any count, and what deleting it gives back. */
const NAMESPACE_TARGETS = { kb: 50, ms: 1, roundRatio: 1.1 };

const n = (x: number, digits = 0) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const x = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}×` : '–');
const kb = (bytes: number) => `${n(bytes / 1024, 1)} KB`;

/** The point of the curve where `value` is highest. */
function worst(curve: CurvePoint[], value: (p: CurvePoint) => number): CurvePoint {
  return curve.reduce((a, b) => (value(b) > value(a) ? b : a));
}

/** The highest RSS peak of the rounds after the first, over the first round's. */
function roundRatio(rounds: Round[]): number {
  const first = rounds[0]?.peakRssMb ?? Number.NaN;
  return Math.max(...rounds.slice(1).map((r) => r.peakRssMb)) / first;
}

/** The rows of the targets table for figure 9. */
export function namespaceTargets(ns: NamespacesResult | undefined) {
  const out: { figure: string; what: string; value: string; target: string; met: boolean | undefined }[] = [];
  if (!ns) return out;
  const t = NAMESPACE_TARGETS;
  for (const [sim, s] of Object.entries(ns.simulators)) {
    const bytes = worst(s.curve, (p) => p.bytesPerNamespace);
    out.push({
      figure: '9',
      what: `namespaces ${sim}: bytes per namespace with its small world, worst of ${s.curve.map((p) => n(p.count)).join(', ')}`,
      value: `${kb(bytes.bytesPerNamespace)} (at ${n(bytes.count)})`,
      target: `< ${t.kb} KB`,
      met: bytes.bytesPerNamespace < t.kb * 1024,
    });
    // CPU time is read in 10-ms ticks: a step of fewer than 50 namespaces is shown but not judged.
    const judged = s.curve.filter((p) => p.step >= 50);
    const ms = worst(judged.length > 0 ? judged : s.curve, (p) => p.namespaceCpuMs);
    out.push({
      figure: '9',
      what: `namespaces ${sim}: simulator CPU per namespace beyond its small world's requests, worst step of ≥ 50`,
      value: `${n(ms.namespaceCpuMs, 2)} ms (at ${n(ms.count)})`,
      target: `< ${t.ms} ms`,
      met: ms.namespaceCpuMs < t.ms,
    });
    const ratio = roundRatio(s.rounds);
    out.push({
      figure: '9',
      what: `namespaces ${sim}: RSS peak of a later delete/re-create round / the first`,
      value: `${x(ratio)} (${s.rounds.map((r) => n(r.peakRssMb)).join(', ')} MB)`,
      target: `≤ ${x(t.roundRatio)}`,
      met: ratio <= t.roundRatio,
    });
  }
  return out;
}

/** Figure 9's section of BENCHMARKS.md. */
export function renderNamespaces(L: string[], ns: NamespacesResult): void {
  L.push(
    `### 9. Namespaces: cost per namespace from ${n(ns.counts[0] ?? 0)} to ${n(ns.counts.at(-1) ?? 0)}, and delete/re-create rounds`,
  );
  L.push('');
  L.push(
    `Each simulator is a fresh CLI process with \`--expose-gc\` and a preloaded probe that answers its memory after a full GC. Namespaces get a small world over ${ns.connections} keep-alive connections: cluster-sim a seed of one cluster with one node pool, annotation-sim a project, a task and a webhook through its API. Bytes: what each step's namespaces added to heap used + external (after a full GC before and after the step), per namespace. ms: wall time per namespace; "in one that exists": the same requests making another small world in namespaces that exist, just before and just after the step (up to 500 each, averaged), so the namespace's own cost is the difference (wall, and the simulator's CPU time from /proc, read in 10-ms ticks).`,
  );
  L.push('');
  L.push(
    '| simulator | namespaces | KB each | KB each (this step) | ms each | CPU ms each | ms in one that exists | the namespace: ms, CPU ms | RSS MB |',
  );
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const [sim, s] of Object.entries(ns.simulators)) {
    for (const p of s.curve) {
      L.push(
        `| ${sim} | ${n(p.count)} | ${n(p.bytesPerNamespace / 1024, 1)} | ${n(p.stepBytesPerNamespace / 1024, 1)} | ${n(p.msPerNamespace, 2)} | ${n(p.cpuMsPerNamespace, 2)} | ${n(p.msExisting, 2)} | ${n(p.namespaceMs, 2)}, ${n(p.namespaceCpuMs, 2)} | ${n(p.rssMb)} |`,
      );
    }
  }
  L.push('');
  L.push(
    `Rounds (another fresh process per simulator, no GC forced from outside): ${n(ns.roundCount)} namespaces created, then all deleted, ${Object.values(ns.simulators)[0]?.rounds.length ?? 0} times; RSS sampled every 20 ms.`,
  );
  L.push('');
  L.push('| simulator | round | RSS peak MB | / first | RSS after the deletes MB | ms per namespace |');
  L.push('|---|---|---|---|---|---|');
  for (const [sim, s] of Object.entries(ns.simulators)) {
    const first = s.rounds[0]?.peakRssMb ?? Number.NaN;
    s.rounds.forEach((r, i) => {
      L.push(
        `| ${sim} | ${i + 1} | ${n(r.peakRssMb)} | ${x(r.peakRssMb / first)} | ${n(r.afterDeleteRssMb)} | ${n(r.msPerNamespace, 2)} |`,
      );
    });
  }
  renderBusy(L, ns.busy ?? []);
  L.push('');
}

/** Figure 9's busy namespaces (annotation-sim under its default memory budget and unbounded), if measured. */
function renderBusy(L: string[], busy: NonNullable<NamespacesResult['busy']>): void {
  if (busy.length === 0) return;
  L.push('');
  L.push(
    `Busy namespaces (another fresh annotation-sim process each): ${n(busy[0]?.namespaces ?? 0)} namespaces, each a small world then 100 event rows of ~1.1 KB, 10 task updates (a webhook delivery each, to a closed port: a 502 row and its retries), two dataset exports kept for download; memory 6 s after the last request, after a full GC. \`default\`: the CLI's memory budget (docs/decisions/0019); \`unbounded\`: every share 64 GiB, each namespace bounded on its own only, as before the budget.`,
  );
  L.push('');
  L.push(
    '| budget | heap + external MB | RSS MB | RSS peak MB | events MiB (evicted) | deliveries MiB (evicted) | requests MiB | journal MiB | s |',
  );
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const b of busy) {
    const kind = (name: string) => b.kinds.find((k) => k.kind === name);
    const mib = (name: string) => n((kind(name)?.usedBytes ?? 0) / 2 ** 20, 1);
    L.push(
      `| ${b.budget} | ${n(b.heldMb)} | ${n(b.rssMb)} | ${n(b.peakRssMb)} | ${mib('events')} (${n(kind('events')?.evicted ?? 0)}) | ${mib('deliveries')} (${n(kind('deliveries')?.evicted ?? 0)}) | ${mib('requests')} | ${mib('journal')} | ${n(b.seconds, 1)} |`,
    );
  }
}
