import { defineSimsVitestConfig } from '../../vitest.shared.ts';

// The shared three projects; the container project gets a global setup that finds the Docker engine,
// builds both images and removes leftover containers before and after the suite.
const config = defineSimsVitestConfig();
for (const project of config.test?.projects ?? []) {
  if (typeof project === 'object' && 'test' in project && project.test?.name === 'container') {
    project.test.globalSetup = ['test/container/support/global-setup.ts'];
  }
}

export default config;
