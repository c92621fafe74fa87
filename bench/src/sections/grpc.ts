import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, stop } from '../lib/proc';
import { type Spread, spread } from '../lib/stats';
import { BENCH_DIR, launch, type Running } from '../lib/targets';
import { type Call, cpuSeconds, driveH2load, h2loadVersion, type Prepared, prepare } from './grpc-h2load';
import { POOL_PATH, quiet, seedCluster } from './throughput';

const WORKER = join(BENCH_DIR, 'src/workers/rpc-load.mjs');
const POOL_NAME = POOL_PATH.replace('/v1beta1/', '');
const RPC = 'google.container.v1beta1.ClusterManager';

const GET_POOL = { name: POOL_NAME };
const STALE = { nodeVersion: '-', etag: 'c3RhbGU=' };

/**
 * The calls, `callers` at a time each. REST: `callers` keep-alive connections with one request each at
 * a time, as an HTTP/1.1 client needs a connection per call in flight. gRPC: one connection with
 * `callers` streams, as gRPC's clients (grpc-js, grpc-go, grpc-java, grpcio) multiplex a channel's
 * calls on one HTTP/2 connection; gRPC on `callers` connections is shown beside it, not judged.
 */
function callsOf(callers: number): Call[] {
  const one = { connections: callers, streams: 1 };
  const multiplexed = { connections: 1, streams: callers };
  return [
    {
      id: 'rest-get',
      transport: 'rest',
      what: 'GET',
      payload: undefined,
      expect: 200,
      journaled: 200,
      ...one,
    },
    {
      id: 'grpc-get',
      transport: 'grpc',
      what: `${RPC}/GetNodePool`,
      payload: GET_POOL,
      expect: 0,
      journaled: 200,
      ...multiplexed,
    },
    {
      id: 'grpc-get-conns',
      transport: 'grpc',
      what: `${RPC}/GetNodePool`,
      payload: GET_POOL,
      expect: 0,
      journaled: 200,
      ...one,
    },
    // What Google's Cloud Client Libraries' transport costs (its own and the server's), in one channel.
    {
      id: 'grpc-js-get',
      transport: 'grpc-js',
      what: `${RPC}/GetNodePool`,
      payload: GET_POOL,
      expect: 0,
      journaled: 200,
      ...multiplexed,
    },
    {
      id: 'rest-put-stale',
      transport: 'rest',
      what: 'PUT',
      payload: STALE,
      expect: 409,
      journaled: 409,
      ...one,
    },
    // ABORTED: the stale etag, as over REST.
    {
      id: 'grpc-put-stale',
      transport: 'grpc',
      what: `${RPC}/UpdateNodePool`,
      payload: { name: POOL_NAME, ...STALE },
      expect: 10,
      journaled: 409,
      ...multiplexed,
    },
  ];
}

interface CallRun {
  calls: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** The simulator's CPU time (user + system) per call over the run, µs. */
  cpuPerCallUs: number;
  /** The 1-minute load average when the run ended. */
  load: number;
}

export interface GrpcResult {
  concurrency: number;
  /** The load tool (`h2load nghttp2/…`), the same for REST and gRPC. */
  loadTool?: string;
  targets: Record<
    string,
    Omit<Call, 'payload'> & { rps: Spread; p50: Spread; p99: Spread; cpuPerCallUs?: Spread; runs: CallRun[] }
  >;
}

/** The same GET through @grpc/grpc-js, in its own process (not judged). */
async function driveGrpcJs(call: Call, cluster: Running, seconds: number) {
  const cpu0 = cpuSeconds(cluster.child.pid);
  const out = await run(
    process.execPath,
    [
      WORKER,
      `127.0.0.1:${cluster.port}`,
      call.what,
      JSON.stringify(call.payload),
      String(seconds),
      String(call.streams),
    ],
    (seconds + 60) * 1000,
  );
  const cpu = cpuSeconds(cluster.child.pid) - cpu0;
  const res = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
    calls: number;
    seconds: number;
    rps: number;
    p50: number;
    p99: number;
    codes: Record<string, number>;
  };
  if (res.calls === 0 || (res.codes[String(call.expect)] ?? 0) !== res.calls) {
    throw new Error(`${call.id}: answers ${JSON.stringify(res.codes)} (expected ${call.expect} only)`);
  }
  return { ...res, cpu };
}

/**
 * Figure 11: the container API over gRPC beside REST on the same simulator (the CLI, one process, one
 * port): GET node pool and a PUT with a stale etag (ABORTED), `concurrency` calls in flight, `rounds`
 * times for `seconds`, interleaved so that drift and the other work on the host hit all alike. Both
 * transports are driven by one native load tool, h2load (nghttp2), so that no client's own cost per
 * call decides the ratio: the server is what is compared (REST over HTTP/1.1 keep-alive, `--h1`; gRPC
 * framed by hand over HTTP/2). Issue 35's target: gRPC at no less than 0.8× of REST's calls per second.
 * GET through @grpc/grpc-js (Google's clients' transport) is shown beside it, not judged.
 */
export async function grpcFigure(opts: {
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  concurrency: number;
  log: (s: string) => void;
}): Promise<GrpcResult> {
  const loadTool = h2loadVersion();
  const calls = callsOf(opts.concurrency);
  const dir = mkdtempSync(join(tmpdir(), 'bench-grpc-'));
  const cluster = await launch('cluster-sim');
  try {
    await seedCluster(cluster.url);
    const prepared = new Map<string, Prepared>();
    for (const call of calls) {
      if (call.transport !== 'grpc-js') prepared.set(call.id, await prepare(call, cluster, dir));
    }
    const drive = (call: Call, seconds: number) => {
      const p = prepared.get(call.id);
      return p ? driveH2load(call, p, cluster, seconds, dir) : driveGrpcJs(call, cluster, seconds);
    };
    for (const call of calls) {
      opts.log(`  warm-up ${call.id} (${opts.warmupSeconds} s)`);
      await drive(call, opts.warmupSeconds);
    }
    const runs: Record<string, CallRun[]> = {};
    for (let r = 0; r < opts.rounds; r++) {
      for (const call of calls) {
        await quiet([cluster], opts.log);
        const res = await drive(call, opts.seconds);
        const run: CallRun = {
          calls: res.calls,
          seconds: res.seconds,
          rps: res.rps,
          p50: res.p50,
          p99: res.p99,
          cpuPerCallUs: (res.cpu / res.calls) * 1e6,
          load: loadavg()[0] ?? Number.NaN,
        };
        opts.log(
          `  round ${r + 1}/${opts.rounds} ${call.id}: ${Math.round(run.rps)} calls/s, p99 ${run.p99.toFixed(1)} ms, server ${Math.round(run.cpuPerCallUs)} µs CPU a call, load ${run.load.toFixed(2)}`,
        );
        runs[call.id] = [...(runs[call.id] ?? []), run];
      }
    }
    const out: GrpcResult = { concurrency: opts.concurrency, loadTool, targets: {} };
    for (const { payload: _payload, ...call } of calls) {
      const rs = runs[call.id] ?? [];
      out.targets[call.id] = {
        ...call,
        rps: spread(rs.map((x) => x.rps)),
        p50: spread(rs.map((x) => x.p50)),
        p99: spread(rs.map((x) => x.p99)),
        cpuPerCallUs: spread(rs.map((x) => x.cpuPerCallUs)),
        runs: rs,
      };
    }
    return out;
  } finally {
    await stop(cluster.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
