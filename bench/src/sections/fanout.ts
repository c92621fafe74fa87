import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json, RawConnection } from '../lib/http';
import { stop, track } from '../lib/proc';
import { percentile } from '../lib/stats';
import { BENCH_DIR, launch, type Running } from '../lib/targets';
import { CVAT_AUTH } from './throughput';

const SECRET = 'bench-webhook-secret';
const now = () => performance.timeOrigin + performance.now();

interface Report {
  received: number;
  badSignature: number;
  duplicates: number;
  unparsed: number;
  receipts: [number, number][];
  sample: string | null;
  /** The first request's raw headers (name, value, ...), as the receiver got them. */
  sampleHeaders: string[] | null;
  first: number;
  last: number;
}

interface FanoutSide {
  count: number;
  received: number;
  lost: number;
  duplicates: number;
  badSignature: number;
  perSecond: number;
  p50: number;
  p99: number;
  seconds: number;
}

function ask(child: ChildProcess, type: string): Promise<Report> {
  return new Promise((resolve) => {
    const onMessage = (m: Report & { type: string }) => {
      if (m.type === type) {
        child.off('message', onMessage);
        resolve(m);
      }
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}

function summarize(count: number, starts: Map<number, number>, report: Report, t0: number): FanoutSide {
  const latencies: number[] = [];
  for (const [seq, t] of report.receipts) {
    const s = starts.get(seq);
    if (s !== undefined) latencies.push(t - s);
  }
  if (process.env.BENCH_FANOUT_TRACE) {
    const pts = [...report.receipts].sort((a, b) => a[0] - b[0]);
    const step = Math.max(1, Math.floor(pts.length / 12));
    for (let k = 0; k < pts.length; k += step) {
      const [seq, t] = pts[k] as [number, number];
      console.log(
        `trace seq ${seq}: start +${((starts.get(seq) ?? 0) - t0).toFixed(0)} ms, latency ${(t - (starts.get(seq) ?? 0)).toFixed(0)} ms`,
      );
    }
  }
  const seconds = (report.last - t0) / 1000;
  return {
    count,
    received: report.received,
    lost: count - report.receipts.filter(([seq]) => starts.has(seq)).length,
    duplicates: report.duplicates,
    badSignature: report.badSignature,
    perSecond: report.received / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    seconds,
  };
}

/** Polls the receiver's count (cheap) until `count` arrived or time is up, then takes its full report. */
async function waitReceived(receiver: ChildProcess, count: number, timeoutMs: number): Promise<Report> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await ask(receiver, 'count');
    if (r.received >= count || Date.now() > deadline) return ask(receiver, 'report');
    await new Promise((res) => setTimeout(res, 50));
  }
}

/**
 * Runs `fanout-bare.mjs` (forked, tracked): its warm-up, then `between` (the receiver is reset), then the
 * measured loop. Rejects if it fails or takes longer than `timeoutMs`.
 */
function runBare(
  args: string[],
  between: () => Promise<void>,
  timeoutMs: number,
): Promise<{ starts: [number, number][]; errors: number }> {
  const child = track(
    fork(join(BENCH_DIR, 'src/servers/fanout-bare.mjs'), args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    }),
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 20_000) stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    let result: { starts: [number, number][]; errors: number } | undefined;
    child.on('message', (m: { type: string; starts?: [number, number][]; errors?: number }) => {
      if (m.type === 'warm')
        between().then(
          () => child.send({ type: 'go' }),
          (err) => {
            child.kill('SIGKILL');
            reject(err);
          },
        );
      else if (m.type === 'done') result = { starts: m.starts ?? [], errors: m.errors ?? 0 };
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (result) resolve(result);
      else
        reject(
          new Error(`fanout-bare.mjs exited ${code ?? signal} without a result: ${stderr.slice(-2000)}`),
        );
    });
  });
}

/**
 * Figure 5: `count` task updates (PATCH over the API, `concurrency` tasks each in its own project with
 * its own webhook, so the simulator has `concurrency` deliveries in flight) to a receiver in another
 * process, against a bare loop POSTing the same signed bodies with the same concurrency.
 */
