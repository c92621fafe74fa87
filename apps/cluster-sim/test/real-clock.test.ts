import { describe, expect, it } from 'vitest';
import { aCluster } from './support/fixtures';
import { createHarness, OPS, POOL } from './support/harness';

describe('under a real clock', () => {
  it('finishes an update in about two seconds of simulated time (run 40x faster here)', async () => {
    const h = createHarness({ clock: { mode: 'real', speed: 40 } });
    await h.seed({ clusters: [aCluster().build()] });
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    expect(op.status).toBe('PENDING');
    await expect
      .poll(async () => (await h.get(`${OPS}/${op.name}`)).body.status, { timeout: 2_000, interval: 10 })
      .toBe('DONE');
    const done = (await h.get(`${OPS}/${op.name}`)).body;
    const took = Date.parse(done.endTime) - Date.parse(done.startTime);
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(2_500);
    h.close();
  });
});
