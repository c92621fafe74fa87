import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PactV4 } from '@pact-foundation/pact';
// Not re-exported from the package root.
import type { V4ResponseBuilder } from '@pact-foundation/pact/src/v4/http/types';
import type { StateParam } from '../../../src/states';

/** `contracts/pacts/`: the committed pact files. */
export const PACT_DIR = fileURLToPath(new URL('../../../pacts', import.meta.url));

/**
 * One consumer–provider pact. Its file is deleted first: pact merges new interactions into an existing
 * file, so a renamed or removed interaction would otherwise live on in the committed pact.
 * Call it in `beforeAll`, once per test file (one file per pact).
 */
export function createPact(consumer: string, provider: string): PactV4 {
  rmSync(join(PACT_DIR, `${consumer}-${provider}.json`), { force: true });
  return new PactV4({ consumer, provider, dir: PACT_DIR, host: '127.0.0.1', logLevel: 'warn' });
}

/**
 * Sets a plain-text response body (compared by equality unless a matching rule on `$` says otherwise).
 * pact-js 16.5's V4 builder has no text body: `body()` stores binary content that verification checks
 * by sniffing its type (a CSV is detected as text/plain and fails), and `withCompleteResponse` is not
 * implemented. The FFI interaction underneath supports text bodies, so this reaches for it.
 */
export function textBody(builder: V4ResponseBuilder, contentType: string, text: string): void {
  const { interaction } = builder as unknown as {
    interaction: { withResponseBody(body: string, contentType: string): void };
  };
  interaction.withResponseBody(text, contentType);
}

/** A `[name, params]` pair from `state.with(params)`. */
export type GivenState = [string, Record<string, StateParam>];

/** `pact.addInteraction()` with every state of `states` given, in order. */
export function addInteractionGiven(pact: PactV4, states: readonly GivenState[]) {
  return states.reduce(
    (interaction, [name, params]) => interaction.given(name, params),
    pact.addInteraction(),
  );
}
