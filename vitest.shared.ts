import { defineConfig } from 'vitest/config';

/**
 * Inside the workspace, every `@sims/*` import resolves to the package's TypeScript sources through the
 * custom export condition `@sims/source` (docs/decisions/0013-packages-and-source-condition.md): tests run
 * on sources with no build first. Child processes that tests spawn (`node --import tsx …`) get the same
 * condition through NODE_OPTIONS.
 */
const SOURCE_CONDITION = '@sims/source';

/** Vite's own defaults for server code (its `defaultServerConditions`), after ours. */
const CONDITIONS = [SOURCE_CONDITION, 'module', 'node', 'development|production'];

/**
 * One vitest setup for every package: four projects whose folders decide what they are.
 * - unit:      src/**\/*.test.ts and test/**\/*.test.ts, except the three folders below
 * - contract:  test/contract/**\/*.test.ts (pact; needs the forks pool for pact's native library)
 * - container: test/container/**\/*.test.ts (needs a Docker engine)
 * - e2e:       test/e2e/**\/*.test.ts (browser tests in headless Chromium, /usr/bin/chromium or $SIMS_CHROMIUM)
 * - isolated:  src/**\/*.isolated.test.ts and test/**\/*.isolated.test.ts: unit tests that replace a module
 *              (`vi.mock`) and so need a module graph of their own; a package that has them runs
 *              `--project unit --project isolated`
 * Each package script picks its projects and writes vitest's JSON report to .reports/<project>.json,
 * which .ci/run sums into its closing `N passed, N failed` line.
 *
 * `shareModules: true` runs the unit project's files in one module graph per worker (vitest's
 * `isolate: false`): the simulators' modules (zod schemas, route tables) are imported once, not once per
 * file, which took a third of the apps' unit time (docs/decisions/0022). Their tests keep no state in
 * modules (a file's simulator is made by its own factory call), so no file sees another's.
 * Unit and isolated tests get 15 s each instead of vitest's 5 s (see the comment at `testTimeout`).
 */
export function defineSimsVitestConfig(options: { shareModules?: boolean } = {}) {
  return defineConfig({
    resolve: { conditions: CONDITIONS },
    ssr: { resolve: { conditions: CONDITIONS } },
    test: {
      pool: 'forks',
      env: {
        PACT_DO_NOT_TRACK: 'true',
        METADATA_SERVER_DETECTION: 'none',
        NODE_OPTIONS: withSourceCondition(process.env.NODE_OPTIONS),
      },
      projects: [
        {
          extends: true,
          test: {
            name: 'unit',
            include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
            exclude: [
              'test/contract/**',
              'test/container/**',
              'test/e2e/**',
              '**/*.isolated.test.ts',
              '**/node_modules/**',
            ],
            isolate: !options.shareModules,
            // CPU-bound tests (property runs, big bodies) took 4-6 s under a loaded 2-core host, past
            // vitest's 5 s default; a test that waits on something that never comes still fails.
            testTimeout: 15_000,
          },
        },
        {
          extends: true,
          test: {
            name: 'isolated',
            include: ['src/**/*.isolated.test.ts', 'test/**/*.isolated.test.ts'],
            exclude: ['test/contract/**', 'test/container/**', 'test/e2e/**', '**/node_modules/**'],
            testTimeout: 15_000,
          },
        },
        {
          extends: true,
          test: { name: 'contract', include: ['test/contract/**/*.test.ts'], testTimeout: 60_000 },
        },
        {
          extends: true,
          test: {
            name: 'container',
            include: ['test/container/**/*.test.ts'],
            testTimeout: 60_000,
            hookTimeout: 60_000,
          },
        },
        {
          extends: true,
          test: {
            name: 'e2e',
            include: ['test/e2e/**/*.test.ts'],
            testTimeout: 60_000,
            hookTimeout: 60_000,
          },
        },
      ],
    },
  });
}

/** NODE_OPTIONS with `--conditions=@sims/source` added once. */
function withSourceCondition(nodeOptions: string | undefined): string {
  const flag = `--conditions=${SOURCE_CONDITION}`;
  const current = nodeOptions?.trim() ?? '';
  return current.split(/\s+/).includes(flag) ? current : `${current} ${flag}`.trim();
}
