/**
 * The proof, the way a user gets it: every public package of apps/* and packages/* is packed (`pnpm pack`),
 * published to a throwaway Verdaccio on 127.0.0.1, installed with plain `npm install` into a scratch project
 * under the OS temp folder (only the `@sims` scope points at Verdaccio; the rest comes from the public npm
 * registry), and then used there from JavaScript (ESM and CommonJS), from TypeScript under strict NodeNext
 * (plus a file that must not compile), through the CLIs with `npx`, through `verify` on a pact of
 * contracts/pacts, and through @sims/testcontainers when a Docker engine answers.
 *
 * Bounded: every step has its own timeout (its child processes are killed, whole process groups, when it
 * runs out) and all of them share a budget well under 8 minutes. Clean: the registry, every child process,
 * the temp folder and the containers this run labelled are removed in afterAll, even after a failure; and
 * every child runs on a leash (support/leash.mjs) that dies with this process.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { userEnv } from './support/env';
import { type PackageJson, publicPackages, tarballProblems, type WorkspacePackage } from './support/packages';
import {
  atMost,
  describeRun,
  expectExit,
  groupMembers,
  killAll,
  type RunResult,
  run,
  start,
} from './support/proc';
import { installVerdaccio, type Registry, startRegistry } from './support/registry';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const here = fileURLToPath(new URL('../', import.meta.url));
const fixtures = join(here, 'scratch');

/** The packages a user is told to install: they must be public whatever else is. */
const NAMED = ['@sims/cluster-sim', '@sims/annotation-sim', '@sims/sim-client', '@sims/testcontainers'];
/**
 * Exact versions of what the scratch project installs from the public registry: TypeScript, and the two test
 * runners the README's examples use (with the Google client its vitest example drives). pact comes after
 * the step that checks `verify` without it.
 */
const PUBLIC_DEPS = [
  'typescript@5.9.3',
  '@types/node@20.19.43',
  'vitest@4.1.12',
  'jest@30.5.2',
  '@googleapis/container@26.0.0',
];
const PACT = '@pact-foundation/pact@16.5.0';
/** The README's in-process examples, run verbatim in the scratch project: vitest's and jest's. */
const README_EXAMPLES = {
  vitest: 'examples/test/in-process.test.ts',
  jest: 'examples/jest/simulators.test.cjs',
} as const;
const APPS = ['cluster-sim', 'annotation-sim'] as const;
const CLUSTER_IMAGE = process.env.SIMS_CLUSTER_SIM_IMAGE ?? 'sims/cluster-sim:dev';
/** Containers this run starts carry `org.sims.install-test=<RUN>`; afterAll removes exactly those. */
const RUN = `${process.pid}-${Date.now()}`;

// ------------------------------------------------------------------------------------------ time budget

/** The whole file's budget: each step's timeout is cut to what is left of it. */
const BUDGET_MS = 6.5 * 60_000;
const T0 = performance.now();
function budget(stepMs: number): number {
  const left = BUDGET_MS - (performance.now() - T0);
  if (left < 5_000) throw new Error(`the file's budget of ${BUDGET_MS / 60_000} min is spent`);
  return Math.min(stepMs, left - 2_000);
}

// ------------------------------------------------------------------------------------------ shared state

let work = '';
let scratch = '';
let registry: Registry | undefined;
/** Started once npm answers, awaited by the steps that need them (see `ahead`). */
let verdaccioBin: Promise<string> | undefined;
let publicTools: Promise<void> | undefined;
let packages: WorkspacePackage[] = [];
/** Package name → tarball path and its sha512 integrity. */
const tarballs = new Map<string, { file: string; integrity: string; json: PackageJson }>();
const passed = new Set<string>();

/** A user's environment (nothing of the workspace leaks in), quiet npm, no pact telemetry. */
const env = () =>
  userEnv(repo, {
    PACT_DO_NOT_TRACK: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    // npx runs what the project installed and never fetches a package. (`npx --no cluster-sim --port 0`
    // would not do: with a flag before the command, npm parses the command's flags, --port, as its own.)
    npm_config_yes: 'false',
  });

