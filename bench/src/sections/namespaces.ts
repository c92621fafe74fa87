import { join } from 'node:path';
import { RawConnection } from '../lib/http';
import { type ProbedMemory, probeMemory, processCpuMs } from '../lib/probe';
import { rssMb, stop } from '../lib/proc';
import { BENCH_DIR, launch, type Running } from '../lib/targets';

const held = (m: ProbedMemory) => m.heapUsed + m.external;

type Sim = 'cluster-sim' | 'annotation-sim';

/** One point of the curve: the namespaces held, and what each cost. */
export interface CurvePoint {
  count: number;
  /** Namespaces created since the previous point. */
  step: number;
  /** (heap used + external) after a full GC that the namespaces' steps added, per namespace. */
  bytesPerNamespace: number;
  /** The same, of this step's namespaces only. */
  stepBytesPerNamespace: number;
  /** Wall time to create the namespaces since the previous point with their small worlds, per namespace. */
  msPerNamespace: number;
  /** CPU time of the simulator's process (all its threads) meanwhile, per namespace. */
  cpuMsPerNamespace: number;
  /** Wall time of the same requests making another small world in namespaces that exist (before and after the step). */
  msExisting: number;
  /** What the namespace itself costs: `msPerNamespace - msExisting`. */
  namespaceMs: number;
  /** The same in the simulator's CPU time: `cpuMsPerNamespace` less the CPU of the second small worlds. */
  namespaceCpuMs: number;
  rssMb: number;
}

/** One delete/re-create round: every namespace created, then every one deleted. */
export interface Round {
  peakRssMb: number;
  afterDeleteRssMb: number;
  msPerNamespace: number;
}

/** A thousand busy namespaces in one annotation-sim process, under a memory budget or without one. */
interface BusyResult {
  /** `default`: the CLI's shares; `unbounded`: every share 64 GiB (each namespace bounded on its own only). */
  budget: 'default' | 'unbounded';
  namespaces: number;
  /** (heap used + external) after a full GC, and the process's RSS, once every namespace is busy. */
  heldMb: number;
  rssMb: number;
  /** The highest RSS sampled while they were made busy (every 20 ms). */
  peakRssMb: number;
  /** What the budget's pools hold and evicted (`GET /_sim/memory`). */
  kinds: { kind: string; maxBytes: number; usedBytes: number; evicted: number }[];
  seconds: number;
}

export interface NamespacesResult {
  counts: number[];
  roundCount: number;
  connections: number;
  simulators: Record<Sim, { curve: CurvePoint[]; rounds: Round[] }>;
  /** annotation-sim with `busy[0].namespaces` busy namespaces, under the default budget and unbounded. */
  busy?: BusyResult[];
}

const ADMIN = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
const CLUSTER_SEED = JSON.stringify({
  clusters: [{ projectId: 'p', location: 'l', name: 'c', nodePools: [{ name: 'np' }] }],
});
/** Another cluster beside the first (a seed of a name already taken would be refused). */
const clusterSeedAgain = (k: number) => CLUSTER_SEED.replace('"name":"c"', `"name":"c-${k}"`);
const PROJECT = JSON.stringify({ name: 'p' });
const TASK = JSON.stringify({ name: 't', project_id: 1 });
const WEBHOOK = JSON.stringify({
  target_url: 'http://127.0.0.1:9/hook',
  type: 'project',
  project_id: 1,
  events: ['update:task'],
  content_type: 'application/json',
});

