#!/usr/bin/env node
import { cliKernelOptions, lazyCommand, nodeProcess, runSimulatorCli, SimInputError } from '@sims/sim-core';
import { startAnnotationSim } from './app';
import { ANNOTATION_BUDGET_KINDS } from './budget-kinds';
import { SIMULATOR_NAME, SIMULATOR_VERSION } from './definition';
import { type EgressSettings, egressSettingsOf } from './delivery/egress';

/**
 * `annotation-sim --port 8086 --scenario faults.yaml`: serve, print the ready line, stop on SIGTERM.
 * The runner loads `--scenario` files through the control plane, then the `--state-file` snapshot into
 * the kernel's default namespace (streamed: a world of any size), and saves it there on SIGTERM.
 */
/**
 * The egress policy of every world from `SIM_EGRESS_POLICY` (`metadata-only`, `cvat-proxy`) and
 * `SIM_EGRESS_ALLOW` (comma-separated hosts and CIDR ranges); a bad value is a usage error (exit 2).
 */
function egressFromEnv(env: NodeJS.ProcessEnv): EgressSettings {
  const allow = (env.SIM_EGRESS_ALLOW ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  // Neither set: the default, with nothing to validate.
  if (allow.length === 0 && !env.SIM_EGRESS_POLICY) return egressSettingsOf(undefined);
  try {
    return egressSettingsOf({ policy: env.SIM_EGRESS_POLICY || undefined, allow });
  } catch (err) {
    throw new SimInputError(`SIM_EGRESS_POLICY / SIM_EGRESS_ALLOW: ${(err as Error).message}`);
  }
}

// Not a top-level await: the CLI bundle is CommonJS (docs/decisions/0031-cli-code-cache.md); the runner
// settles every outcome itself (exit codes, messages).
void runSimulatorCli({
  name: SIMULATOR_NAME,
  version: SIMULATOR_VERSION,
  defaultPort: 8086,
  dashboard: true,
  budgetKinds: ANNOTATION_BUDGET_KINDS,
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
    const egress = egressFromEnv(process.env);
    const sim = await startAnnotationSim({
      ...cliKernelOptions(options),
      port: options.port,
      host: options.host,
      admin: {
        username: process.env.SIM_ADMIN_USERNAME ?? 'admin',
        password: process.env.SIM_ADMIN_PASSWORD ?? 'admin',
      },
      signedUrls: process.env.SIM_SIGNED_URLS === 'true',
      strictAccept: process.env.SIM_STRICT_ACCEPT !== 'false',
      compat: { taskSegments: process.env.SIM_TASK_SEGMENTS === 'true' },
      delivery: { egress },
    });
    return {
      url: sim.url,
      port: sim.port,
      host: options.host,
      server: sim.server,
      app: sim.app,
      kernel: sim.kernel,
      close: sim.close,
    };
  },
});
