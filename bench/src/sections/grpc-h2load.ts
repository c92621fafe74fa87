import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { run } from '../lib/proc';
import { REPO, type Running } from '../lib/targets';
import { POOL_PATH } from './throughput';

// Figure 11's load tool: h2load (nghttp2) drives REST (--h1) and gRPC (a request message framed into a
// file, sent as each stream's body) alike, and each run's answers are checked.

const AUTH = 'authorization: Bearer bench';

/** The Debian/Ubuntu package that has h2load (nghttp2's load tool). */
const H2LOAD_PACKAGE = 'nghttp2-client';

/** One call the figure measures, over one transport and one way of connecting, and its expected answers. */
export interface Call {
  id: string;
  transport: 'rest' | 'grpc' | 'grpc-js';
  /** REST: the HTTP method; gRPC: the RPC's path. */
  what: string;
  payload: Record<string, unknown> | undefined;
  /** The HTTP status (REST) or gRPC status code every answer must have. */
  expect: number;
  /** The status the REST request the call is (REST) or becomes (gRPC) is journaled with. */
  journaled: number;
  /** Connections and calls in flight on each (h2load's -c and -m). */
  connections: number;
  streams: number;
}

/** h2load's version line, or a clear failure naming the package to install. */
export function h2loadVersion(): string {
  const probe = spawnSync('h2load', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `figure 11 drives REST and gRPC with h2load, which is not installed here (${probe.error?.message ?? `exit ${probe.status}`}): install Debian's package ${H2LOAD_PACKAGE} (apt-get install -y ${H2LOAD_PACKAGE})`,
    );
  }
  return probe.stdout.trim().split('\n')[0] ?? 'h2load';
}

/** A gRPC request message, length-prefixed, encoded with the protos and protobufjs cluster-sim serves. */
function grpcFrame(rpc: string, payload: Record<string, unknown>): Buffer {
  const app = createRequire(join(REPO, 'apps/cluster-sim/package.json'));
  // protobufjs is cluster-sim's dependency, not the bench's: typed here as far as it is used.
  interface MessageType {
    fromObject(o: object): unknown;
    encode(m: unknown): { finish(): Uint8Array };
  }
  const protobuf = app('protobufjs') as {
    Root: {
      fromJSON(json: unknown): {
        lookupService(name: string): {
          methods: Record<string, { resolve(): { resolvedRequestType: MessageType | null } }>;
        };
      };
    };
  };
  const root = protobuf.Root.fromJSON(app('@google-cloud/container/build/protos/protos.json'));
  const [service = '', method = ''] = rpc.split('/');
  const type = root.lookupService(service).methods[method]?.resolve().resolvedRequestType;
  if (!type) throw new Error(`no RPC ${rpc}`);
  const message = type.encode(type.fromObject(payload)).finish();
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** One gRPC call by hand: its status (from the trailers, or the headers of a trailers-only answer) and data bytes. */
async function probeGrpc(
  port: number,
  rpc: string,
  frame: Buffer,
): Promise<{ status: number; bytes: number }> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': `/${rpc}`,
        'content-type': 'application/grpc',
        te: 'trailers',
        authorization: 'Bearer bench',
      });
      let status = Number.NaN;
      let bytes = 0;
      stream.on('response', (h) => {
        if (h['grpc-status'] !== undefined) status = Number(h['grpc-status']);
      });
      stream.on('trailers', (t) => {
        status = Number(t['grpc-status']);
      });
      stream.on('data', (d: Buffer) => {
        bytes += d.length;
      });
      stream.on('end', () => resolve({ status, bytes }));
      stream.on('error', reject);
      stream.end(frame);
    });
  } finally {
    session.close();
  }
}

