import { fileURLToPath } from 'node:url';
import { collectPactFiles, verifyPacts } from '@sims/pact-verify';
import { describe, expect, it } from 'vitest';
import { annotationSimProviders } from '../../src/verify/provider';

/** The committed consumer pacts (contracts/pacts/), from this file's place in the repository. */
const PACTS = fileURLToPath(new URL('../../../../contracts/pacts/', import.meta.url));

function pactsOf(provider: string): string[] {
  return collectPactFiles([PACTS])
    .filter((p) => p.provider === provider)
    .map((p) => p.file);
}

function failuresOf(result: Awaited<ReturnType<typeof verifyPacts>>): string[] {
  return result.results.flatMap((r) => [
    ...(r.error ? [r.error] : []),
    ...r.stateFailures,
    ...r.mismatches.map((m) => `${m.interaction}: ${m.details.join('; ')}`),
  ]);
}

describe('annotation-sim against the consumer pacts in contracts/pacts', () => {
  it('verifies every HTTP interaction of every pact whose provider is annotation-sim (webhook-admin, events-exporter, task-creator, pre-annotator, job-collector) on a fresh simulator', async () => {
    const files = pactsOf('annotation-sim');
    expect(files.length).toBeGreaterThanOrEqual(2);
    const result = await verifyPacts({ providers: annotationSimProviders, pacts: files });
    expect(failuresOf(result)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('verifies every webhook message of the annotation-sim-webhooks pacts against the payload factory the delivery engine uses, signed with the webhook secret', async () => {
    const files = pactsOf('annotation-sim-webhooks');
    expect(files.length).toBeGreaterThanOrEqual(1);
    const result = await verifyPacts({ providers: annotationSimProviders, pacts: files });
    expect(failuresOf(result)).toEqual([]);
    expect(result.ok).toBe(true);
  });
});
