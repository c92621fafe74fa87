import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { aCluster } from './support/fixtures';
import { createHarness, OPS, POOL } from './support/harness';

const SPEED = 40;

describe('under a real clock', () => {
  it(`finishes an update in about two seconds of simulated time (run ${SPEED}x faster here)`, async () => {
    // A timer that fires late on a loaded host (CI runs many test files at once) ends the operation
    // late in simulated time too, by SPEED times the lag: the upper bound allows exactly that.
    const lag = monitorEventLoopDelay({ resolution: 1 });
    lag.enable();
    const h = createHarness({ clock: { mode: 'real', speed: SPEED } });
    await h.seed({ clusters: [aCluster().build()] });
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    // PENDING for its first simulated moments: on a loaded host the answer may already show RUNNING.
    expect(['PENDING', 'RUNNING']).toContain(op.status);
    await expect
      .poll(async () => (await h.get(`${OPS}/${op.name}`)).body.status, { timeout: 2_000, interval: 10 })
      .toBe('DONE');
    lag.disable();
    const done = (await h.get(`${OPS}/${op.name}`)).body;
    const took = Date.parse(done.endTime) - Date.parse(done.startTime);
    const maxLagMs = lag.max / 1e6;
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(2_500 + SPEED * maxLagMs);
    h.close();
  });
});
