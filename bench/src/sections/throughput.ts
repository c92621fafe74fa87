import { readFileSync } from 'node:fs';
import { json, request } from '../lib/http';
import { type LoadResult, load } from '../lib/load';
import { stop } from '../lib/proc';
import { type Spread, spread } from '../lib/stats';
import { launch, type PrismSetup, type Running } from '../lib/targets';

export const POOL_PATH = '/v1beta1/projects/p/locations/l/clusters/c/nodePools/np';
export const CLUSTER_AUTH = { authorization: 'Bearer bench' };
export const CVAT_AUTH = { authorization: 'Token bench-token' };
const STALE_PUT = JSON.stringify({ nodeVersion: '-', etag: 'c3RhbGU=' });

interface Target {
  id: string;
  server: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  expectStatus: number;
  bytes: number;
}

export interface ThroughputResult {
  targets: Record<
    string,
    Omit<Target, 'url'> & { rps: Spread; p50: Spread; p99: Spread; runs: LoadResult[] }
  >;
}

export async function seedCluster(url: string): Promise<void> {
  await json(`${url}/_sim/seed`, {
    method: 'POST',
    body: { clusters: [{ projectId: 'p', location: 'l', name: 'c', nodePools: [{ name: 'np' }] }] },
  });
}

export async function seedAnnotation(url: string, extra: Record<string, unknown> = {}): Promise<void> {
  await json(`${url}/_sim/seed`, {
    method: 'POST',
    body: {
      users: [{ username: 'bench', password: 'bench-pw', token: 'bench-token' }],
      projects: [{ name: 'p1', owner: 'bench' }],
      tasks: [{ name: 't1', owner: 'bench', project: 'p1', size: 100, segment_size: 25 }],
      ...extra,
    },
  });
}

/** WireMock stub answering exactly what the simulator answered (same status, body bytes, content type). */
async function stub(
  wiremock: string,
  method: string,
  path: string,
  status: number,
  body: string,
): Promise<void> {
  await json(`${wiremock}/__admin/mappings`, {
    method: 'POST',
    expect: 201,
    body: {
      request: { method, url: path },
      response: { status, body, headers: { 'content-type': 'application/json' } },
    },
  });
}

/**
 * Figure 3: throughput with the journal on, each target under autocannon (its own process, 50
 * connections) for `seconds`, `rounds` times, targets interleaved so drift hits all alike.
 */
