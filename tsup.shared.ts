import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from 'tsup';

/**
 * How every package is built (docs/decisions/0013-packages-and-source-condition.md). Inside the workspace a
 * sibling `@sims/*` package resolves to its TypeScript sources through the export condition `@sims/source`;
 * the published package.json carries no such condition.
 */
const SOURCE_CONDITION = '@sims/source';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * `import('./verify/cli')` in main.ts stays a load, of the separately bundled `./verify/index.cjs` (a
 * `require` at run time: the CLI bundle is CommonJS, its dynamic imports lowered).
 */
const verifyStaysOutside: EsbuildPlugin = {
  name: 'sims-verify-stays-outside',
  setup(build) {
    build.onResolve({ filter: /^\.\/verify\/cli$/ }, () => ({ path: './verify/index.cjs', external: true }));
  },
};

type TsupPlugin = NonNullable<Options['plugins']>[number];

/** scripts/cli-loader.js: what the build writes as dist/main.js, the CLI's entry. */
const CLI_LOADER = fileURLToPath(new URL('./scripts/cli-loader.js', import.meta.url));

/**
 * Makes dist/main.cjs runnable as the CLI with V8's code cache (docs/decisions/0031-cli-code-cache.md):
 * marks the bundle with a build id, writes the loader as dist/main.js, then starts the CLI once with
 * `SIMS_CODE_CACHE_WRITE` set, asks `/_sim/health` and stops it; the loader writes dist/main.cjs.cache at
 * exit. A CLI that does not start fails the build.
 */
function codeCachedCli(): TsupPlugin {
  const id = randomBytes(8).toString('hex');
  return {
    name: 'sims-code-cached-cli',
    renderChunk(code, chunk) {
      if (chunk.type !== 'chunk' || !chunk.path.endsWith('main.cjs')) return undefined;
      return { code: `${code}\n//# sims-build=${id}\n` };
    },
    async buildEnd() {
      const outDir = resolve(this.options.outDir ?? 'dist');
      const main = join(outDir, 'main.js');
      rmSync(join(outDir, 'main.cjs.cache'), { force: true });
      // The loader reads the bundle as Latin-1: any byte past ASCII would be misread.
      const bundle = readFileSync(join(outDir, 'main.cjs'));
      const wide = bundle.findIndex((b) => b > 0x7f);
      if (wide !== -1) throw new Error(`${outDir}/main.cjs: a byte past ASCII at offset ${wide}`);
      copyFileSync(CLI_LOADER, main);
      chmodSync(main, 0o755);
      await warmUp(main);
      if (!existsSync(join(outDir, 'main.cjs.cache')))
        throw new Error(`${main}: the warm-up run wrote no code cache`);
    },
  };
}

/** Runs the CLI at `main` to its first 200 on `/_sim/health` (manual clock, a free port), then stops it. */
async function warmUp(main: string): Promise<void> {
  // None of the builder's SIM_* settings (a --state-file to save to, scenarios, an egress policy).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SIM_')));
  const child = spawn(process.execPath, [main, '--port', '0', '--host', '127.0.0.1', '--clock', 'manual'], {
    env: { ...env, SIMS_CODE_CACHE_WRITE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  try {
    const url = await new Promise<string>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`${main}: no ready line in 60 s\n${err}`)), 60_000);
      timer.unref();
      child.stdout.on('data', (d: Buffer) => {
        out += d;
        const found = /ready at (http:\/\/\S+)/.exec(out);
        if (found) {
          clearTimeout(timer);
          ready(found[1] as string);
        }
      });
      child.once('exit', (code) => fail(new Error(`${main} exited (${code}) before its ready line\n${err}`)));
    });
    const res = await fetch(`${url}/_sim/health`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${main}: /_sim/health answered ${res.status}`);
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${main}: the warm-up run exited with ${code}\n${err}`);
}

