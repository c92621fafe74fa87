#!/usr/bin/env node
import { lazyCommand, nodeProcess, runSimulatorCli } from '@sims/sim-core';
import { startAnnotationSim } from './app';
import { SIMULATOR_NAME, SIMULATOR_VERSION } from './simulator';

/**
 * `annotation-sim --port 8086 --scenario faults.yaml`: serve, print the ready line, stop on SIGTERM.
 * The runner loads `--scenario` files and the `--state-file` snapshot through the control plane and
 * saves the snapshot on SIGTERM.
 */
await runSimulatorCli({
  name: SIMULATOR_NAME,
  version: SIMULATOR_VERSION,
  defaultPort: 8086,
  proc: nodeProcess(),
  commands: {
    // Imported only when named: the bundle keeps it in dist/verify/, outside the image (tsup.config.ts).
    verify: lazyCommand({
      summary: 'verify pact files against a fresh in-process annotation-sim (needs @pact-foundation/pact)',
      usage: 'verify [options] <pact files or folders>...',
      what: 'annotation-sim verify',
      load: () => import('./verify/cli').then((m) => m.runVerify),
    }),
  },
  async start(options) {
    const sim = await startAnnotationSim({
      port: options.port,
      host: options.host,
      seed: options.seed,
      clock: { mode: options.clock, speed: options.speed },
      adminToken: options.adminToken,
      requestLog: options.requestLog,
      admin: {
        username: process.env.SIM_ADMIN_USERNAME ?? 'admin',
        password: process.env.SIM_ADMIN_PASSWORD ?? 'admin',
      },
      signedUrls: process.env.SIM_SIGNED_URLS === 'true',
      strictAccept: process.env.SIM_STRICT_ACCEPT !== 'false',
      compat: { taskSegments: process.env.SIM_TASK_SEGMENTS === 'true' },
    });
    return {
      url: sim.url,
      port: sim.port,
      host: options.host,
      server: sim.server,
      app: sim.app,
      close: sim.close,
    };
  },
});
