#!/usr/bin/env node
import { cliKernelOptions, lazyCommand, nodeProcess, runSimulatorCli } from '@sims/sim-core';
import { startClusterSim } from './app';
import { SIMULATOR_NAME, SIMULATOR_VERSION } from './definition';
import { CLUSTER_BUDGET_KINDS } from './domain/operations-budget';

/**
 * The `cluster-sim` binary: `cluster-sim --port 8085 --clock manual --scenario faults.yaml`.
 * The runner loads `--scenario` files through the control plane, then the `--state-file` snapshot into
 * the kernel's default namespace (streamed: a world of any size), and saves it there on SIGTERM.
 */
// Not a top-level await: the CLI bundle is CommonJS (docs/decisions/0031-cli-code-cache.md); the runner
// settles every outcome itself (exit codes, messages).
void runSimulatorCli({
  name: SIMULATOR_NAME,
  version: SIMULATOR_VERSION,
  defaultPort: 8085,
  dashboard: true,
  budgetKinds: CLUSTER_BUDGET_KINDS,
  proc: nodeProcess(),
  commands: {
    // Imported only when named: the bundle keeps it in dist/verify/, outside the image (tsup.config.ts).
    verify: lazyCommand({
      summary: 'verify pact files against a fresh in-process cluster-sim (needs @pact-foundation/pact)',
      usage: 'verify [options] <pact files or folders>...',
      what: 'cluster-sim verify',
      load: () => import('./verify/cli').then((m) => m.runVerify),
    }),
  },
  async start(options) {
    const sim = await startClusterSim({
      ...cliKernelOptions(options),
      port: options.port,
      host: options.host,
    });
    return {
      url: sim.url,
      port: sim.port,
      host: sim.host,
      server: sim.server,
      app: sim.app,
      kernel: sim.kernel,
      // The same port as REST (HTTP/2 told apart by its preface): the ready line names it for gRPC clients.
      grpcEndpoint: sim.grpcEndpoint,
      close: () => sim.close(),
    };
  },
});
