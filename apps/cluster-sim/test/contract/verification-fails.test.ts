import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyPacts } from '@sims/pact-verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSimProviders } from '../../src/verify/provider';
import { WRONG_PACT } from './support/wrong-pact';

describe('cluster-sim verification rejects a wrong pact', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrong-pact-'));
    writeFileSync(join(dir, 'wrong-consumer-cluster-sim.json'), JSON.stringify(WRONG_PACT, null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the expected and actual pool version as a body mismatch, and an undocumented state as a failed state', async () => {
    const result = await verifyPacts({ providers: clusterSimProviders, pacts: [dir], log: () => {} });
    expect(result.ok).toBe(false);
    const [run] = result.results;
    const wrongVersion = run?.mismatches.find((m) => m.interaction.includes('expecting a version'));
    expect(wrongVersion?.details.join('\n')).toMatch(
      /BodyMismatch at \$\.version: Expected '1\.29\.8-gke\.1211000' .* to be equal to '1\.31\.0-gke\.1000000'/,
    );
    expect(run?.stateFailures).toEqual([
      expect.stringMatching(
        /^provider state "the pool is on fire" \{\} could not be set up: unknown provider state/,
      ),
    ]);
    expect(run?.mismatches.map((m) => m.interaction)).toEqual([
      expect.stringContaining('expecting a version it does not have'),
      expect.stringContaining('in an undocumented world'),
    ]);
  });
});