async function fanoutRound(opts: { count: number; concurrency: number; log: (s: string) => void }) {
  const receiver = track(
    fork(join(BENCH_DIR, 'src/servers/receiver.mjs'), [SECRET, '0'], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  let sim: Running | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'sims-bench-'));
  try {
    const [ready] = (await once(receiver, 'message')) as [{ port: number }];
    const hook = `http://127.0.0.1:${ready.port}/hook`;
    sim = await launch('annotation-sim');
    const projects = Array.from({ length: opts.concurrency }, (_, i) => ({ name: `p${i}`, owner: 'bench' }));
    const tasks = projects.map((p, i) => ({
      name: `bench-init-${i}`,
      owner: 'bench',
      project: p.name,
      size: 10,
      segment_size: 10,
    }));
    await json(`${sim.url}/_sim/seed`, {
      method: 'POST',
      body: { users: [{ username: 'bench', password: 'bench-pw', token: 'bench-token' }], projects, tasks },
    });
    for (let i = 0; i < opts.concurrency; i++) {
      await json(`${sim.url}/api/webhooks`, {
        method: 'POST',
        headers: CVAT_AUTH,
        expect: 201,
        body: {
          target_url: hook,
          type: 'project',
          project_id: i + 1,
          events: ['update:task'],
          secret: SECRET,
          content_type: 'application/json',
          enable_ssl: false,
          is_active: true,
        },
      });
    }
    // One keep-alive connection per writer, each PATCH written as prepared bytes (RawConnection: the
    // generator shares the 2 cores with the simulator and the receiver, so it should cost little).
    const connections = await Promise.all(
      Array.from({ length: opts.concurrency }, () => RawConnection.open(sim?.url ?? '')),
    );
    const host = new URL(sim.url).host;
    const patchName = async (taskId: number, name: string) => {
      const body = JSON.stringify({ name });
      const conn = connections[taskId - 1] as RawConnection;
      const status = await conn.send(
        `PATCH /api/tasks/${taskId} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${CVAT_AUTH.authorization}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      if (status !== 200) throw new Error(`PATCH ${status}`);
    };
    const patch = (taskId: number, seq: number) => patchName(taskId, `bench-${seq}`);

    // Warm-up (not measured): the simulator's JIT and sockets, like the throughput runs' warm-up. The
    // names do not match the receiver's `bench-<seq>`, and the engine is drained before measuring. 5,000
    // updates: after 1,000, V8 still finished ~450 optimizing compiles on its background threads during
    // the 10,000 measured ones (~45 µs of CPU an update on the 2 shared cores), and the receiver, which
    // serves the simulator first, was still warming up too. The bare loop gets as many.
    const warm = Math.min(5_000, Math.ceil(opts.count / 2));
    let w = 0;
    await Promise.all(
      Array.from({ length: opts.concurrency }, async (_, k) => {
        while (w < warm) {
          const i = w++;
          await patchName(k + 1, `warm-up-${i}`);
        }
      }),
    );
    await json(`${sim.url}/_sim/deliveries/idle`, { method: 'POST', body: {} });
    await waitReceived(receiver, warm, 30_000);

    // The simulator: one sequential writer per task, all tasks at once.
    await ask(receiver, 'reset');
    const starts = new Map<number, number>();
    let next = 0;
    const t0 = now();
    await Promise.all(
      Array.from({ length: opts.concurrency }, async (_, w) => {
        while (next < opts.count) {
          const seq = next++;
          starts.set(seq, now());
          await patch(w + 1, seq);
        }
      }),
    );
    for (const c of connections) c.close();
    const simReport = await waitReceived(receiver, opts.count, 120_000);
    const simSide = summarize(opts.count, starts, simReport, t0);
    opts.log(
      `  simulator: ${simSide.received}/${opts.count} in ${simSide.seconds.toFixed(2)} s, p99 ${simSide.p99.toFixed(1)} ms`,
    );
    const stats = await json<{ queued: number; inFlight: number }>(`${sim.url}/_sim/deliveries/stats`);

    // The bare loop: the same signed bodies (one the simulator sent) with the same headers in the same
    // order (so the same `Connection: keep-alive` and the same close by the sender), the same
    // concurrency, and the same warm-up as the simulator had; its clock starts at its first POST (the
    // simulator's at its first PATCH), not at the spawn of its process.
    const sample = simReport.sample ?? '';
    const templatePath = join(dir, 'payload.json');
    const headersPath = join(dir, 'headers.json');
    writeFileSync(templatePath, sample);
    writeFileSync(headersPath, JSON.stringify(simReport.sampleHeaders ?? []));
    await ask(receiver, 'reset');
    const bare = await runBare(
      [hook, SECRET, String(opts.count), String(opts.concurrency), templatePath, headersPath, String(warm)],
      async () => {
        await waitReceived(receiver, warm, 30_000);
        await ask(receiver, 'reset');
      },
      300_000,
    );
    const bareReport = await waitReceived(receiver, opts.count, 30_000);
    const bareT0 = Math.min(...bare.starts.map(([, t]) => t));
    const bareSide = summarize(opts.count, new Map(bare.starts), bareReport, bareT0);
    opts.log(
      `  bare loop: ${bareSide.received}/${opts.count} in ${bareSide.seconds.toFixed(2)} s, p99 ${bareSide.p99.toFixed(1)} ms`,
    );
    return {
      concurrency: opts.concurrency,
      payloadBytes: Buffer.byteLength(sample),
      simulator: simSide,
      bare: { ...bareSide, errors: bare.errors },
      engineAfter: stats,
    };
  } finally {
    if (sim) await stop(sim.child);
    receiver.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Figure 5 over `rounds` rounds, each with a fresh simulator and its own bare loop right after it (the
 * machine's speed drifts between rounds by more than the difference being measured): the round whose
 * ratio is the median is reported whole, with every round's rates and ratio beside it.
 */
export async function fanout(opts: {
  count: number;
  concurrency: number;
  rounds: number;
  log: (s: string) => void;
}) {
  const rounds: Awaited<ReturnType<typeof fanoutRound>>[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    if (opts.rounds > 1) opts.log(`  round ${i + 1}/${opts.rounds}`);
    rounds.push(await fanoutRound(opts));
  }
  const ratio = (r: (typeof rounds)[number]) => r.simulator.perSecond / r.bare.perSecond;
  const sorted = [...rounds].sort((a, b) => ratio(a) - ratio(b));
  const median = sorted[Math.floor((sorted.length - 1) / 2)] as (typeof rounds)[number];
  return {
    ...median,
    rounds: rounds.map((r) => ({
      simulatorPerSecond: r.simulator.perSecond,
      barePerSecond: r.bare.perSecond,
      ratio: ratio(r),
      lost: r.simulator.lost,
      badSignature: r.simulator.badSignature,
    })),
  };
}
