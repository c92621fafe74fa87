import { fileURLToPath } from 'node:url';
import { collectPactFiles, verifyPacts } from '@sims/pact-verify';
import { describe, expect, it } from 'vitest';
import { clusterSimProviders } from '../../src/verify/provider';

/** The committed consumer pacts (contracts/pacts/), from this file's place in the repository. */
const PACTS = fileURLToPath(new URL('../../../../contracts/pacts/', import.meta.url));
const OURS = clusterSimProviders.map((p) => p.name);

describe('cluster-sim against the consumer pacts in contracts/pacts', () => {
  it('verifies every interaction of every pact whose provider is cluster-sim, on a fresh simulator with the STATES.md states', async () => {
    const files = collectPactFiles([PACTS])
      .filter((p) => OURS.includes(p.provider))
      .map((p) => p.file);
    expect(files.length).toBeGreaterThan(0);
    const result = await verifyPacts({ providers: clusterSimProviders, pacts: files });
    expect(
      result.results.flatMap((r) => [
        ...r.stateFailures,
        ...r.mismatches.map((m) => `${m.interaction}: ${m.details.join('; ')}`),
      ]),
    ).toEqual([]);
    expect(result.ok).toBe(true);
  });
});