function post(path: string, body: string, auth?: string): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
    `${auth ? `Authorization: ${auth}\r\n` : ''}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/**
 * The requests that make a namespace with a small world: cluster-sim's seed of one cluster with one node
 * pool (`/_sim/seed`); annotation-sim's project, task and webhook through its API (each write also logs
 * a server event).
 */
function smallWorld(kind: Sim, ns: string, again?: number): string[] {
  if (kind === 'cluster-sim')
    return [post(`/_ns/${ns}/_sim/seed`, again === undefined ? CLUSTER_SEED : clusterSeedAgain(again))];
  return [
    post(`/_ns/${ns}/api/projects`, PROJECT, ADMIN),
    post(`/_ns/${ns}/api/tasks`, TASK, ADMIN),
    post(`/_ns/${ns}/api/webhooks`, WEBHOOK, ADMIN),
  ];
}

const deleteRequest = (ns: string) =>
  `DELETE /_sim/namespaces/${ns} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n`;

/** Sends each index's requests in order, spread over the connections; throws on an answer ≥ 300. */
async function drive(
  connections: RawConnection[],
  from: number,
  to: number,
  requests: (i: number) => string[],
): Promise<void> {
  let next = from;
  await Promise.all(
    connections.map(async (conn) => {
      while (next < to) {
        const i = next++;
        for (const raw of requests(i)) {
          const status = await conn.send(raw);
          if (status >= 300) throw new Error(`${raw.split('\r\n')[0]}: ${status}`);
        }
      }
    }),
  );
}

async function start(kind: Sim, maxNamespaces: number): Promise<Running> {
  return launch(kind, undefined, ['--max-namespaces', String(maxNamespaces)], {
    nodeArgs: ['--expose-gc', '--import', join(BENCH_DIR, 'src/servers/memory-probe.mjs')],
    ipc: true,
  });
}

const names = (prefix: string) => (i: number) => `${prefix}-${i}`;
/** Namespaces made before measuring: they warm the code up, then serve as namespaces that exist. */
const WARM = 50;

/** Grows one simulator's namespaces through `counts`, measuring each step. */
async function curve(kind: Sim, counts: number[], connectionCount: number): Promise<CurvePoint[]> {
  const max = counts[counts.length - 1] as number;
  let sim: Running | undefined;
  const connections: RawConnection[] = [];
  try {
    sim = await start(kind, max + 100);
    const pid = sim.child.pid as number;
    for (let i = 0; i < connectionCount; i++) connections.push(await RawConnection.open(sim.url));
    // Warm-up: the first namespaces compile the code paths and build what all of them share; they stay,
    // as namespaces that exist for the baseline below.
    const warm = names('warm');
    await drive(connections, 0, WARM, (i) => smallWorld(kind, warm(i)));
    const ns = names('ns');
    let made = 0;
    let againCount = 0;
    /**
     * The baseline: the same requests making another small world in `n` namespaces that exist, spread
     * over all of them; returns wall and CPU ms per small world.
     */
    const baseline = async (n: number) => {
      const pool = WARM + made;
      const cpu0 = processCpuMs(pid);
      const t0 = performance.now();
      await drive(connections, againCount, againCount + n, (k) => {
        const at = k % pool;
        return smallWorld(kind, at < WARM ? warm(at) : ns(at - WARM), k);
      });
      againCount += n;
      return { ms: (performance.now() - t0) / n, cpu: (processCpuMs(pid) - cpu0) / n };
    };
    let stepBytes = 0;
    const out: CurvePoint[] = [];
    for (const count of counts) {
      const step = count - made;
      // Before and after the step, averaged: the load of a shared machine drifts, and so does the JIT.
      const before = await baseline(Math.min(500, Math.max(WARM, step)));
      const m0 = await probeMemory(sim.child);
      const cpu0 = processCpuMs(pid);
      const t0 = performance.now();
      await drive(connections, made, count, (i) => smallWorld(kind, ns(i)));
      const ms = (performance.now() - t0) / step;
      const cpu = (processCpuMs(pid) - cpu0) / step;
      const m = await probeMemory(sim.child);
      made = count;
      const after = await baseline(Math.min(500, Math.max(WARM, step)));
      const msExisting = (before.ms + after.ms) / 2;
      const cpuExisting = (before.cpu + after.cpu) / 2;
      stepBytes += held(m) - held(m0);
      out.push({
        count,
        step,
        bytesPerNamespace: stepBytes / count,
        stepBytesPerNamespace: (held(m) - held(m0)) / step,
        msPerNamespace: ms,
        cpuMsPerNamespace: cpu,
        msExisting,
        namespaceMs: ms - msExisting,
        namespaceCpuMs: cpu - cpuExisting,
        rssMb: m.rss / 2 ** 20,
      });
    }
    return out;
  } finally {
    for (const c of connections) c.close();
    if (sim) await stop(sim.child);
  }
}

/** `rounds` times: `count` namespaces created, then all deleted, sampling the process's RSS every 20 ms. */
async function rounds(kind: Sim, count: number, roundCount: number, connectionCount: number) {
  let sim: Running | undefined;
  const connections: RawConnection[] = [];
  try {
    sim = await start(kind, count + 100);
    const pid = sim.child.pid as number;
    for (let i = 0; i < connectionCount; i++) connections.push(await RawConnection.open(sim.url));
    const ns = names('round');
    const out: Round[] = [];
    for (let r = 0; r < roundCount; r++) {
      let peak = rssMb(pid);
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMb(pid));
      }, 20);
      try {
        const t0 = performance.now();
        await drive(connections, 0, count, (i) => smallWorld(kind, ns(i)));
        const ms = performance.now() - t0;
        peak = Math.max(peak, rssMb(pid));
        await drive(connections, 0, count, (i) => [deleteRequest(ns(i))]);
        await new Promise((res) => setTimeout(res, 200));
        out.push({ peakRssMb: peak, afterDeleteRssMb: rssMb(pid), msPerNamespace: ms / count });
      } finally {
        clearInterval(sampler);
      }
    }
    return out;
  } finally {
    for (const c of connections) c.close();
    if (sim) await stop(sim.child);
  }
}

/** A raw request with a JSON body (admin's Basic auth). */
function send(method: string, path: string, body: string): string {
  return post(path, body, ADMIN).replace(/^POST /, `${method} `);
}

/** 100 event rows of ~1.1 KB each, distinct per namespace. */
const eventRows = (ns: string) =>
  JSON.stringify({
    events: Array.from({ length: 100 }, (_, i) => ({
      scope: 'click:element',
      source: 'client',
      payload: JSON.stringify({ ns, i, text: 'x'.repeat(1000) }),
    })),
  });

/**
 * What makes a namespace busy, after its small world: 100 event rows, 10 task updates (each a webhook
 * delivery to a closed port: a 502 row, then retries), two dataset exports kept for download, and the
 * journal entries and server events of all of these.
 */
function busyWork(ns: string): string[] {
  const exportPath = (format: string) =>
    `/_ns/${ns}/api/tasks/1/dataset/export?format=${encodeURIComponent(format)}`;
  return [
    post(`/_ns/${ns}/_sim/events/records`, eventRows(ns)),
    ...Array.from({ length: 10 }, (_, k) =>
      send('PATCH', `/_ns/${ns}/api/tasks/1`, JSON.stringify({ name: `t-${k}` })),
    ),
    post(exportPath('COCO 1.0'), '', ADMIN),
    post(exportPath('CVAT for images 1.1'), '', ADMIN),
  ];
}

const UNBOUNDED = ['events', 'deliveries', 'requests', 'journal'].flatMap((k) => [
  `--${k}-max-bytes`,
  '64GiB',
]);

/**
 * `count` busy namespaces in a fresh annotation-sim CLI (with the memory probe): each a small world made
 * busy (`busyWork`), over `connectionCount` connections; then, once the exports finished and the first
 * retries ran (6 s), its memory after a full GC and what the budget holds.
 */
async function busyNamespaces(
  count: number,
  budget: BusyResult['budget'],
  connectionCount: number,
): Promise<BusyResult> {
  let sim: Running | undefined;
  const connections: RawConnection[] = [];
  try {
    sim = await launch(
      'annotation-sim',
      undefined,
      ['--max-namespaces', String(count + 10), ...(budget === 'unbounded' ? UNBOUNDED : [])],
      {
        nodeArgs: ['--expose-gc', '--import', join(BENCH_DIR, 'src/servers/memory-probe.mjs')],
        ipc: true,
      },
    );
    const pid = sim.child.pid as number;
    for (let i = 0; i < connectionCount; i++) connections.push(await RawConnection.open(sim.url));
    let peak = rssMb(pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 20);
    const t0 = performance.now();
    try {
      await drive(connections, 0, count, (i) => [
        ...smallWorld('annotation-sim', `busy-${i}`),
        ...busyWork(`busy-${i}`),
      ]);
      await new Promise((r) => setTimeout(r, 6_000));
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - t0) / 1000;
    const m = await probeMemory(sim.child);
    const res = await fetch(`${sim.url}/_sim/memory`);
    const { kinds } = (await res.json()) as { kinds: BusyResult['kinds'] };
    return {
      budget,
      namespaces: count,
      heldMb: held(m) / 2 ** 20,
      rssMb: m.rss / 2 ** 20,
      peakRssMb: Math.max(peak, m.rss / 2 ** 20),
      kinds,
      seconds,
    };
  } finally {
    for (const c of connections) c.close();
    if (sim) await stop(sim.child);
  }
}

/**
 * Figure 9: what a namespace costs. Each simulator (a fresh CLI process with `--expose-gc` and a preloaded
 * probe that answers its memory after a full GC) gets namespaces with a small world, `counts` at a time
 * (10 → 10,000), over `connections` keep-alive connections; each step's bytes (heap used + external, per
 * namespace) and time per namespace are recorded. Then, in another fresh process, `rounds` rounds of
 * `roundCount` namespaces created and all deleted, with the RSS peak of each round.
 */
export async function namespacesFigure(opts: {
  counts: number[];
  roundCount: number;
  rounds: number;
  connections: number;
  /** The simulators measured (default both). */
  simulators?: Sim[];
  /** Busy annotation-sim namespaces, under the default budget and unbounded (default 1,000, at most the curve's last count). */
  busyCount?: number;
  log: (s: string) => void;
}): Promise<NamespacesResult> {
  const simulators = {} as NamespacesResult['simulators'];
  for (const kind of opts.simulators ?? (['cluster-sim', 'annotation-sim'] as const)) {
    const points = await curve(kind, opts.counts, opts.connections);
    for (const p of points)
      opts.log(
        `  ${kind} ${p.count}: ${(p.bytesPerNamespace / 1024).toFixed(1)} KB/namespace (step ${(p.stepBytesPerNamespace / 1024).toFixed(1)}), ${p.msPerNamespace.toFixed(2)} ms (CPU ${p.cpuMsPerNamespace.toFixed(2)}; in a namespace that exists ${p.msExisting.toFixed(2)}: the namespace ${p.namespaceMs.toFixed(2)}, CPU ${p.namespaceCpuMs.toFixed(2)}), RSS ${p.rssMb.toFixed(0)} MB`,
      );
    const rs = await rounds(kind, opts.roundCount, opts.rounds, opts.connections);
    opts.log(
      `  ${kind} rounds of ${opts.roundCount}: RSS peaks ${rs.map((r) => r.peakRssMb.toFixed(0)).join(', ')} MB; after delete ${rs.map((r) => r.afterDeleteRssMb.toFixed(0)).join(', ')} MB`,
    );
    simulators[kind] = { curve: points, rounds: rs };
  }
  const busy: BusyResult[] = [];
  if ((opts.simulators ?? ['annotation-sim']).includes('annotation-sim')) {
    const count = opts.busyCount ?? Math.min(1000, opts.counts[opts.counts.length - 1] as number);
    for (const budget of ['default', 'unbounded'] as const) {
      const b = await busyNamespaces(count, budget, opts.connections);
      opts.log(
        `  annotation-sim ${count} busy namespaces, ${budget} budget: ${b.heldMb.toFixed(0)} MB held after GC, RSS ${b.rssMb.toFixed(0)} MB (peak ${b.peakRssMb.toFixed(0)}), ${b.seconds.toFixed(1)} s; ${b.kinds.map((k) => `${k.kind} ${(k.usedBytes / 2 ** 20).toFixed(1)}/${(k.maxBytes / 2 ** 20).toFixed(0)} MiB, ${k.evicted} evicted`).join('; ')}`,
      );
      busy.push(b);
    }
  }
  return {
    counts: opts.counts,
    roundCount: opts.roundCount,
    connections: opts.connections,
    simulators,
    busy,
  };
}
