import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PactV4, type V3MockServer } from '@pact-foundation/pact';
// Not re-exported from the package root.
import type { V4ResponseBuilder } from '@pact-foundation/pact/src/v4/http/types';
import type { StateParam } from '../../../src/states';

/** `contracts/pacts/`: the committed pact files. */
const PACT_DIR = fileURLToPath(new URL('../../../pacts', import.meta.url));

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

/**
 * Wraps an `executeTest` body so that it returns only once the mock server has recorded every match.
 *
 * Works around pact-reference#535 (pact-core-mock-server#13, fix pending): since pact-js 16.3 the mock
 * server may send a response before it records the match, and under CPU load `executeTest` then reports
 * "expected but not received" for a request that was answered. This polls the mock server's own verdict
 * (a port-keyed FFI call) for up to `timeoutMs`; after that, `executeTest` judges as usual, so a request
 * that was really never sent still fails the test.
 */
export function recorded<T>(
  pact: PactV4,
  testFn: (server: V3MockServer) => Promise<T>,
  timeoutMs = 2_000,
): (server: V3MockServer) => Promise<T> {
  // The FFI handle is private in PactV4; the call only needs the port.
  const { pact: ffi } = pact as unknown as { pact: { mockServerMatchedSuccessfully(port: number): boolean } };
  return async (server) => {
    const result = await testFn(server);
    const deadline = Date.now() + timeoutMs;
    while (!ffi.mockServerMatchedSuccessfully(server.port) && Date.now() < deadline) await wait(5);
    return result;
  };
}
