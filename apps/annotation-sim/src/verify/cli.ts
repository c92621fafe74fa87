/**
 * `annotation-sim verify [options] <pact files or folders>...`: verifies pacts against a fresh in-process annotation-sim
 * (the CVAT REST API (`annotation-sim`) and its webhook deliveries as messages (`annotation-sim-webhooks`)), with the provider states of contracts/STATES.md. `src/main.ts` imports this module only
 * when the command is named; the npm package builds it to `dist/verify/`, which the Docker image leaves
 * out, and pact (`@pact-foundation/pact`) is an optional peer dependency that only this command loads.
 */
import { runVerifyCli } from '@sims/pact-verify';
import { type CliProcess, loadOptionalModule } from '@sims/sim-core';
import { annotationSimProviders } from './provider';

/** What `annotation-sim verify` says to install when pact is missing. */
export const PACT_INSTALL = 'npm install --save-dev @pact-foundation/pact@^16.5.0';

/**
 * Runs the verify command; resolves with its exit code (0 verified, 1 a verification failed, 2 bad usage
 * or pact not installed).
 *
 * @example process.exitCode = await runVerify(['contracts/pacts'], nodeProcess());
 */
export async function runVerify(argv: string[], proc: CliProcess): Promise<number> {
  if (!argv.includes('--help') && !argv.includes('-h')) {
    await loadOptionalModule(() => import('@pact-foundation/pact'), {
      what: 'annotation-sim verify',
      dependency: '@pact-foundation/pact',
      install: PACT_INSTALL,
    });
  }
  return runVerifyCli(annotationSimProviders, argv, {
    command: 'annotation-sim verify',
    out: proc.stdout,
    err: proc.stderr,
    env: proc.env,
  });
}