/**
 * A simulator's CLI: `dist/main.cjs`, the whole CLI in one self-contained CommonJS bundle (nothing
 * external but `verify`), its code cache `dist/main.cjs.cache`, and `dist/main.js`, the loader that runs
 * them (scripts/cli-loader.js): all the Docker image holds. One script instead of ES module chunks, so
 * that Node 20 can start it from V8's code cache (docs/decisions/0031; 0009 had split it into chunks
 * loaded on first use, which a code cache makes moot: code a start does not run is never compiled).
 * The `verify` command is a separate bundle (`verifyBuild`) that main.cjs loads only when it is named.
 * Minified but for identifiers (docs/decisions/0009).
 */
export function cliBuild(): Options {
  return {
    entry: { main: 'src/main.ts' },
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    bundle: true,
    noExternal: [/.*/],
    splitting: false,
    // Whitespace and syntax only: identifiers keep their names, so stack traces still name the functions
    // (docs/decisions/0009).
    minifyWhitespace: true,
    minifySyntax: true,
    // The other two builds write dist/lib and dist/verify at the same time.
    clean: ['!lib/**', '!verify/**'],
    esbuildPlugins: [verifyStaysOutside],
    plugins: [codeCachedCli()],
    esbuildOptions(options) {
      options.conditions = [SOURCE_CONDITION];
      // `import()` of the bundle's own modules becomes a lazy `require`: a script cannot `import()` (the
      // loader runs it through node:vm, whose dynamic imports need --experimental-vm-modules on Node 20).
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
  };
}

/**
 * The `verify` command: `dist/verify/index.cjs`, self-contained but for pact, an optional peer dependency
 * loaded from the user's project (or not installed: the command then says what to install).
 */
export function verifyBuild(): Options {
  return {
    entry: { index: 'src/verify/cli.ts' },
    outDir: 'dist/verify',
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    bundle: true,
    noExternal: [/^(?!@pact-foundation\/)/],
    external: [/^@pact-foundation\//],
    splitting: false,
    clean: true,
    esbuildOptions(options) {
      options.conditions = [SOURCE_CONDITION];
    },
  };
}

/**
 * The library build of a public package: each entry to `dist/lib/<name>.js` (ESM), `<name>.cjs`
 * (CommonJS, for jest and other `require` runners) and their declarations (`.d.ts`, `.d.cts`), bundled per
 * entry. Dependencies and peer dependencies stay imports, so a project that installs two of our packages
 * gets one copy of each shared one.
 *
 * @example export default defineConfig(libraryBuild({ index: 'src/index.ts' }));
 */
export function libraryBuild(entry: Record<string, string>): Options {
  return {
    entry,
    outDir: 'dist/lib',
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'node',
    dts: true,
    splitting: true,
    clean: true,
  };
}

/**
 * Bundles the build of `entry` among `configs` (an app's tsup.config.ts) into a temporary folder and says
 * what went in and what stayed an import: the apps' tests use it to keep pact and `verify` out of the image.
 *
 * @example await bundleInputs(configs, 'src/main.ts', appDir) // { inputs: ['src/main.ts', …], externals: ['./verify/index.cjs', …] }
 */
export async function bundleInputs(
  configs: Options[],
  entry: string,
  appDir: string,
): Promise<{ inputs: string[]; externals: string[] }> {
  const { build } = await import('tsup');
  const config = configs.find((c) => Object.values(c.entry ?? {}).includes(entry));
  if (!config) throw new Error(`no build of ${entry} in tsup.config.ts`);
  const out = mkdtempSync(join(tmpdir(), 'sims-bundle-'));
  const cwd = process.cwd();
  try {
    process.chdir(appDir);
    // What goes in, without the CLI's warm-up run (codeCachedCli).
    await build({
      ...config,
      outDir: out,
      metafile: true,
      silent: true,
      config: false,
      dts: false,
      plugins: [],
    });
    const metafile = ['metafile-cjs.json', 'metafile-esm.json']
      .map((f) => join(out, f))
      .find((f) => existsSync(f));
    if (!metafile) throw new Error(`the build of ${entry} wrote no metafile`);
    const meta = JSON.parse(readFileSync(metafile, 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
    };
    const externals = Object.values(meta.outputs).flatMap((o) =>
      o.imports.filter((i) => i.external).map((i) => i.path),
    );
    return { inputs: Object.keys(meta.inputs), externals };
  } finally {
    process.chdir(cwd);
    rmSync(out, { recursive: true, force: true });
  }
}
