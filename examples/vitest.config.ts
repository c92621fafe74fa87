import { defineSimsVitestConfig } from '../vitest.shared.ts';

// The shared three projects. The container project reuses @sims/testcontainers' global setup: it finds the
// Docker engine (skipping loudly without one, failing under CI=true), builds both images and removes this
// run's simulator containers at the end.
const config = defineSimsVitestConfig();
for (const project of config.test?.projects ?? []) {
  if (typeof project === 'object' && 'test' in project && project.test?.name === 'container') {
    project.test.globalSetup = ['../packages/testcontainers/test/container/support/global-setup.ts'];
  }
}

export default config;
