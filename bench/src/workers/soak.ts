// Figure 8 (in its own process, one per simulator): the soak's load. For `seconds` it drives a bounded,
// mixed load at `rate` operations a second over `concurrency` keep-alive connections (emulated API reads
// and writes, control-plane calls, namespaces created and deleted one at a time per connection) against
// one simulator process, and samples that process's RSS from /proc every `rssEverySeconds`. It prints a
// JSON line per window (`{"type":"window",...}`) and a last one with the whole run (`{"type":"result"}`).
// Traffic goes to 127.0.0.1 only; the run stops by itself.
import http from 'node:http';
import { rssMb } from '../lib/proc';
import { percentile } from '../lib/stats';

export interface SoakWorkerConfig {
  kind: 'cluster-sim' | 'annotation-sim';
  url: string;
  /** The simulator's process id, whose VmRSS is sampled. */
  pid: number;
  seconds: number;
  windowSeconds: number;
  rssEverySeconds: number;
  /** Operations a second over all connections (an operation is one to five requests). */
  rate: number;
  concurrency: number;
  /** annotation-sim: the webhook receiver's URL and secret. */
  hook?: string;
  secret?: string;
  seed: number;
}

/** Request classes: emulated-API reads, emulated-API writes, control-plane calls. */
type Cls = 'read' | 'write' | 'control';
const CLASSES: Cls[] = ['read', 'write', 'control'];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Window {
  index: number;
  requests: number;
  /** 5xx without X-Sim-Reason, connection errors and timeouts. */
  errors: number;
  /** 5xx with X-Sim-Reason (the soak's own fault rules answer so). */
  simReason5xx: number;
  /** Answers other than the operation expected (4xx included); not errors, but a sign the mix went wrong. */
  unexpected: number;
  statuses: Record<string, number>;
  latencies: number[];
  byClass: Record<Cls, number[]>;
  rss: number[];
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as SoakWorkerConfig;
for (const u of [cfg.url, cfg.hook]) {
  if (u !== undefined && new URL(u).hostname !== '127.0.0.1')
    throw new Error(`bench traffic stays on 127.0.0.1, not ${u}`);
}
// An idle timeout of its own makes Node's agent honour the server's `Keep-Alive: timeout` hint (it only
// shortens a timeout it has): idle sockets close before the server closes them, not as a request goes out.
const agent = new http.Agent({ keepAlive: true, maxSockets: cfg.concurrency + 2, timeout: 120_000 });
const REQUEST_TIMEOUT_MS = 10_000;
const emit = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small seeded generator (mulberry32): the same mix for the same seed. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function send(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const h: Record<string, string> = { ...AUTH, ...headers };
    if (text !== undefined) {
      h['content-type'] = 'application/json';
      h['content-length'] = String(Buffer.byteLength(text));
    }
    const req = http.request(
      `${cfg.url}${path}`,
      { method, headers: h, agent, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(text);
  });
}

// ---- windows and samples ----
const T0 = performance.now();
let loadStart = 0;
const seconds = () => (performance.now() - (loadStart || T0)) / 1000;
const newWindow = (index: number): Window => ({
  index,
  requests: 0,
  errors: 0,
  simReason5xx: 0,
  unexpected: 0,
  statuses: {},
  latencies: [],
  byClass: { read: [], write: [], control: [] },
  rss: [],
});
let current = newWindow(0);
const samples: [number, number][] = [];
const errorSamples: string[] = [];
const unexpectedSamples: string[] = [];
const rssNow = () => Math.round(rssMb(cfg.pid) * 10) / 10;
function sampleRss(): number {
  const mb = rssNow();
  samples.push([Math.round(seconds() * 10) / 10, mb]);
  current.rss.push(mb);
  return mb;
}

/** One measured request: its latency goes to the current window; answers are classified. */
async function call(
  cls: Cls,
  method: string,
  path: string,
  expect: number[],
  body?: unknown,
  headers?: Record<string, string>,
): Promise<Answer | undefined> {
  const t = performance.now();
  let answer: Answer;
  try {
    answer = await send(method, path, body, headers);
  } catch (err) {
    const w = current;
    w.requests++;
    w.errors++;
    w.statuses.error = (w.statuses.error ?? 0) + 1;
    if (errorSamples.length < 20)
      errorSamples.push(`${seconds().toFixed(1)} s ${method} ${path}: ${(err as Error).message}`);
    return undefined;
  }
  const ms = performance.now() - t;
  const w = current;
  w.requests++;
  w.latencies.push(ms);
  w.byClass[cls].push(ms);
  w.statuses[answer.status] = (w.statuses[answer.status] ?? 0) + 1;
  if (answer.status >= 500) {
    if (answer.headers['x-sim-reason'] !== undefined) w.simReason5xx++;
    else {
      w.errors++;
      if (errorSamples.length < 20)
        errorSamples.push(
          `${seconds().toFixed(1)} s ${method} ${path}: ${answer.status} ${answer.body.slice(0, 300)}`,
        );
    }
  }
  if (!expect.includes(answer.status)) {
    w.unexpected++;
    if (unexpectedSamples.length < 20)
      unexpectedSamples.push(
        `${seconds().toFixed(1)} s ${method} ${path}: ${answer.status} (expected ${expect.join('/')}) ${answer.body.slice(0, 300)}`,
      );
  }
  return answer;
}

/** An unmeasured request for setup and per-window counters; throws on an answer it does not expect. */
async function probe<T = Record<string, unknown>>(
  method: string,
  path: string,
  expect: number,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<T> {
  const a = await send(method, path, body, headers);
  if (a.status !== expect)
    throw new Error(`${method} ${path}: ${a.status} (expected ${expect}) ${a.body.slice(0, 500)}`);
  return (a.body ? JSON.parse(a.body) : {}) as T;
}

const parse = (a: Answer | undefined): Record<string, unknown> | undefined => {
  if (!a || a.status >= 300 || !a.body) return undefined;
  try {
    return JSON.parse(a.body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

// ---- the mixes ----
type Op = (vu: VuState) => Promise<void>;
interface VuState {
  i: number;
  n: number;
  rnd: () => number;
  /** annotation-sim: tasks this connection created and not yet deleted (at most 3 at a time). */
  ring: number[];
  toggle: boolean;
}

const FAULT_HEADER = 'x-soak-fault';
/** A fault rule matching only the probe that follows it (its own header value), fired once, then deleted. */
function faultRule(id: string, path: string) {
  return {
    id,
    description: 'soak: one injected 503 on a probe request',
    match: { method: 'GET', path, headers: { [FAULT_HEADER]: id } },
    trigger: { times: 1 },
    effect: { http: { status: 503, headers: { 'x-sim-reason': 'soak-fault' }, body: { soak: id } } },
  };
}
async function faultCycle(vu: VuState, path: string) {
  const id = `soak-${vu.i}-${vu.n}`;
  const added = await call('control', 'POST', '/_sim/faults', [201], faultRule(id, path));
  if (!added) return;
  await call('read', 'GET', path, [503], undefined, { [FAULT_HEADER]: id });
  await call('control', 'GET', '/_sim/faults', [200]);
  await call('control', 'DELETE', `/_sim/faults/${id}`, [204]);
}

/** A namespace seeded, used and deleted: one per connection at a time, so at most `concurrency` extra. */
async function namespaceCycle(vu: VuState, seed: unknown, path: string) {
  const ns = `soak-${vu.i}-${vu.n}`;
  const h = { 'x-sim-namespace': ns };
  const seeded = await call('control', 'POST', '/_sim/seed', [201], seed, h);
  if (seeded) await call('read', 'GET', path, [200], undefined, h);
  await call('control', 'GET', '/_sim/namespaces', [200]);
  // Deleted even if the seed failed half-way: the namespace may exist.
  await call('control', 'DELETE', `/_sim/namespaces/${ns}`, [204, 404]);
}

let AUTH: Record<string, string> = {};
let hookId = 0;

// cluster-sim
const LOC = '/v1beta1/projects/p/locations/l';
const clusterOf = (vu: VuState) => `${LOC}/clusters/c${vu.i}`;
const poolOf = (vu: VuState) => `${clusterOf(vu)}/nodePools/np`;
const clusterSeed = (names: string[]) => ({
  clusters: names.map((name) => ({ projectId: 'p', location: 'l', name, nodePools: [{ name: 'np' }] })),
});
const IMAGES = ['UBUNTU_CONTAINERD', 'COS_CONTAINERD'];

const clusterOps: [number, Op][] = [
  [28, async (vu) => void (await call('read', 'GET', poolOf(vu), [200]))],
  [12, async (vu) => void (await call('read', 'GET', `${clusterOf(vu)}/nodePools`, [200]))],
  [5, async (vu) => void (await call('read', 'GET', clusterOf(vu), [200]))],
  [3, async () => void (await call('read', 'GET', `${LOC}/clusters`, [200]))],
  // The client cycle: read the etag, update with it, poll, advance the clock, poll DONE.
  [
    18,
    async (vu) => {
      const pool = parse(await call('read', 'GET', poolOf(vu), [200]));
      if (!pool) return;
      vu.toggle = !vu.toggle;
      const op = parse(
        await call('write', 'PUT', poolOf(vu), [200], {
          imageType: IMAGES[vu.toggle ? 1 : 0],
          etag: pool.etag,
        }),
      );
      if (!op) return;
      const opPath = `${LOC}/operations/${op.name}`;
      await call('read', 'GET', opPath, [200]);
      await call('control', 'POST', '/_sim/clock/advance', [200], { by: '5m' });
      const done = parse(await call('read', 'GET', opPath, [200]));
      if (done && done.status !== 'DONE') {
        current.unexpected++;
        if (unexpectedSamples.length < 20)
          unexpectedSamples.push(`operation ${op.name} is ${String(done.status)} after the clock moved`);
      }
    },
  ],
  // A stale etag: Google's ABORTED (409).
  [
    5,
    async (vu) =>
      void (await call('write', 'PUT', poolOf(vu), [409], { nodeVersion: '-', etag: 'c3RhbGU=' })),
  ],
  [3, async () => void (await call('control', 'POST', '/_sim/clock/advance', [200], { by: '1m' }))],
  [4, async () => void (await call('control', 'GET', '/_sim/clock', [200]))],
  [
    8,
    async (vu) =>
      void (await call(
        'control',
        'GET',
        vu.rnd() < 0.5
          ? '/_sim/journal?limit=20&method=PUT'
          : '/_sim/journal?limit=50&operation=nodePools.get',
        [200],
      )),
  ],
  [5, async (vu) => faultCycle(vu, poolOf(vu))],
  [5, async (vu) => namespaceCycle(vu, clusterSeed(['c0']), `${LOC}/clusters/c0/nodePools/np`)],
];

async function setupCluster() {
  AUTH = { authorization: 'Bearer bench' };
  await probe(
    'POST',
    '/_sim/seed',
    201,
    clusterSeed(Array.from({ length: cfg.concurrency }, (_, i) => `c${i}`)),
  );
  // Operations end when the soak moves the clock (POST /_sim/clock/advance), as a test's would.
  await probe('PUT', '/_sim/clock', 200, { mode: 'manual' });
}

async function clusterCounters() {
  const journal = await probe<{ stats: unknown }>('GET', '/_sim/journal?limit=1', 200);
  const ns = await probe<{ namespaces: string[] }>('GET', '/_sim/namespaces', 200);
  return { journal: journal.stats, namespaces: ns.namespaces.length };
}

// annotation-sim
const HOOKED_PROJECT = 1;
const ownTask = (vu: VuState) => vu.i + 1;
const annotationSeed = (tasks: number) => ({
  users: [{ username: 'bench', password: 'bench-pw', token: 'bench-token' }],
  projects: [{ name: 'soak-hooked', owner: 'bench' }],
  tasks: Array.from({ length: tasks }, (_, i) => ({
    name: `soak-t${i}`,
    owner: 'bench',
    project: 'soak-hooked',
    size: 10,
    segment_size: 10,
  })),
});
function clientEvents(vu: VuState) {
  const now = new Date().toISOString();
  return {
    timestamp: now,
    events: Array.from({ length: 5 }, (_, k) => ({
      scope: k % 2 ? 'zoom:image' : 'click:element',
      obj_name: 'button',
      timestamp: now,
      payload: JSON.stringify({ vu: vu.i, n: vu.n, k }),
    })),
  };
}

const annotationOps: [number, Op][] = [
  [18, async (vu) => void (await call('read', 'GET', `/api/tasks/${ownTask(vu)}`, [200]))],
  [8, async () => void (await call('read', 'GET', '/api/tasks?page=1&page_size=10', [200]))],
  [4, async () => void (await call('read', 'GET', `/api/projects/${HOOKED_PROJECT}`, [200]))],
  [2, async () => void (await call('read', 'GET', `/api/webhooks/${hookId}`, [200]))],
  // update:task → a delivery
  [
    18,
    async (vu) =>
      void (await call('write', 'PATCH', `/api/tasks/${ownTask(vu)}`, [200], {
        name: `soak-${vu.i}-${vu.n}`,
      })),
  ],
  // create:task, and delete:task of the oldest past 3: deliveries; the tasks stay bounded
  [
    10,
    async (vu) => {
      const t = parse(
        await call('write', 'POST', '/api/tasks', [201], {
          name: `soak-new-${vu.i}-${vu.n}`,
          project_id: HOOKED_PROJECT,
        }),
      );
      if (t && typeof t.id === 'number') vu.ring.push(t.id);
      if (vu.ring.length > 3) await call('write', 'DELETE', `/api/tasks/${vu.ring.shift()}`, [204]);
    },
  ],
  // a project of its own (no webhook): created, renamed, deleted
  [
    4,
    async (vu) => {
      const p = parse(
        await call('write', 'POST', '/api/projects', [201], { name: `soak-p-${vu.i}-${vu.n}` }),
      );
      if (!p) return;
      await call('write', 'PATCH', `/api/projects/${p.id}`, [200], { name: `soak-p-${vu.i}-${vu.n}-x` });
      await call('write', 'DELETE', `/api/projects/${p.id}`, [204]);
    },
  ],
  // update:project → a delivery
  [
    2,
    async (vu) =>
      void (await call('write', 'PATCH', `/api/projects/${HOOKED_PROJECT}`, [200], {
        bug_tracker: `https://tracker.invalid/soak/${vu.i}/${vu.n}`,
      })),
  ],
  [10, async (vu) => void (await call('write', 'POST', '/api/events', [201], clientEvents(vu)))],
  [
    6,
    async (vu) =>
      void (await call(
        'control',
        'GET',
        vu.rnd() < 0.5
          ? '/_sim/journal?limit=20&method=PATCH'
          : '/_sim/journal?limit=50&operation=tasks.retrieve',
        [200],
      )),
  ],
  [3, async () => void (await call('control', 'GET', '/_sim/deliveries/stats', [200]))],
  [2, async () => void (await call('control', 'GET', '/_sim/clock', [200]))],
  [4, async (vu) => faultCycle(vu, `/api/tasks/${ownTask(vu)}`)],
  [4, async (vu) => namespaceCycle(vu, annotationSeed(1), '/api/tasks/1')],
];

async function setupAnnotation() {
  AUTH = { authorization: 'Token bench-token' };
  if (!cfg.hook) throw new Error('annotation-sim needs a webhook receiver');
  await probe('POST', '/_sim/seed', 201, annotationSeed(cfg.concurrency));
  const hook = await probe<{ id: number }>('POST', '/api/webhooks', 201, {
    target_url: cfg.hook,
    type: 'project',
    project_id: HOOKED_PROJECT,
    events: ['create:task', 'update:task', 'delete:task', 'update:project'],
    secret: cfg.secret ?? '',
    content_type: 'application/json',
    enable_ssl: false,
    is_active: true,
  });
  hookId = hook.id;
}

async function annotationCounters() {
  const stats = await probe('GET', '/_sim/deliveries/stats', 200);
  const rows = await probe<{ count: number }>('GET', `/api/webhooks/${hookId}/deliveries?page_size=1`, 200);
  const events = await probe<{ stored: number; dropped: number }>('GET', '/_sim/events', 200);
  const journal = await probe<{ stats: unknown }>('GET', '/_sim/journal?limit=1', 200);
  const ns = await probe<{ namespaces: string[] }>('GET', '/_sim/namespaces', 200);
  return {
    deliveryRows: rows.count,
    deliveries: stats,
    eventsStored: events.stored,
    journal: journal.stats,
    namespaces: ns.namespaces.length,
  };
}

// ---- the run ----
function pickerOf(ops: [number, Op][]): (r: number) => Op {
  const total = ops.reduce((a, [w]) => a + w, 0);
  return (r) => {
    let x = r * total;
    for (const [w, op] of ops) {
      x -= w;
      if (x < 0) return op;
    }
    return (ops[ops.length - 1] as [number, Op])[1];
  };
}

function summarize(w: Window) {
  const stat = (v: number[]) => ({
    n: v.length,
    p50: Math.round(percentile(v, 50) * 100) / 100,
    p99: Math.round(percentile(v, 99) * 100) / 100,
  });
  const all = stat(w.latencies);
  return {
    index: w.index,
    requests: w.requests,
    errors: w.errors,
    simReason5xx: w.simReason5xx,
    unexpected: w.unexpected,
    statuses: w.statuses,
    p50: all.p50,
    p99: all.p99,
    max: Math.round(w.latencies.reduce((a, v) => Math.max(a, v), 0) * 100) / 100,
    byClass: Object.fromEntries(CLASSES.map((c) => [c, stat(w.byClass[c])])),
    rssEndMb: w.rss[w.rss.length - 1] ?? Number.NaN,
    rssMaxMb: Math.max(...w.rss),
  };
}

async function main() {
  const cluster = cfg.kind === 'cluster-sim';
  if (cluster) await setupCluster();
  else await setupAnnotation();
  const counters = cluster ? clusterCounters : annotationCounters;
  await sleep(1_000);
  const rssBeforeLoadMb = rssNow();
  const countersBefore = await counters();

  const windows = Math.max(1, Math.round(cfg.seconds / cfg.windowSeconds));
  const windowMs = cfg.windowSeconds * 1000;
  loadStart = performance.now();
  current = newWindow(0);
  sampleRss();
  let running = true;
  const sampler = setInterval(sampleRss, cfg.rssEverySeconds * 1000);
  const pick = pickerOf(cluster ? clusterOps : annotationOps);
  const interval = (cfg.concurrency / cfg.rate) * 1000;
  const vus = Array.from({ length: cfg.concurrency }, async (_, i) => {
    const vu: VuState = { i, n: 0, rnd: generator(cfg.seed * 1009 + i + 1), ring: [], toggle: false };
    let next = performance.now() + vu.rnd() * interval;
    while (running) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      if (!running) break;
      // Paced, not catching up: a connection that fell behind does not burst.
      next = Math.max(next + interval, performance.now() - interval);
      vu.n++;
      await pick(vu.rnd())(vu);
    }
  });

  for (let k = 0; k < windows; k++) {
    const end = loadStart + (k + 1) * windowMs;
    await sleep(Math.max(0, end - performance.now()));
    sampleRss();
    const done = current;
    // After the last window: operations in flight finish (each request is bounded by its timeout) into
    // a tail that no window counts.
    current = newWindow(k + 1);
    if (k + 1 === windows) {
      running = false;
      clearInterval(sampler);
    }
    const t = Math.round(seconds());
    const sim = await counters().catch((err: Error) => ({ failed: err.message }));
    emit({ type: 'window', kind: cfg.kind, t, ...summarize(done), sim });
  }
  const tail = current;
  await Promise.all(vus);
  agent.destroy();
  const countersAfter = await counters().catch((err: Error) => ({ failed: err.message }));
  emit({
    type: 'result',
    kind: cfg.kind,
    setupSeconds: Math.round(((loadStart - T0) / 1000) * 10) / 10,
    loadSeconds: Math.round(seconds() * 10) / 10,
    rssBeforeLoadMb,
    countersBefore,
    countersAfter,
    afterLastWindow: { requests: tail.requests, errors: tail.errors },
    samples,
    errorSamples,
    unexpectedSamples,
  });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