/**
 * A step: a test that runs only when the steps it needs passed (otherwise it is reported skipped, with
 * the reason; the failed step is what fails). `ms` is the step's own timeout; vitest's is a bit longer so
 * that the step's message, with the child's output, is what is reported.
 */
function step(
  name: string,
  needs: string[],
  ms: number,
  fn: (ctx: TestContext) => Promise<void>,
  { concurrent = false } = {},
) {
  (concurrent ? it.concurrent : it)(
    name,
    async (ctx) => {
      const missing = needs.filter((n) => !passed.has(n));
      if (missing.length > 0) ctx.skip(`not run: needs ${missing.map((m) => `"${m}"`).join(', ')}`);
      await fn(ctx);
      passed.add(name);
    },
    ms + 15_000,
  );
}

/**
 * A step that only uses the installed project (it runs node, tsc, vitest, jest or the CLIs there and adds
 * nothing to node_modules): these run two at a time, as many as this machine has cores (the install
 * project's maxConcurrency).
 */
function useStep(name: string, needs: string[], ms: number, fn: (ctx: TestContext) => Promise<void>) {
  step(name, needs, ms, fn, { concurrent: true });
}

/** Runs a command in the scratch project with the user's environment. */
function inScratch(command: string, args: string[], ms: number): Promise<RunResult> {
  return run(command, args, { cwd: scratch, env: env(), timeoutMs: budget(ms) });
}

/**
 * Work started ahead of the step that needs it, so that it overlaps the steps between (installing
 * Verdaccio and the scratch project's public tools while the packages are packed): the step awaits it, and
 * its failure is that step's failure. Never an unhandled rejection, whatever step runs or not.
 */
function ahead<T>(work: () => Promise<T>): Promise<T> {
  const promise = work();
  promise.catch(() => undefined);
  return promise;
}

/**
 * The scratch project with everything but the simulators: the fixtures, the README's examples as a user
 * copies them (vitest's under readme-vitest/, jest's under readme-jest/) and the public tools, TypeScript
 * and the two test runners. Third-party and pinned, so `--prefer-offline`: npm takes their documents from
 * its cache instead of asking the registry again for each of ~370 packages (58 → 21 s here). The
 * simulators come after, into this project, the way a user adds them to theirs.
 */
async function installPublicTools(): Promise<void> {
  mkdirSync(scratch, { recursive: true });
  cpSync(fixtures, scratch, { recursive: true });
  writeFileSync(
    join(scratch, 'package.json'),
    `${JSON.stringify(
      {
        name: 'sims-install-test-scratch',
        version: '0.0.0',
        private: true,
        type: 'module',
        jest: { testEnvironment: 'node', roots: ['<rootDir>/readme-jest'], testMatch: ['**/*.test.cjs'] },
      },
      null,
      2,
    )}\n`,
  );
  for (const [runner, file] of Object.entries(README_EXAMPLES)) {
    mkdirSync(join(scratch, `readme-${runner}`), { recursive: true });
    cpSync(join(repo, file), join(scratch, `readme-${runner}`, file.split('/').pop()!));
  }
  const r = await inScratch(
    'npm',
    ['install', '--save-exact', '--prefer-offline', '--loglevel=error', ...PUBLIC_DEPS],
    240_000,
  );
  expectExit(r, 0, 'npm install of the public tools in the scratch project');
}

function sha512(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

// ------------------------------------------------------------------------------------------ docker

/** Why the container step cannot run here, or undefined: `docker info` must answer within 5 s. */
const dockerSkipReason: string | undefined = await (async () => {
  const r = await run('docker', ['info', '--format', '{{.ServerVersion}}'], {
    cwd: repo,
    env: process.env,
    timeoutMs: 5_000,
  }).catch((err: Error) => ({ code: 1, stdout: '', stderr: err.message, timedOut: false }) as RunResult);
  if (r.code === 0 && r.stdout.trim()) return undefined;
  const why = r.timedOut ? 'did not answer within 5 s' : (r.stderr.trim().split('\n').pop() ?? 'no docker');
  return `no Docker engine reachable (docker info: ${why})`;
})();
if (dockerSkipReason) console.warn(`install test: the testcontainers step is skipped: ${dockerSkipReason}`);

async function docker(args: string[], ms = 30_000): Promise<RunResult> {
  return run('docker', args, { cwd: repo, env: process.env, timeoutMs: ms });
}

// ------------------------------------------------------------------------------------------ setup, teardown

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sims-install-test-'));
  scratch = join(work, 'project');
  if (!relative(repo, scratch).startsWith('..'))
    throw new Error(`the scratch project ${scratch} is inside the repo`);
});

