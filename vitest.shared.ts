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
 * Each package script picks one project and writes vitest's JSON report to .reports/<project>.json,
 * which .ci/run sums into its closing `N passed, N failed` line.
 */
export function defineSimsVitestConfig() {
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
            exclude: ['test/contract/**', 'test/container/**', 'test/e2e/**', '**/node_modules/**'],
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
