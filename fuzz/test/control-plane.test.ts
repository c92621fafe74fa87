import { describe, expect, it } from 'vitest';
import { findingsPath } from '../src/findings';
import { campaign, failureLines } from '../src/suite';
import { CONTROL_REQUESTS, explain, SEED, SHRINK, TIMEOUT } from './support';

describe('control plane fuzz (from GET /_sim/openapi.json)', () => {
  for (const name of ['cluster-control', 'annotation-control'] as const) {
    it(
      `${name}: keeps every invariant over ${CONTROL_REQUESTS} requests (seed ${SEED})`,
      async () => {
        const r = await campaign(name, { seed: SEED, requests: CONTROL_REQUESTS, ...SHRINK });
        expect(r.requests).toBeGreaterThanOrEqual(CONTROL_REQUESTS - 5);
        const lines = failureLines(r);
        expect(lines, explain(lines, findingsPath())).toEqual([]);
      },
      TIMEOUT,
    );
  }
});