/**
 * When this worker is ended by a signal (vitest stopped, a CI timeout), afterAll never runs: the same
 * cleanup, synchronously, then the signal's exit code. (Child processes die with their leash anyway.)
 */
function cleanupNow(): void {
  killAll();
  if (!dockerSkipReason) {
    const ps = spawnSync('docker', ['ps', '-aq', '--filter', `label=org.sims.install-test=${RUN}`], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    const ids = (ps.stdout ?? '').split(/\s+/).filter(Boolean);
    if (ids.length > 0) spawnSync('docker', ['rm', '-f', ...ids], { timeout: 20_000 });
  }
  if (work && process.env.SIMS_INSTALL_TEST_KEEP !== '1') rmSync(work, { recursive: true, force: true });
}
for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
] as const) {
  process.once(signal, () => {
    console.error(`install test: ${signal}, cleaning up`);
    cleanupNow();
    process.exit(code);
  });
}

afterAll(async () => {
  const errors: string[] = [];
  await registry?.stop().catch((err: Error) => errors.push(`stopping verdaccio: ${err.message}`));
  killAll();
  if (!dockerSkipReason) {
    const ps = await docker(['ps', '-aq', '--filter', `label=org.sims.install-test=${RUN}`], 10_000);
    const ids = ps.stdout.split(/\s+/).filter(Boolean);
    if (ids.length > 0) await docker(['rm', '-f', ...ids], 30_000);
  }
  // SIMS_INSTALL_TEST_KEEP=1 keeps the temp folder (scratch project, tarballs, registry storage) to look at.
  if (work && process.env.SIMS_INSTALL_TEST_KEEP === '1') console.warn(`install test: kept ${work}`);
  else if (work) rmSync(work, { recursive: true, force: true, maxRetries: 3 });
  if (errors.length > 0) console.warn(errors.join('\n'));
}, 60_000);

// ------------------------------------------------------------------------------------------ the steps

