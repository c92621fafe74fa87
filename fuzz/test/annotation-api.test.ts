import { describe, expect, it } from 'vitest';
import { findingsPath } from '../src/findings';
import { campaign, failureLines } from '../src/suite';
import { API_REQUESTS, explain, SEED, SHRINK, TIMEOUT } from './support';

describe('annotation-sim API fuzz (from GET /openapi.json)', () => {
  it(
    `keeps every invariant over ${API_REQUESTS} requests (seed ${SEED})`,
    async () => {
      const r = await campaign('annotation-api', { seed: SEED, requests: API_REQUESTS, ...SHRINK });
      expect(r.requests).toBeGreaterThanOrEqual(API_REQUESTS - 5);
      const lines = failureLines(r);
      expect(lines, explain(lines, findingsPath())).toEqual([]);
    },
    TIMEOUT,
  );
});
