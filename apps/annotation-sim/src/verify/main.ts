/**
 * `pnpm --filter @sims/annotation-sim verify <pact files or folders>` (or `tsx src/verify/main.ts …`):
 * verifies pacts against a fresh in-process annotation-sim, the CVAT REST API (`annotation-sim`) and
 * its webhook deliveries as messages (`annotation-sim-webhooks`), with the provider states of
 * contracts/STATES.md. A development-time tool: `src/main.ts` (the Docker image's entry) never imports
 * it. `--help` for options.
 */
import { runVerifyCli } from '@sims/pact-verify';
import { annotationSimProviders } from './provider';

const code = await runVerifyCli(annotationSimProviders, process.argv.slice(2), {
  command: 'pnpm --filter @sims/annotation-sim verify',
});
process.exit(code);
