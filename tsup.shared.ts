import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Options } from 'tsup';

/**
 * How every package is built (docs/decisions/0013-packages-and-source-condition.md). Inside the workspace a
 * sibling `@sims/*` package resolves to its TypeScript sources through the export condition `@sims/source`;
 * the published package.json carries no such condition.
 */
const SOURCE_CONDITION = '@sims/source';

/** ESM bundles that inline CommonJS code still need a `require` of their own. */
const REQUIRE_BANNER = {
  js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
};

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/** `import('./verify/cli')` in main.ts stays an import, of the separately bundled `./verify/index.js`. */
const verifyStaysOutside: EsbuildPlugin = {
  name: 'sims-verify-stays-outside',
  setup(build) {
    build.onResolve({ filter: /^\.\/verify\/cli$/ }, () => ({ path: './verify/index.js', external: true }));
  },
};

/**
 * A simulator's CLI: `dist/main.js` plus the chunks it imports on first use (the YAML parser for scenario
 * files), self-contained (nothing external), which is all the Docker image holds (docs/decisions/0009).
 * The `verify` command is a separate bundle (`verifyBuild`) that main.js imports only when it is named.
 * Minified but for identifiers: startup compiles the startup chunks (docs/decisions/0009).
 */
export function cliBuild(): Options {
  return {
    entry: { main: 'src/main.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    bundle: true,
    noExternal: [/.*/],
    splitting: true,
    // Whitespace and syntax only: identifiers keep their names, so stack traces still name the functions
    // (docs/decisions/0009).
    minifyWhitespace: true,
    minifySyntax: true,
    // The other two builds write dist/lib and dist/verify at the same time.
    clean: ['!lib/**', '!verify/**'],
    banner: REQUIRE_BANNER,
    esbuildPlugins: [verifyStaysOutside],
    esbuildOptions(options) {
      options.conditions = [SOURCE_CONDITION];
    },
  };
}

/**
 * The `verify` command: `dist/verify/index.js`, self-contained but for pact, an optional peer dependency
 * loaded from the user's project (or not installed: the command then says what to install).
 */
export function verifyBuild(): Options {
  return {
    entry: { index: 'src/verify/cli.ts' },
    outDir: 'dist/verify',
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    bundle: true,
    noExternal: [/^(?!@pact-foundation\/)/],
    external: [/^@pact-foundation\//],
    splitting: false,
    clean: true,
    banner: REQUIRE_BANNER,
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
 * @example await bundleInputs(configs, 'src/main.ts', appDir) // { inputs: ['src/main.ts', …], externals: ['./verify/index.js', …] }
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
    await build({ ...config, outDir: out, metafile: true, silent: true, config: false, dts: false });
    const meta = JSON.parse(readFileSync(join(out, 'metafile-esm.json'), 'utf8')) as {
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
