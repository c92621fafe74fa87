import { createRequire } from 'node:module';
import { run } from './proc';

const require = createRequire(import.meta.url);
const AUTOCANNON = require.resolve('autocannon/autocannon.js');

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

export interface LoadSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  amount?: number;
}

/** autocannon in its own process (`--json`), against 127.0.0.1 only. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  if (new URL(spec.url).hostname !== '127.0.0.1') throw new Error('bench traffic stays on 127.0.0.1');
  const args = [AUTOCANNON, '--json', '-c', String(spec.connections ?? 50), '-m', spec.method ?? 'GET'];
  if (spec.amount !== undefined) args.push('-a', String(spec.amount));
  else args.push('-d', String(spec.seconds ?? 5));
  for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (spec.body !== undefined) args.push('-b', spec.body);
  args.push(spec.url);
  const limit = ((spec.seconds ?? 60) + 60) * 1000;
  const out = await run(process.execPath, args, limit);
  const r = JSON.parse(out.trim().split('\n').pop() ?? '{}');
  const codes: Record<string, number> = {};
  for (const [k, v] of Object.entries((r.statusCodeStats ?? {}) as Record<string, { count: number }>))
    codes[k] = v.count;
  return {
    rps: r.requests?.average ?? Number.NaN,
    p50: r.latency?.p50 ?? Number.NaN,
    p99: r.latency?.p99 ?? Number.NaN,
    total: r.requests?.total ?? 0,
    non2xx: r.non2xx ?? 0,
    errors: r.errors ?? 0,
    timeouts: r.timeouts ?? 0,
    statusCodes: codes,
  };
}
