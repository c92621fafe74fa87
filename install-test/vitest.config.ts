import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit`: test/manifests.test.ts. `install`: test/install.test.ts packs and publishes every public package to a local registry
 * and uses them from a scratch project outside the repository. Each step has its own timeout inside the
 * test (child processes are killed when it runs out); the limits here only back those up. Not the shared
 * config: that one resolves `@sims/*` to the workspace's sources, and this test must never see them.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    env: { PACT_DO_NOT_TRACK: 'true' },
    projects: [
      // test/manifests.test.ts: the public packages' package.json files, read (no build, no registry).
      { extends: true, test: { name: 'unit', include: ['test/manifests.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'install',
          include: ['test/install.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // One file, steps in order: a failed step's followers fail fast with the reason, never retried.
          // The steps that only use the installed project are `it.concurrent`: two at a time, one a core.
          fileParallelism: false,
          sequence: { concurrent: false },
          maxConcurrency: 2,
        },
      },
    ],
  },
});