export async function throughput(opts: {
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  prism?: PrismSetup;
  log: (s: string) => void;
}): Promise<ThroughputResult> {
  const started: Running[] = [];
  try {
    const [nodeHttp, hono, cluster, annotation, wiremock] = await Promise.all([
      launch('node-http'),
      launch('hono'),
      launch('cluster-sim'),
      launch('annotation-sim'),
      launch('wiremock'),
    ]);
    started.push(nodeHttp, hono, cluster, annotation, wiremock);
    const prism = opts.prism ? await launch('prism', opts.prism) : undefined;
    if (prism) started.push(prism);
    await seedCluster(cluster.url);
    await seedAnnotation(annotation.url);

    const pool = await request(cluster.url + POOL_PATH, { headers: CLUSTER_AUTH });
    const stale = await request(cluster.url + POOL_PATH, {
      method: 'PUT',
      headers: { ...CLUSTER_AUTH, 'content-type': 'application/json' },
      body: STALE_PUT,
    });
    const task = await request(`${annotation.url}/api/tasks/1`, { headers: CVAT_AUTH });
    if (pool.status !== 200 || stale.status !== 409 || task.status !== 200) {
      throw new Error(
        `unexpected sample answers: pool ${pool.status}, stale PUT ${stale.status}, task ${task.status}`,
      );
    }
    if (!stale.body.includes('"ABORTED"')) throw new Error(`stale PUT is not ABORTED: ${stale.body}`);
    await stub(wiremock.url, 'GET', POOL_PATH, 200, pool.body);
    await stub(wiremock.url, 'PUT', POOL_PATH, 409, stale.body);
    await stub(wiremock.url, 'GET', '/api/tasks/1', 200, task.body);

    const put = {
      method: 'PUT',
      headers: { ...CLUSTER_AUTH, 'content-type': 'application/json' },
      body: STALE_PUT,
    };
    const targets: Target[] = [
      {
        id: 'node-http',
        server: 'node:http',
        url: `${nodeHttp.url}/`,
        method: 'GET',
        headers: {},
        expectStatus: 200,
        bytes: 0,
      },
      {
        id: 'hono',
        server: 'hono',
        url: `${hono.url}/`,
        method: 'GET',
        headers: {},
        expectStatus: 200,
        bytes: 0,
      },
      {
        id: 'cluster-get',
        server: 'cluster-sim',
        url: cluster.url + POOL_PATH,
        method: 'GET',
        headers: CLUSTER_AUTH,
        expectStatus: 200,
        bytes: pool.body.length,
      },
      {
        id: 'wiremock-get',
        server: 'wiremock',
        url: wiremock.url + POOL_PATH,
        method: 'GET',
        headers: CLUSTER_AUTH,
        expectStatus: 200,
        bytes: pool.body.length,
      },
      {
        id: 'cluster-put-stale',
        server: 'cluster-sim',
        url: cluster.url + POOL_PATH,
        ...put,
        expectStatus: 409,
        bytes: stale.body.length,
      },
      {
        id: 'wiremock-put-stale',
        server: 'wiremock',
        url: wiremock.url + POOL_PATH,
        ...put,
        expectStatus: 409,
        bytes: stale.body.length,
      },
      {
        id: 'annotation-task',
        server: 'annotation-sim',
        url: `${annotation.url}/api/tasks/1`,
        method: 'GET',
        headers: CVAT_AUTH,
        expectStatus: 200,
        bytes: task.body.length,
      },
      {
        id: 'wiremock-task',
        server: 'wiremock',
        url: `${wiremock.url}/api/tasks/1`,
        method: 'GET',
        headers: CVAT_AUTH,
        expectStatus: 200,
        bytes: task.body.length,
      },
    ];
    if (prism) {
      targets.push({
        id: 'prism-task',
        server: 'prism',
        url: `${prism.url}/api/tasks/1`,
        method: 'GET',
        headers: { authorization: 'Token bench' },
        expectStatus: 200,
        bytes: 0,
      });
    }
    // Experiments only: BENCH_TARGETS=hono,annotation-task measures those alone (the figures use all).
    const only = process.env.BENCH_TARGETS?.split(',');
    if (only) targets.splice(0, targets.length, ...targets.filter((t) => only.includes(t.id)));
    for (const t of targets) {
      const warm = t.server === 'wiremock' ? opts.warmupSeconds * 3 : opts.warmupSeconds;
      opts.log(`  warm-up ${t.id} (${warm} s)`);
      await load({ ...t, seconds: warm });
    }
    const runs: Record<string, LoadResult[]> = {};
    for (let r = 0; r < opts.rounds; r++) {
      for (const t of targets) {
        await quiet(started, opts.log);
        const before = cpuOf(started);
        const res = await load({ ...t, seconds: opts.seconds });
        const after = cpuOf(started);
        if (process.env.BENCH_CPU_TRACE) {
          const parts = started.map(
            (s) => `${s.name} ${((after.get(s.name) ?? 0) - (before.get(s.name) ?? 0)).toFixed(2)}`,
          );
          opts.log(`    cpu s during ${t.id}: ${parts.join(', ')}`);
        }
        const good = res.statusCodes[String(t.expectStatus)] ?? 0;
        if (res.errors > 0 || good < res.total * 0.999) {
          throw new Error(
            `${t.id}: ${res.errors} errors, status codes ${JSON.stringify(res.statusCodes)} (expected ${t.expectStatus})`,
          );
        }
        opts.log(`  round ${r + 1}/${opts.rounds} ${t.id}: ${Math.round(res.rps)} req/s, p99 ${res.p99} ms`);
        runs[t.id] = [...(runs[t.id] ?? []), res];
      }
    }
    const out: ThroughputResult = { targets: {} };
    for (const t of targets) {
      const rs = runs[t.id] ?? [];
      const { url: _url, ...rest } = t;
      out.targets[t.id] = {
        ...rest,
        rps: spread(rs.map((x) => x.rps)),
        p50: spread(rs.map((x) => x.p50)),
        p99: spread(rs.map((x) => x.p99)),
        runs: rs,
      };
    }
    return out;
  } finally {
    await Promise.all(started.map((s) => stop(s.child)));
  }
}

/** CPU seconds (user + system) each server process has used so far, from /proc. */
function cpuOf(servers: Running[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of servers) {
    try {
      const stat = readFileSync(`/proc/${s.child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(s.name, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      out.set(s.name, 0);
    }
  }
  return out;
}

/**
 * Waits until no server has used more than 3 % of a core over the last 200 ms, for up to 3 s (a server that
 * never quiets adds at most ~2 min to a full run). WireMock's JVM goes on compiling and collecting for a
 * few seconds after its run, and took up to half a core from the target measured after it (2026-11-24,
 * `BENCH_CPU_TRACE`), a baseline or a simulator alike.
 */
export async function quiet(servers: Running[], log: (s: string) => void): Promise<void> {
  const deadline = Date.now() + 3_000;
  let last = cpuOf(servers);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuOf(servers);
    let busiest = 0;
    for (const [name, t] of now) busiest = Math.max(busiest, t - (last.get(name) ?? t));
    last = now;
    if (busiest <= 0.006) return;
    if (Date.now() > deadline) {
      if (process.env.BENCH_CPU_TRACE)
        log(`    still busy after 3 s (${(busiest / 0.2).toFixed(2)} of a core)`);
      return;
    }
  }
}