describe('install: packed, published to a local registry, installed with npm, used', () => {
  step('discovers the public packages from their package.json', [], 10_000, async () => {
    packages = publicPackages(repo);
    const names = packages.map((p) => p.name);
    console.log(`public packages: ${names.join(', ')}`);
    expect(names, 'these must be public (no "private": true)').toEqual(expect.arrayContaining(NAMED));
    // turbo builds a task's workspace dependencies first (test:install dependsOn ^build): each public package
    // must be one, or its dist/ could be missing or stale here.
    const own = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as PackageJson;
    const notDeps = names.filter((n) => own.devDependencies?.[n] !== 'workspace:*');
    expect(notDeps, 'public packages missing from install-test devDependencies (workspace:*)').toEqual([]);
  });

  const NPM = 'the public npm registry answers (npm ping)';
  step(NPM, [], 30_000, async () => {
    // Verdaccio itself and every non-@sims dependency of the scratch project come from there.
    const r = await run('npm', ['ping', '--fetch-retries=1', '--fetch-timeout=10000'], {
      cwd: work,
      env: env(),
      timeoutMs: budget(30_000),
    });
    if (r.code !== 0 || r.timedOut) {
      throw new Error(
        'the npm registry is unreachable: the install test needs it (npm ci of verdaccio, and npm install of ' +
          `pact, typescript, hono, zod, testcontainers… in the scratch project)\n${describeRun(r)}`,
      );
    }
    // Both take the network more than the CPU: they run while the packages are packed and published.
    verdaccioBin = ahead(() => installVerdaccio(join(work, 'verdaccio'), env(), budget(90_000)));
    publicTools = ahead(installPublicTools);
  });

  const BUILD = 'builds them (turbo run build, unless turbo already did as ^build)';
  step(BUILD, [], 300_000, async () => {
    if (process.env.TURBO_HASH) {
      console.log('running as a turbo task: ^build built the public packages already');
      return;
    }
    const r = await run(
      'pnpm',
      ['exec', 'turbo', 'run', 'build', '--filter=@sims/install-test^...', '--output-logs=errors-only'],
      { cwd: repo, env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' }, timeoutMs: budget(300_000) },
    );
    expectExit(r, 0, 'turbo run build of the public packages');
  });

  const PACK = 'packs each public package with pnpm pack';
  step(PACK, ['discovers the public packages from their package.json', BUILD], 120_000, async () => {
    const dest = join(work, 'tarballs');
    mkdirSync(dest, { recursive: true });
    // Two at a time (this machine's cores): each is mostly node starting pnpm and its prepack script.
    const packed = await atMost(2, packages, async (pkg) => {
      const r = await run('pnpm', ['pack', '--pack-destination', dest], {
        cwd: pkg.dir,
        env: process.env,
        timeoutMs: budget(60_000),
      });
      expectExit(r, 0, `pnpm pack in ${pkg.rel}`);
      const name = `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
      const file = join(dest, name);
      const json = JSON.parse(
        (
          await run('tar', ['-xzOf', file, 'package/package.json'], {
            cwd: dest,
            env: process.env,
            timeoutMs: 10_000,
          })
        ).stdout,
      ) as PackageJson;
      return { file, integrity: sha512(file), json };
    });
    for (const [i, pkg] of packages.entries()) tarballs.set(pkg.name, packed[i]!);
  });

  step(
    'each tarball holds dist JS, .d.ts, README.md and package.json; no sources, no tests; entry points exist',
    [PACK],
    60_000,
    async () => {
      const published = new Set(tarballs.keys());
      const report: string[] = [];
      for (const [name, { file, json }] of tarballs) {
        const list = await run('tar', ['-tzf', file], { cwd: work, env: process.env, timeoutMs: 10_000 });
        expectExit(list, 0, `tar -tzf ${file}`);
        const files = list.stdout
          .split('\n')
          .filter(Boolean)
          .map((f) => f.replace(/^package\//, ''));
        const problems = tarballProblems(files, json, published);
        if (problems.length > 0) report.push(`${name}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
      }
      expect(report.join('\n'), 'tarball problems').toBe('');
    },
  );

  const REGISTRY = 'starts Verdaccio 6.8.0 on 127.0.0.1 (only @sims/*, no uplink)';
  step(REGISTRY, [NPM], 120_000, async () => {
    if (!verdaccioBin) throw new Error('the npm ping step did not start the npm ci of Verdaccio');
    const bin = await verdaccioBin;
    registry = await startRegistry(bin, join(work, 'verdaccio'), env(), budget(30_000));
    console.log(`verdaccio at ${registry.url}`);
    // Nothing but what is published here: no uplink, no other scope.
    const other = await fetch(`${registry.url}hono`);
    await other.arrayBuffer();
    expect(other.status, 'verdaccio must not serve (or proxy) anything but @sims/*').not.toBe(200);
  });

  const PUBLISH = 'publishes every tarball to it with npm publish';
  step(PUBLISH, [PACK, REGISTRY], 120_000, async () => {
    const reg = registry!;
    await atMost(2, [...tarballs], async ([name, { file }]) => {
      const r = await run(
        'npm',
        // Anonymous publish is allowed for @sims/*, but npm will not publish without some token.
        ['publish', file, '--registry', reg.url, `--//127.0.0.1:${reg.port}/:_authToken=install-test`],
        { cwd: work, env: env(), timeoutMs: budget(60_000) },
      );
      expectExit(r, 0, `npm publish ${name}`);
      const res = await fetch(`${reg.url}${name.replace('/', '%2f')}`);
      expect(res.status, `${name} is served after publish`).toBe(200);
      const doc = (await res.json()) as { versions: Record<string, { dist: { integrity: string } }> };
      const version = tarballs.get(name)!.json.version;
      expect(doc.versions[version]?.dist.integrity, `${name}@${version} as published`).toBe(
        tarballs.get(name)!.integrity,
      );
    });
  });

  const INSTALL = 'npm install in a scratch project outside the repository';
  step(INSTALL, [PUBLISH], 240_000, async () => {
    const reg = registry!;
    if (!publicTools) throw new Error('the npm ping step did not start the install of the public tools');
    await publicTools;
    // Only the @sims scope goes to the local registry; everything else to the machine's normal registry.
    writeFileSync(join(scratch, '.npmrc'), `@sims:registry=${reg.url}\n`);
    const sims = NAMED.map((n) => `${n}@${tarballs.get(n)!.json.version}`);
    // Not --prefer-offline: every @sims document and tarball comes from this run's registry, and their
    // dependencies (hono, zod, testcontainers…) resolve as a user's would today.
    const r = await inScratch('npm', ['install', '--save-exact', '--loglevel=error', ...sims], 240_000);
    expectExit(r, 0, 'npm install in the scratch project');
    // What got installed is exactly what was packed here (never a cached tarball of an earlier run).
    const lock = JSON.parse(readFileSync(join(scratch, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; resolved?: string; integrity?: string; link?: boolean }>;
    };
    const wrong: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const name = /node_modules\/(@sims\/[^/]+)$/.exec(path)?.[1];
      const fromLocal = entry.resolved?.startsWith(reg.url) ?? false;
      if (!name) {
        if (fromLocal) wrong.push(`${path} came from the local registry`);
        continue;
      }
      const packed = tarballs.get(name);
      if (!packed) wrong.push(`${path}: ${name} is not a package this run published`);
      else if (entry.integrity !== packed.integrity)
        wrong.push(`${path}: not the tarball packed by this run`);
      // (`resolved` is absent when the machine's npm config has omit-lockfile-registry-resolved=true.)
      if (entry.resolved !== undefined && !fromLocal) wrong.push(`${path} resolved from ${entry.resolved}`);
      if (entry.link) wrong.push(`${path} is a link`);
    }
    expect(wrong, 'what npm installed').toEqual([]);
  });

  const NO_PACT = 'verify without pact installed says in one line what to install (exit 2)';
  step(NO_PACT, [INSTALL], 60_000, async () => {
    // pact is an optional peer dependency: npm did not install it with the simulators.
    expect(existsSync(join(scratch, 'node_modules', '@pact-foundation', 'pact'))).toBe(false);
    await atMost(2, APPS, async (app) => {
      const r = await inScratch('npx', [app, 'verify', 'pacts/'], 30_000);
      expectExit(r, 2, `npx ${app} verify without pact`);
      expect(r.stderr.trim()).toBe(
        `${app}: ${app} verify needs @pact-foundation/pact, an optional peer dependency: ` +
          'npm install --save-dev @pact-foundation/pact@^16.5.0',
      );
      // …while its --help needs no pact.
      expectExit(await inScratch('npx', [app, 'verify', '--help'], 30_000), 0, `npx ${app} verify --help`);
    });
  });

  const INSTALL_PACT = `npm install ${PACT}, as verify says`;
  step(INSTALL_PACT, [INSTALL], 180_000, async () => {
    // A pinned third-party package, as the public tools are: npm's cache answers for its documents.
    const r = await inScratch(
      'npm',
      ['install', '--save-exact', '--prefer-offline', '--loglevel=error', PACT],
      180_000,
    );
    expectExit(r, 0, `npm install ${PACT}`);
  });

  // The two longest first: the steps below start in this order, two at a time.
  const TSC = 'TypeScript: tsc (strict, NodeNext) compiles without an error, and the output runs with node';
  useStep(TSC, [INSTALL], 150_000, async () => {
    const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
    // tsc exits 0 only when there is no diagnostic, emitting or not: a `--noEmit` run before it would
    // check the same program again.
    expectExit(await inScratch('node', [tsc, '-p', 'tsconfig.json'], 60_000), 0, 'tsc (emit)');
    expectExit(await inScratch('node', ['build/smoke.js'], 60_000), 0, 'node build/smoke.js');
    expectExit(await inScratch('node', ['build/smoke-cjs.cjs'], 60_000), 0, 'node build/smoke-cjs.cjs');
  });

  useStep(
    'TypeScript: with --skipLibCheck false, no error in the @sims declarations',
    [INSTALL],
    90_000,
    async () => {
      const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
      // The project skips lib checks, as `tsc --init` does; our own declarations are checked all the same.
      const lib = await inScratch(
        'node',
        [tsc, '--noEmit', '-p', 'tsconfig.json', '--skipLibCheck', 'false'],
        90_000,
      );
      const errors = lib.stdout.split('\n').filter((l) => /error TS/.test(l));
      const ours = errors.filter(
        (l) => !l.startsWith('node_modules/') || l.startsWith('node_modules/@sims/'),
      );
      expect(ours, `errors in the published declarations\n${describeRun(lib)}`).toEqual([]);
      if (errors.length > 0)
        console.log(`skipLibCheck false: other packages' declarations say:\n${errors.join('\n')}`);
    },
  );

  useStep(
    `the README's vitest example (${README_EXAMPLES.vitest}), run by vitest`,
    [INSTALL],
    120_000,
    async () => {
      const vitest = join('node_modules', 'vitest', 'vitest.mjs');
      const r = await inScratch('node', [vitest, 'run', '--root', '.', 'readme-vitest/'], 120_000);
      expectExit(r, 0, 'vitest run readme-vitest/');
      // biome-ignore lint/suspicious/noControlCharactersInRegex: vitest colours its summary
      expect(r.stdout.replace(/\x1b\[[0-9;]*m/g, ''), describeRun(r)).toMatch(/Tests\s+1 passed \(1\)/);
    },
  );

  useStep(
    `the README's jest example (${README_EXAMPLES.jest}), run by jest`,
    [INSTALL],
    120_000,
    async () => {
      const jest = join('node_modules', 'jest', 'bin', 'jest.js');
      const r = await inScratch('node', [jest, '--ci'], 120_000);
      expectExit(r, 0, 'jest');
      expect(r.stderr, describeRun(r)).toMatch(/Tests:\s+2 passed, 2 total/);
    },
  );

  useStep('JavaScript (ESM): node smoke.mjs', [INSTALL], 60_000, async () => {
    expectExit(await inScratch('node', ['smoke.mjs'], 60_000), 0, 'node smoke.mjs');
  });

  useStep('JavaScript (CommonJS): node require.cjs', [INSTALL], 60_000, async () => {
    expectExit(await inScratch('node', ['require.cjs'], 60_000), 0, 'node require.cjs');
  });

  useStep('TypeScript: wrong-types.ts fails with exactly its marked errors', [INSTALL], 60_000, async () => {
    const tsc = join('node_modules', 'typescript', 'bin', 'tsc');
    const r = await inScratch('node', [tsc, '-p', 'tsconfig.wrong.json', '--pretty', 'false'], 60_000);
    const marked = readFileSync(join(scratch, 'wrong-types.ts'), 'utf8')
      .split('\n')
      .flatMap((line, i) => (/\/\/ expect-error/.test(line) ? [i + 1] : []));
    const reported = [...r.stdout.matchAll(/^wrong-types\.ts\((\d+),\d+\): error TS\d+/gm)].map((m) =>
      Number(m[1]),
    );
    const others = r.stdout.split('\n').filter((l) => /error TS/.test(l) && !l.startsWith('wrong-types.ts('));
    const why = describeRun(r);
    expect(r.code, `tsc must fail on wrong-types.ts\n${why}`).not.toBe(0);
    expect(others, `errors outside wrong-types.ts\n${why}`).toEqual([]);
    expect(
      [...new Set(reported)].sort((a, b) => a - b),
      `error lines vs marked lines\n${why}`,
    ).toEqual(marked);
  });

  for (const app of APPS) {
    useStep(`CLI: npx ${app} --help and npx ${app} verify --help exit 0`, [INSTALL], 60_000, async () => {
      const help = expectExit(await inScratch('npx', [app, '--help'], 30_000), 0, `npx ${app} --help`);
      expect(help.stdout + help.stderr).toMatch(/--port/);
      const verify = expectExit(
        await inScratch('npx', [app, 'verify', '--help'], 30_000),
        0,
        `npx ${app} verify --help`,
      );
      expect(verify.stdout + verify.stderr).toMatch(/pact/i);
    });

    useStep(
      `CLI: npx ${app} --port 0 prints its ready line, serves /_sim/health and the dashboard, exits 0 on SIGTERM`,
      [INSTALL],
      60_000,
      async () => {
        const cli = start('npx', [app, '--port', '0'], { cwd: scratch, env: env() });
        try {
          const { line, match } = await cli.waitForLine(
            /ready at (http:\/\/127\.0\.0\.1:\d+)/,
            budget(30_000),
          );
          expect(line).toMatch(
            new RegExp(
              `^${app} \\d+\\.\\d+\\.\\d+\\S* ready at http://127\\.0\\.0\\.1:\\d+ \\(dashboard http://127\\.0\\.0\\.1:\\d+/_sim/ui/, control plane`,
            ),
          );
          const res = await fetch(`${match[1]}/_sim/health`, { signal: AbortSignal.timeout(5_000) });
          expect(res.status).toBe(200);
          expect(await res.json()).toMatchObject({ status: 'ok' });
          // The dashboard comes with the installed package: the page and its script, from the process.
          const ui = await fetch(`${match[1]}/_sim/ui/`, { signal: AbortSignal.timeout(5_000) });
          expect(ui.status).toBe(200);
          expect(await ui.text()).toContain(`<title>${app} dashboard</title>`);
          const script = await fetch(`${match[1]}/_sim/ui/app.js`, { signal: AbortSignal.timeout(5_000) });
          expect(script.status).toBe(200);
          expect((await script.text()).length).toBeGreaterThan(10_000);
          // SIGTERM to the simulator itself: npm does not pass a SIGTERM sent to npx on (npx would exit 143
          // and leave the simulator running). npx then exits with the simulator's code.
          const pattern = new RegExp(`(\\.bin/${app}|@sims/${app}/dist/main\\.js)( |$)`);
          const sims = groupMembers(cli.pid, pattern);
          expect(sims, `the ${app} process under npx`).toHaveLength(1);
          process.kill(sims[0]!, 'SIGTERM');
          const end = await cli.waitForExit(budget(15_000));
          expectExit(end, 0, `npx ${app} after SIGTERM to the simulator`);
        } catch (err) {
          throw new Error(`${(err as Error).message}\noutput so far:\n${cli.output()}`);
        } finally {
          cli.kill();
        }
      },
    );

    useStep(
      `verify: npx ${app} verify on its pact exits 0, on a wrong copy exits 1`,
      [INSTALL_PACT],
      120_000,
      async () => {
        const pactDir = join(repo, 'contracts', 'pacts');
        const found = readdirSync(pactDir)
          .filter((f) => f.endsWith('.json'))
          .map((f) => ({ f, pact: JSON.parse(readFileSync(join(pactDir, f), 'utf8')) as Pact }))
          .filter(({ pact }) => pact.provider?.name === app && (pact.interactions?.length ?? 0) > 0)
          .sort((a, b) => a.pact.interactions!.length - b.pact.interactions!.length)
          // The smallest with a value to break (a pact of arrays and numbers only has none).
          .find(({ pact }) => breakOneBodyValue(pact) !== undefined);
        expect(
          found,
          `a pact in contracts/pacts whose provider is ${app}, with a string to break`,
        ).toBeDefined();
        const { f, pact } = found!;
        mkdirSync(join(scratch, 'pacts'), { recursive: true });
        const good = join('pacts', f);
        writeFileSync(join(scratch, good), JSON.stringify(pact, null, 2));
        const ok = await inScratch('npx', [app, 'verify', good], 90_000);
        expectExit(ok, 0, `npx ${app} verify ${good}`);

        const { pact: wrong, changed } = breakOneBodyValue(pact)!;
        const bad = join('pacts', `wrong-${f}`);
        writeFileSync(join(scratch, bad), JSON.stringify(wrong, null, 2));
        const failed = await inScratch('npx', [app, 'verify', bad], 90_000);
        expectExit(failed, 1, `npx ${app} verify ${bad} (${changed})`);
        // …and fails for the changed value, not for anything else.
        expect(failed.stdout + failed.stderr, describeRun(failed)).toContain('-not-what-the-provider-says');
      },
    );
  }

  it.skipIf(dockerSkipReason)(
    `testcontainers: ClusterSimContainer against ${CLUSTER_IMAGE}${dockerSkipReason ? ` (skipped: ${dockerSkipReason})` : ''}`,
    async (ctx) => {
      if (!passed.has(TSC)) ctx.skip(`not run: needs "${TSC}" (it compiles container.ts)`);
      // The image: built by the container tests' global setup, or here when it is missing.
      if ((await docker(['image', 'inspect', '--format', '{{.Id}}', CLUSTER_IMAGE], 15_000)).code !== 0) {
        const buildEnv = { ...process.env };
        if (!buildEnv.SIMS_BASE_IMAGE) {
          const local = `sims-node-base:${process.versions.node.split('.')[0]}`;
          const publicBase = await docker(['image', 'inspect', 'node:20-bookworm-slim'], 15_000);
          if (publicBase.code !== 0 && (await docker(['image', 'inspect', local], 15_000)).code === 0) {
            buildEnv.SIMS_BASE_IMAGE = local;
          }
        }
        console.log(`${CLUSTER_IMAGE} is missing: bash scripts/docker-images.sh cluster-sim`);
        const built = await run('bash', ['scripts/docker-images.sh', 'cluster-sim'], {
          cwd: repo,
          env: buildEnv,
          timeoutMs: budget(180_000),
        });
        expectExit(built, 0, 'bash scripts/docker-images.sh cluster-sim');
      }
      // The settings of packages/testcontainers/README.md for an engine without a bridge network.
      const networks = (await docker(['network', 'ls', '--format', '{{.Name}}'], 15_000)).stdout.split(/\s+/);
      const hostNet = !networks.includes('bridge');
      const extra: Record<string, string> = { SIMS_INSTALL_TEST_RUN: RUN };
      if (hostNet) {
        extra.TESTCONTAINERS_RYUK_DISABLED = process.env.TESTCONTAINERS_RYUK_DISABLED ?? 'true';
        extra.TESTCONTAINERS_HOST_OVERRIDE = process.env.TESTCONTAINERS_HOST_OVERRIDE ?? '127.0.0.1';
        extra.SIMS_TESTCONTAINERS_NETWORK = 'host';
      }
      const r = await run('node', ['build/container.js'], {
        cwd: scratch,
        env: { ...env(), ...extra },
        timeoutMs: budget(90_000),
      });
      expectExit(r, 0, `node build/container.js (${hostNet ? 'host network' : 'bridge network'})`);
    },
    300_000,
  );
});

// ------------------------------------------------------------------------------------------ pacts

interface Pact {
  provider?: { name?: string };
  interactions?: {
    description: string;
    response?: { body?: { content?: unknown }; matchingRules?: { body?: Record<string, unknown> } };
  }[];
}

/**
 * A copy of the pact with one expected response body value changed: the first top-level string field of
 * a JSON object body that no matching rule covers (so the verifier compares it by equality); undefined
 * when there is none.
 */
function breakOneBodyValue(pact: Pact): { pact: Pact; changed: string } | undefined {
  const copy = structuredClone(pact);
  for (const interaction of copy.interactions ?? []) {
    const content = interaction.response?.body?.content;
    if (!content || typeof content !== 'object' || Array.isArray(content)) continue;
    const rules = interaction.response?.matchingRules?.body ?? {};
    for (const [key, value] of Object.entries(content as Record<string, unknown>)) {
      if (typeof value !== 'string' || `$.${key}` in rules) continue;
      (content as Record<string, unknown>)[key] = `${value}-not-what-the-provider-says`;
      return { pact: copy, changed: `"${interaction.description}": $.${key} = "${value}-not-what-…"` };
    }
  }
  return undefined;
}
