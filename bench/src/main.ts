// `pnpm bench` (full, under 10 minutes) and `pnpm bench:quick` (smoke: tiny counts, asserts no timing).
// Options: --quick, --cvat-schema <path to CVAT's OpenAPI schema> (runs Prism; "not run" without it),
// --only <figure,...> (1-13; default 1-7 and 9-13, and 1-13 with --quick), --out <results dir>, --fanout <updates>,
// --events <count>, --soak-minutes <n> (figure 8, default 10; --quick: 10 s), --soak-rate <operations/s>,
// --namespaces <count> (figure 9: the curve's last point, default 10,000; --quick: 100),
// --seeding <sizes> (figure 10: items per namespace, default 1000,2000,4000,8000,16000; --quick: 100,200,400),
// --grpc-concurrency <n> (figure 11's callers, default 16),
// --render <results.json | results dir> (only re-renders BENCHMARKS.md's generated block).
// Figure 8 (the soak, 10 minutes) runs only when asked for (`--only 8`) in a full run. A full run of some
// figures only (`--only`) writes bench/results/<date>-only-<figures>.json, never <date>.json, and
// BENCHMARKS.md then shows each figure's latest recorded run (see `latestDoc` in report.ts).
// BENCH_CPU_PROF=<dir> runs the simulators' processes under `node --cpu-prof`; BENCH_FANOUT_TRACE=1 prints
// the fan-out's latency along the run.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PRISM_VERSION, setupPrism } from './lib/prism';
import { installCleanup, killAll, run } from './lib/proc';
import { spread } from './lib/stats';
import { BENCH_DIR, checkBuilt, type Kind, type PrismSetup, REPO } from './lib/targets';
import { latestDoc, renderMarkdown, writeBenchmarksMd } from './report';
import { coldStart } from './sections/cold';
import { datasetExportFigure } from './sections/dataset-export';
import { eventLog } from './sections/eventlog';
import { fanout } from './sections/fanout';
import { grpcFigure } from './sections/grpc';
import { memory } from './sections/memory';
import { namespacesFigure } from './sections/namespaces';
import { seedingFigure } from './sections/seeding';
import { shapesFigure } from './sections/shapes';
import { soak } from './sections/soak';
import { throughput } from './sections/throughput';

/** Figures 2 and 4 run the simulators' TypeScript sources in-process, as the workspace's tests do. */
const SOURCES = '--conditions=@sims/source';

installCleanup();
const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    'cvat-schema': { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
    fanout: { type: 'string' },
    events: { type: 'string' },
    render: { type: 'string' },
    'soak-minutes': { type: 'string' },
    'soak-rate': { type: 'string' },
    namespaces: { type: 'string' },
    seeding: { type: 'string' },
    'grpc-concurrency': { type: 'string' },
  },
});
const quick = values.quick ?? false;
/** The figures a run without `--only` measures: the 10-minute soak (8) only in the quick smoke run. */
const DEFAULT_FIGURES = quick ? '1,2,3,4,5,6,7,8,9,10,11,12,13' : '1,2,3,4,5,6,7,9,10,11,12,13';
const only = new Set((values.only ?? DEFAULT_FIGURES).split(',').map((s) => s.trim()));
/** A full run of fewer figures than the default set: recorded beside the complete runs, not over them. */
const partial = !quick && DEFAULT_FIGURES.split(',').some((f) => !only.has(f));
const T0 = performance.now();
const log = (s: string) =>
  console.log(`[${((performance.now() - T0) / 1000).toFixed(0).padStart(4)} s] ${s}`);

/** A relative schema path is tried against the repository root (pnpm's cwd) and then this package's. */
function schemaPath(p: string | undefined): string | undefined {
  if (!p) return undefined;
  const candidates = isAbsolute(p) ? [p] : [resolve(REPO, p), resolve(process.cwd(), p)];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`--cvat-schema ${p}: not found (tried ${candidates.join(', ')})`);
  return found;
}

