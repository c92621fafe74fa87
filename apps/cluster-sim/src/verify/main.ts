/**
 * `pnpm --filter @sims/cluster-sim verify <pact files or folders>` (or `tsx src/verify/main.ts …`):
 * verifies pacts against a fresh in-process cluster-sim with the provider states of contracts/STATES.md.
 * A development-time tool: `src/main.ts` (the Docker image's entry) never imports it. `--help` for options.
 */
import { runVerifyCli } from '@sims/pact-verify';
import { clusterSimProviders } from './provider';

const code = await runVerifyCli(clusterSimProviders, process.argv.slice(2), {
  command: 'pnpm --filter @sims/cluster-sim verify',
});
process.exit(code);
