import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { rssMb, start, stop, track } from '../lib/proc';
import { BENCH_DIR, launch, REPO, type Running } from '../lib/targets';
import type { SoakWorkerConfig } from '../workers/soak';

const SECRET = 'bench-soak-secret';
const KINDS = ['cluster-sim', 'annotation-sim'] as const;
type SimKind = (typeof KINDS)[number];

/** The soak's targets (the hardening issue): RSS growth after warm-up, p99 drift, errors. */
const SOAK_TARGETS = {
  /** RSS at the end minus RSS at the end of the warm-up, MB: under this. */
  growthMb: 50,
  /** p99 of the last window over p99 of the first window after the warm-up: at most this. */
  p99Ratio: 1.5,
} as const;

export interface SoakOptions {
  seconds: number;
  windowSeconds: number;
  rssEverySeconds: number;
  rate: number;
  concurrency: number;
  log: (s: string) => void;
}

// biome-ignore lint/suspicious/noExplicitAny: the worker's JSON lines are passed through as they are
type Line = Record<string, any>;

function ask(child: ChildProcess, type: string): Promise<Line> {
  return new Promise((resolve) => {
    const onMessage = (m: Line) => {
      if (m.type === type) {
        child.off('message', onMessage);
        resolve(m);
      }
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}

/** When the simulator's bundle was built: the soak runs the built CLI (`dist/main.js`), as figure 1 does. */
function builtAt(kind: SimKind): string {
  try {
    return statSync(join(REPO, 'apps', kind, 'dist/main.js')).mtime.toISOString();
  } catch {
    return '?';
  }
}

/** Runs the load worker of one simulator and collects its window lines and its result. */
async function drive(
  sim: Running,
  cfg: SoakWorkerConfig,
  onWindow: (w: Line) => Promise<void>,
): Promise<{ windows: Line[]; result: Line }> {
  const child = start(
    process.execPath,
    ['--import', 'tsx', join(BENCH_DIR, 'src/workers/soak.ts'), JSON.stringify(cfg)],
    { cwd: BENCH_DIR },
  );
  const windows: Line[] = [];
  let result: Line | undefined;
  const pending: Promise<void>[] = [];
  const rl = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  rl.on('line', (text) => {
    if (!text.startsWith('{')) return;
    const line = JSON.parse(text) as Line;
    if (line.type === 'window') {
      windows.push(line);
      pending.push(onWindow(line));
    } else if (line.type === 'result') result = line;
  });
  // Bounded: the load's own time, plus set-up and the operations in flight at the end.
  const timer = setTimeout(() => child.kill('SIGKILL'), (cfg.seconds + 120) * 1000);
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  clearTimeout(timer);
  rl.close();
  await Promise.all(pending);
  if (code !== 0 || !result) {
    throw new Error(
      `soak worker for ${sim.name} exited ${code ?? signal}: ${child.stderrText().slice(-2000)}`,
    );
  }
  return { windows, result };
}

/** The figures of one simulator from its windows: RSS after the warm-up vs at the end, p99 drift, errors. */
function summarize(windows: Line[], result: Line, warmupWindows: number, rssEnd: number) {
  const last = windows[windows.length - 1] as Line;
  const warm = warmupWindows > 0 ? (windows[warmupWindows - 1] as Line) : undefined;
  const warmMb: number = warm ? warm.rssEndMb : result.rssBeforeLoadMb;
  const endMb: number = last.rssEndMb;
  const firstSteady = (windows[Math.min(warmupWindows, windows.length - 1)] as Line).p99 as number;
  const lastP99 = last.p99 as number;
  const afterWarm = (result.samples as [number, number][]).filter(([t]) => t >= (warm ? warm.t : 0) - 0.5);
  const sum = (k: string) => windows.reduce((a, w) => a + (w[k] as number), 0);
  return {
    rss: {
      beforeLoadMb: result.rssBeforeLoadMb,
      afterWarmupMb: warmMb,
      endMb,
      maxAfterWarmupMb: afterWarm.reduce((a, [, mb]) => Math.max(a, mb), 0),
      growthMb: Math.round((endMb - warmMb) * 10) / 10,
      afterStopMb: rssEnd,
    },
    p99: {
      firstSteadyMs: firstSteady,
      lastMs: lastP99,
      ratio: Math.round((lastP99 / firstSteady) * 100) / 100,
      stable: lastP99 <= SOAK_TARGETS.p99Ratio * firstSteady,
    },
    requests: sum('requests'),
    errors: sum('errors'),
    simReason5xx: sum('simReason5xx'),
    unexpected: sum('unexpected'),
    met: {
      growth: endMb - warmMb < SOAK_TARGETS.growthMb,
      p99: lastP99 <= SOAK_TARGETS.p99Ratio * firstSteady,
      errors: sum('errors') === 0,
    },
  };
}

/**
 * Figure 8: a soak. Both simulators run at once, each as its own CLI process (the built `dist/main.js`)
 * with its own load worker (another process): `rate` mixed operations a second over `concurrency`
 * keep-alive connections for `seconds`, in windows of `windowSeconds`. annotation-sim's project webhook
 * delivers to a receiver in a third process. RSS is VmRSS from /proc every `rssEverySeconds` and at the
 * end of each window.
 */
export async function soak(opts: SoakOptions) {
  const windows = Math.max(1, Math.round(opts.seconds / opts.windowSeconds));
  // The warm-up: the first two windows (minutes in a full run), fewer in a run too short for them.
  const warmupWindows = windows >= 4 ? 2 : windows >= 2 ? 1 : 0;
  const startedAt = new Date();
  const loadAvgAtStart = loadavg();
  const receiver = track(
    fork(join(BENCH_DIR, 'src/servers/receiver.mjs'), [SECRET, '0'], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  const sims: Partial<Record<SimKind, Running>> = {};
  try {
    const [ready] = (await once(receiver, 'message')) as [{ port: number }];
    const hook = `http://127.0.0.1:${ready.port}/hook`;
    const [cluster, annotation] = await Promise.all([launch('cluster-sim'), launch('annotation-sim')]);
    sims['cluster-sim'] = cluster;
    sims['annotation-sim'] = annotation;
    const idleMb = {
      'cluster-sim': rssMb(cluster.child.pid as number),
      'annotation-sim': rssMb(annotation.child.pid as number),
    };
    opts.log(
      `  ${windows} windows of ${opts.windowSeconds} s (warm-up ${warmupWindows}), ${opts.rate} operations/s over ${opts.concurrency} connections per simulator`,
    );
    const runs = await Promise.all(
      KINDS.map((kind, k) => {
        const sim = sims[kind] as Running;
        const cfg: SoakWorkerConfig = {
          kind,
          url: sim.url,
          pid: sim.child.pid as number,
          seconds: windows * opts.windowSeconds,
          windowSeconds: opts.windowSeconds,
          rssEverySeconds: opts.rssEverySeconds,
          rate: opts.rate,
          concurrency: opts.concurrency,
          seed: k + 1,
          ...(kind === 'annotation-sim' ? { hook, secret: SECRET } : {}),
        };
        return drive(sim, cfg, async (w) => {
          if (kind === 'annotation-sim') w.received = (await ask(receiver, 'count')).received;
          opts.log(
            `  ${kind} window ${w.index + 1}/${windows}: ${w.requests} requests, p50 ${w.p50} ms, p99 ${w.p99} ms, errors ${w.errors}, RSS ${w.rssEndMb} MB${w.received !== undefined ? `, ${w.received} webhooks received` : ''}`,
          );
        });
      }),
    );
    const report = await ask(receiver, 'report');
    const out: Record<string, unknown> = {};
    for (const [k, kind] of KINDS.entries()) {
      const { windows: lines, result } = runs[k] as { windows: Line[]; result: Line };
      const sim = sims[kind] as Running;
      const rssEnd = Math.round(rssMb(sim.child.pid as number) * 10) / 10;
      out[kind] = {
        idleMb: Math.round(idleMb[kind] * 10) / 10,
        ...summarize(lines, result, warmupWindows, rssEnd),
        windows: lines.map(({ type: _t, kind: _k, ...w }) => w),
        setupSeconds: result.setupSeconds,
        countersBefore: result.countersBefore,
        countersAfter: result.countersAfter,
        afterLastWindow: result.afterLastWindow,
        rssSamples: result.samples,
        errorSamples: result.errorSamples,
        unexpectedSamples: result.unexpectedSamples,
        builtAt: builtAt(kind),
        // What the simulator wrote to stderr (a failure it logged would explain an error counted above).
        stderrTail: ((sim.child as { stderrText?: () => string }).stderrText?.() ?? '').slice(-2000),
      };
    }
    return {
      startedAt: startedAt.toISOString(),
      seconds: (Date.now() - startedAt.getTime()) / 1000,
      loadAvgAtStart,
      loadAvgAtEnd: loadavg(),
      config: {
        windows,
        windowSeconds: opts.windowSeconds,
        warmupWindows,
        rssEverySeconds: opts.rssEverySeconds,
        rate: opts.rate,
        concurrency: opts.concurrency,
        targets: SOAK_TARGETS,
      },
      receiver: {
        received: report.received,
        badSignature: report.badSignature,
        duplicates: report.duplicates,
      },
      simulators: out,
    };
  } finally {
    await Promise.all(Object.values(sims).map((s) => stop(s.child)));
    receiver.kill('SIGTERM');
  }
}