function versionOf(pkg: string): string {
  try {
    const file = join(BENCH_DIR, 'node_modules', pkg, 'package.json');
    return JSON.parse(readFileSync(file, 'utf8')).version;
  } catch {
    return '?';
  }
}

function javaVersion(): string {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return `${r.stderr ?? ''}${r.stdout ?? ''}`.split('\n')[0]?.trim() || '?';
}

async function main() {
  if (values.render) {
    // Re-renders BENCHMARKS.md's generated block (no measuring): from one results file as it is, or from
    // a results directory, each figure's latest recorded run (as a full run writes it).
    const given = values.render;
    const path = isAbsolute(given)
      ? given
      : ([resolve(REPO, given), resolve(process.cwd(), given)].find((c) => existsSync(c)) ?? resolve(given));
    const doc = statSync(path).isDirectory() ? latestDoc(path) : JSON.parse(readFileSync(path, 'utf8'));
    if (!doc) throw new Error(`--render ${path}: no results files there`);
    writeBenchmarksMd(join(REPO, 'BENCHMARKS.md'), renderMarkdown(doc));
    return;
  }
  checkBuilt();
  const cfg = quick
    ? {
        coldRuns: 2,
        coldRunsJvm: 1,
        warmRuns: 5,
        rounds: 1,
        seconds: 1,
        warmup: 0.5,
        cycleRounds: 1,
        cycleSeconds: 1,
        fanout: 300,
        events: 20_000,
        fill: 2_000,
        soakSeconds: 10,
        soakWindowSeconds: 2,
        soakRssEverySeconds: 1,
        soakRate: 100,
        soakConcurrency: 8,
        namespaceCounts: [10, 100],
        // The smoke run's figure 9 took 90 of its ~190 s: two rounds (the fewest its ratio compares) of 100
        // and 30 busy namespaces run the same code in a third of that (decision 0022).
        namespaceRoundCount: 100,
        namespaceRounds: 2,
        namespaceBusyCount: 30 as number | undefined,
        seedingSizes: [100, 200, 400],
        shapes: 2_000,
        shapeRounds: 2,
        exportShapes: 2_000,
        exportRounds: 2,
      }
    : {
        coldRuns: 10,
        coldRunsJvm: 3,
        warmRuns: 30,
        rounds: 5,
        seconds: 5,
        warmup: 1,
        cycleRounds: 3,
        cycleSeconds: 4,
        fanout: 10_000,
        events: 1_000_000,
        fill: 12_000,
        soakSeconds: 600,
        soakWindowSeconds: 60,
        soakRssEverySeconds: 5,
        soakRate: 100,
        soakConcurrency: 8,
        namespaceCounts: [10, 100, 1_000, 10_000],
        namespaceRoundCount: 3_000,
        namespaceRounds: 3,
        // The figure's own default: 1,000, at most the curve's last count.
        namespaceBusyCount: undefined,
        seedingSizes: [1_000, 2_000, 4_000, 8_000, 16_000],
        shapes: 100_000,
        shapeRounds: 5,
        exportShapes: 100_000,
        exportRounds: 5,
      };
  if (values.fanout) cfg.fanout = Number(values.fanout);
  if (values.events) cfg.events = Number(values.events);
  if (values['soak-minutes']) cfg.soakSeconds = Math.round(Number(values['soak-minutes']) * 60);
  if (values['soak-rate']) cfg.soakRate = Number(values['soak-rate']);
  if (values.namespaces) {
    const last = Number(values.namespaces);
    if (!(last >= 10)) throw new Error('--namespaces must be >= 10');
    cfg.namespaceCounts = [10, 100, 1_000, 10_000].filter((c) => c < last).concat(last);
  }
  if (values.seeding) {
    cfg.seedingSizes = values.seeding.split(',').map(Number);
    if (!cfg.seedingSizes.every((c) => Number.isInteger(c) && c > 0))
      throw new Error('--seeding takes item counts, e.g. 1000,2000,4000');
  }
  if (!(cfg.soakSeconds > 0 && cfg.soakRate > 0))
    throw new Error('--soak-minutes and --soak-rate must be > 0');
  const schema = schemaPath(values['cvat-schema']);
  let prism: PrismSetup | undefined;
  let prismNote = 'not run: no --cvat-schema given';
  if (schema) {
    prism = await setupPrism(schema, log);
    prismNote = `run with ${basename(schema)}`;
  }
  const results: Record<string, unknown> = {};
  const startedAt = new Date();
  const load0 = loadavg();
  const machine = {
    cpu: cpus()[0]?.model ?? '?',
    cores: cpus().length,
    memGb: Math.round(totalmem() / 2 ** 30),
    kernel: readFileSync('/proc/version', 'utf8').split(' ').slice(0, 3).join(' '),
    loadAvgAtStart: load0,
  };
  const versions = {
    node: process.version,
    java: javaVersion(),
    wiremock: versionOf('wiremock'),
    autocannon: versionOf('autocannon'),
    hono: versionOf('hono'),
    '@hono/node-server': versionOf('@hono/node-server'),
    prism: prism ? PRISM_VERSION : 'not run',
    prismNode: prism ? (await run(prism.node, ['-v'], 10_000)).trim() : 'not run',
    git: (() => {
      try {
        return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
      } catch {
        return '?';
      }
    })(),
  };
  log(
    `${quick ? 'quick' : 'full'} bench on ${machine.cores} × ${machine.cpu}, load ${load0.map((x) => x.toFixed(2)).join(' ')}; Prism ${prismNote}`,
  );

  if (only.has('1')) {
    log('1. cold start (spawn to first 200)');
    const kinds: Kind[] = ['node-http', 'hono', 'cluster-sim', 'annotation-sim', 'wiremock'];
    if (prism) kinds.push('prism');
    results.coldStart = await coldStart(
      kinds,
      {
        'node-http': cfg.coldRuns,
        hono: cfg.coldRuns,
        'cluster-sim': cfg.coldRuns,
        'annotation-sim': cfg.coldRuns,
        wiremock: cfg.coldRunsJvm,
        prism: cfg.coldRunsJvm,
      },
      prism,
    );
  }
  if (only.has('2')) {
    log('2. warm in-process start');
    const out = await run(
      process.execPath,
      ['--import', 'tsx', SOURCES, join(BENCH_DIR, 'src/workers/warm.ts'), String(cfg.warmRuns)],
      300_000,
      { cwd: BENCH_DIR },
    );
    const raw = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, number[]>;
    results.warmStart = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, spread(v)]));
  }
  if (only.has('3')) {
    log('3. throughput (autocannon, 50 connections)');
    results.throughput = await throughput({
      rounds: cfg.rounds,
      seconds: cfg.seconds,
      warmupSeconds: cfg.warmup,
      prism,
      log,
    });
  }
  if (only.has('4')) {
    log('4. client cycle under the manual clock');
    const out = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        SOURCES,
        join(BENCH_DIR, 'src/workers/cycle.ts'),
        String(cfg.cycleRounds),
        String(cfg.cycleSeconds),
      ],
      300_000,
      { cwd: BENCH_DIR },
    );
    const raw = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { perSecond: number[] };
    results.cycle = { perSecond: spread(raw.perSecond) };
  }
  if (only.has('5')) {
    log(`5. webhook fan-out (${cfg.fanout} task updates)`);
    results.fanout = await fanout({ count: cfg.fanout, concurrency: 4, rounds: cfg.rounds, log });
  }
  if (only.has('6')) {
    log(`6. event log (${cfg.events} events)`);
    results.eventLog = await eventLog({ count: cfg.events, log });
  }
  if (only.has('7')) {
    log('7. memory');
    results.memory = await memory({ fill: cfg.fill });
  }
  if (only.has('8')) {
    log(`8. soak (${cfg.soakSeconds} s, both simulators at once)`);
    results.soak = await soak({
      seconds: cfg.soakSeconds,
      windowSeconds: cfg.soakWindowSeconds,
      rssEverySeconds: cfg.soakRssEverySeconds,
      rate: cfg.soakRate,
      concurrency: cfg.soakConcurrency,
      log,
    });
  }
  if (only.has('9')) {
    log(
      `9. namespaces (10 → ${cfg.namespaceCounts.at(-1)}; ${cfg.namespaceRounds} rounds of ${cfg.namespaceRoundCount})`,
    );
    results.namespaces = await namespacesFigure({
      counts: cfg.namespaceCounts,
      roundCount: cfg.namespaceRoundCount,
      rounds: cfg.namespaceRounds,
      busyCount: cfg.namespaceBusyCount,
      connections: 4,
      log,
    });
  }
  if (only.has('10')) {
    log(`10. seeding and importing (${cfg.seedingSizes.join(', ')} items per namespace)`);
    // Warmed up by a run of the first size, so that the baseline of the ratios is a steady state too.
    const warmup = cfg.seedingSizes[0] ?? 0;
    results.seeding = await seedingFigure({ sizes: cfg.seedingSizes, warmup, log });
  }
  if (only.has('11')) {
    const concurrency = Number(values['grpc-concurrency'] ?? 16);
    log(`11. gRPC beside REST (${concurrency} callers)`);
    results.grpc = await grpcFigure({
      rounds: cfg.rounds,
      seconds: cfg.seconds,
      warmupSeconds: cfg.warmup,
      concurrency,
      log,
    });
  }
  if (only.has('12')) {
    log(`12. a job of ${cfg.shapes} shapes`);
    results.shapes = await shapesFigure({ count: cfg.shapes, rounds: cfg.shapeRounds, log });
  }
  if (only.has('13')) {
    log(`13. a task's dataset export of ${cfg.exportShapes} shapes`);
    results.datasetExport = await datasetExportFigure({
      count: cfg.exportShapes,
      rounds: cfg.exportRounds,
      log,
    });
  }
  const doc = {
    date: startedAt.toISOString(),
    mode: quick ? 'quick' : 'full',
    figures: [...only].sort(),
    seconds: (performance.now() - T0) / 1000,
    machine: { ...machine, loadAvgAtEnd: loadavg() },
    versions,
    prism: prismNote,
    config: cfg,
    results,
  };
  const outDir = values.out ? resolve(values.out) : join(BENCH_DIR, 'results');
  mkdirSync(outDir, { recursive: true });
  const day = startedAt.toISOString().slice(0, 10);
  // <date>.json holds a complete run; a run of some figures only is kept beside it, so that it does not
  // replace the other figures' recorded results.
  const name = quick ? `${day}-quick` : partial ? `${day}-only-${[...only].sort().join('-')}` : day;
  const file = join(outDir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  // BENCHMARKS.md gets full runs only, and only into the repository's results (no --out): each figure
  // from its latest recorded run, this one's first.
  const md = renderMarkdown(quick || values.out ? doc : (latestDoc(outDir, file) ?? doc));
  if (quick || values.out) writeFileSync(join(outDir, quick ? 'BENCHMARKS-quick.md' : 'BENCHMARKS.md'), md);
  else writeBenchmarksMd(join(REPO, 'BENCHMARKS.md'), md);
  console.log(md);
  log(`wrote ${file}${quick || values.out ? '' : ' and BENCHMARKS.md'} in ${doc.seconds.toFixed(0)} s`);
}

main().then(
  () => {
    killAll();
    process.exit(0);
  },
  (err) => {
    console.error(err);
    killAll();
    process.exit(1);
  },
);