export function cpuSeconds(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function control(cluster: Running, path: string, method = 'GET'): Promise<Record<string, unknown>> {
  const res = await fetch(`${cluster.url}${path}`, { method });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}

/** A number after `label` in h2load's report (`done` in "…, 123 done, …"). */
function counted(out: string, label: string): number {
  const m = new RegExp(`(\\d+) ${label}\\b`).exec(out);
  if (!m) throw new Error(`h2load's report has no "${label}": ${out.slice(-800)}`);
  return Number(m[1]);
}

export interface Prepared {
  args: string[];
  /** Data bytes each answer carries (the gRPC message frame; none for a trailers-only error). */
  dataPerAnswer?: number;
}

/** h2load's arguments for a call, the gRPC request framed into a file, its answer checked once by hand. */
export async function prepare(call: Call, cluster: Running, dir: string): Promise<Prepared> {
  const base = ['-c', String(call.connections), '-m', String(call.streams)];
  if (call.transport === 'rest') {
    const args = [...base, '--h1', '-H', AUTH];
    if (call.payload) {
      const file = join(dir, `${call.id}.json`);
      writeFileSync(file, JSON.stringify(call.payload));
      args.push('-d', file, '-H', `:method: ${call.what}`, '-H', 'content-type: application/json');
    }
    return { args: [...args, cluster.url + POOL_PATH] };
  }
  const frame = grpcFrame(call.what, call.payload ?? {});
  const probe = await probeGrpc(cluster.port, call.what, frame);
  if (probe.status !== call.expect) {
    throw new Error(
      `${call.id}: a call by hand answered grpc-status ${probe.status} (expected ${call.expect})`,
    );
  }
  const file = join(dir, `${call.id}.grpc`);
  writeFileSync(file, frame);
  const args = [
    ...base,
    '-d',
    file,
    '-H',
    'content-type: application/grpc',
    '-H',
    'te: trailers',
    '-H',
    AUTH,
  ];
  return { args: [...args, `${cluster.url}/${call.what}`], dataPerAnswer: probe.bytes };
}

function latencies(logFile: string): number[] {
  const out: number[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const us = Number(line.split('\t')[2]);
    if (line && Number.isFinite(us)) out.push(us / 1000);
  }
  return out.sort((a, b) => a - b);
}

const at = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;

/**
 * One timed run of h2load, checked: every answer of the expected HTTP class, none failed at the
 * transport; for gRPC every answer's data bytes those of the answer checked by hand (the OK message, or
 * none: an error is trailers-only); and the journal: the simulator recorded a request for each call,
 * its latest ones with the REST status the call is or becomes (409 → ABORTED is the bridge's mapping).
 */
export async function driveH2load(
  call: Call,
  prepared: Prepared,
  cluster: Running,
  seconds: number,
  dir: string,
) {
  await control(cluster, '/_sim/journal', 'DELETE');
  const logFile = join(dir, `${call.id}.log`);
  const cpu0 = cpuSeconds(cluster.child.pid);
  const out = await run(
    'h2load',
    ['-D', `${Math.round(seconds * 1000)}ms`, '--log-file', logFile, ...prepared.args],
    (seconds + 60) * 1000,
  );
  const cpu = cpuSeconds(cluster.child.pid) - cpu0;
  const done = counted(out, 'done');
  const started = counted(out, 'started');
  // In a timed run h2load counts as done the calls answered within the time; the status codes and data
  // bytes also count those in flight then (up to `started`), answered as it stops.
  const klass = call.transport === 'rest' ? `${String(call.expect)[0]}xx` : '2xx';
  const problems: string[] = [];
  if (done === 0) problems.push('no call answered');
  if (counted(out, 'errored') + counted(out, 'timeout') > 0) problems.push('calls errored or timed out');
  const classes = ['2xx', '3xx', '4xx', '5xx'].map((k) => [k, counted(out, k)] as const);
  const inClass = counted(out, klass);
  if (inClass < done || classes.some(([k, c]) => k !== klass && c > 0)) {
    problems.push(`answers ${classes.map(([k, c]) => `${c} ${k}`).join(', ')}: not all ${klass}`);
  }
  const data = Number(/traffic: .*, \S+ \((\d+)\) data/.exec(out)?.[1]);
  const per = prepared.dataPerAnswer;
  if (per !== undefined && (data < done * per || data > started * per)) {
    problems.push(`${data} data bytes, not ${per} for each of ${done}–${started} answers`);
  }
  const journal = (await control(cluster, '/_sim/journal?limit=200')) as {
    entries: { status: number }[];
    stats: { total: number };
  };
  if (journal.stats.total < done || journal.stats.total > started) {
    problems.push(`the journal has ${journal.stats.total} requests for ${done} answered of ${started}`);
  }
  const other = journal.entries.find((e) => e.status !== call.journaled);
  if (other) problems.push(`a journaled request answered ${other.status}, not ${call.journaled}`);
  if (problems.length > 0) throw new Error(`${call.id}: ${problems.join('; ')}\n${out.slice(-1200)}`);
  const elapsed = Number(/finished in ([\d.]+)s/.exec(out)?.[1] ?? seconds);
  const sorted = latencies(logFile);
  rmSync(logFile, { force: true });
  return {
    calls: done,
    seconds: elapsed,
    rps: done / elapsed,
    p50: at(sorted, 0.5),
    p99: at(sorted, 0.99),
    cpu,
  };
}
