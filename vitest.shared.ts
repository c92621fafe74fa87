import { defineConfig } from 'vitest/config';

/**
 * One vitest setup for every package: three projects whose folders decide what they are.
 * - unit:      src/**\/*.test.ts and test/**\/*.test.ts, except the two folders below
 * - contract:  test/contract/**\/*.test.ts (pact; needs the forks pool for pact's native library)
 * - container: test/container/**\/*.test.ts (needs a Docker engine)
 * Each package script picks one project and writes vitest's JSON report to .reports/<project>.json,
 * which .ci/run sums into its closing `N passed, N failed` line.
 */
export function defineSimsVitestConfig() {
  return defineConfig({
    test: {
      pool: 'forks',
      env: { PACT_DO_NOT_TRACK: 'true', METADATA_SERVER_DETECTION: 'none' },
      projects: [
        {
          extends: true,
          test: {
            name: 'unit',
            include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
            exclude: ['test/contract/**', 'test/container/**', '**/node_modules/**'],
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
      ],
    },
  });
}
