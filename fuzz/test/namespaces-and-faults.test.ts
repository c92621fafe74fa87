import { describe, expect, it } from 'vitest';
import { findingsPath } from '../src/findings';
import { injected, isolation, propertyFailureLines } from '../src/suite';
import { explain, PROPERTY_RUNS, SEED, TIMEOUT } from './support';

describe('namespace isolation and injected faults', () => {
  for (const sim of ['cluster-sim', 'annotation-sim'] as const) {
    it(
      `${sim}: nothing one namespace seeds, creates, records or is given shows in another (${PROPERTY_RUNS} cases)`,
      async () => {
        const r = await isolation(sim, { seed: SEED, numRuns: PROPERTY_RUNS });
        const lines = propertyFailureLines(r);
        expect(lines, explain(lines, findingsPath())).toEqual([]);
      },
      TIMEOUT,
    );
    it(
      `${sim}: an injected 5xx carries X-Sim-Reason and (error effects) the API's envelope (${PROPERTY_RUNS} cases)`,
      async () => {
        const r = await injected(sim, { seed: SEED, numRuns: PROPERTY_RUNS });
        const lines = propertyFailureLines(r);
        expect(lines, explain(lines, findingsPath())).toEqual([]);
      },
      TIMEOUT,
    );
  }
});
