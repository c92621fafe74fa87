import type { GrpcResult } from './sections/grpc';

/** Issue 35's target: the container API over gRPC at no less than this share of REST's calls per second. */
const MIN_RATIO = 0.8;

const n = (x: number, digits = 0) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const x = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}×` : '–');

const PAIRS = [
  ['grpc-get', 'rest-get', 'GET nodePool'],
  ['grpc-put-stale', 'rest-put-stale', 'PUT stale etag (ABORTED)'],
] as const;

/** The rows of the targets table for figure 11: gRPC's median calls per second over REST's. */
export function grpcTargets(g: GrpcResult | undefined) {
  const out: { figure: string; what: string; value: string; target: string; met: boolean | undefined }[] = [];
  if (!g) return out;
  for (const [grpc, rest, label] of PAIRS) {
    const ratio = (g.targets[grpc]?.rps.median ?? Number.NaN) / (g.targets[rest]?.rps.median ?? Number.NaN);
    out.push({
      figure: '11',
      what: `${label} over gRPC / over REST`,
      value: x(ratio),
      target: `≥ ${MIN_RATIO.toFixed(2)}×`,
      met: ratio >= MIN_RATIO,
    });
  }
  return out;
}

/** How a row connected: `16 × 1` (connections × calls in flight on each). */
const how = (t: { connections?: number; streams?: number }) =>
  t.connections === undefined ? '' : `${t.connections} × ${t.streams ?? 1}`;

/** Figure 11's table. */
export function renderGrpc(L: string[], g: GrpcResult): void {
  if (g.loadTool) {
    L.push(
      `### 11. The container API over gRPC beside REST (cluster-sim's CLI, one port; ${g.concurrency} calls in flight, both transports driven by ${g.loadTool}: REST on ${g.concurrency} keep-alive HTTP/1.1 connections, gRPC on one HTTP/2 connection with ${g.concurrency} streams as gRPC's clients multiplex a channel; \`grpc-js\`: the same GET through @grpc/grpc-js, Google's clients' transport, whose own cost per call bounds it here)`,
    );
  } else {
    L.push(
      `### 11. The container API over gRPC beside REST (cluster-sim's CLI, one port; ${g.concurrency} callers in one load process: node:http keep-alive against one HTTP/2 session framing gRPC itself, answers read whole, not parsed; \`grpc-js\`: the same GET through @grpc/grpc-js, Google's clients' transport, whose own cost per call bounds it here)`,
    );
  }
  L.push('');
  L.push(
    '| call | transport | connections × in flight | calls/s median (min–max) | p50 ms | p99 ms | server CPU µs a call | gRPC / REST |',
  );
  L.push('|---|---|---|---|---|---|---|---|');
  for (const [grpc, rest, label] of PAIRS) {
    const gr = g.targets[grpc];
    const re = g.targets[rest];
    if (!gr || !re) continue;
    const row = (t: typeof gr, ratio: string) =>
      `| ${label} | ${t.transport} | ${how(t)} | ${n(t.rps.median)} (${n(t.rps.min)}–${n(t.rps.max)}) | ${n(t.p50.median, 2)} | ${n(t.p99.median, 1)} | ${t.cpuPerCallUs ? n(t.cpuPerCallUs.median) : '–'} | ${ratio} |`;
    L.push(row(re, ''));
    L.push(row(gr, x(gr.rps.median / re.rps.median)));
    const shown = grpc === 'grpc-get' ? [g.targets['grpc-get-conns'], g.targets['grpc-js-get']] : [];
    for (const t of shown) if (t) L.push(row(t, `${x(t.rps.median / re.rps.median)} (not judged)`));
  }
  L.push('');
}
