import { appSender } from '@sims/test-support/control-dialect';
import { checkSnapshotRefusals } from '@sims/test-support/snapshot-refusals';
import { afterEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool, V } from './support/fixtures';
import { createHarness, type Harness, POOL } from './support/harness';

/**
 * Snapshot refusals, the same in both simulators (`@sims/test-support/snapshot-refusals`; annotation-sim's
 * test runs the same walk): a damaged `PUT /_sim/state` is the control plane's 400 at a path and changes
 * nothing, and a part of `state` left out starts as a new world has it.
 */
let h: Harness;
afterEach(() => h?.close());

describe("cluster-sim's PUT /_sim/state", () => {
  it('refuses damaged snapshots as annotation-sim does, and starts a left-out part as a new world has it', async () => {
    h = createHarness();
    await h.seed({
      projects: [{ projectId: 'p1', projectNumber: '123456789012' }],
      clusters: [aCluster().withPools(aNodePool('np1').withVersion(V.oldPatch133).withNodeCount(2)).build()],
    });
    await h.settings({ rollout: { phaseMs: 60_000 } });
    expect((await h.put(POOL, { nodeVersion: V.master })).status).toBe(200);
    const report = await checkSnapshotRefusals({ send: appSender(h.sim.app), fresh: 'untouched' });
    expect(report.violations).toEqual([]);
    expect(report.refused.length).toBeGreaterThan(15);
    // The operation names its cluster, but a record of what happened stays without it: nothing is refused.
    expect(report.leftOutRefused).toEqual([]);
    expect(report.leftOut).toEqual(['clusters', 'operations', 'projectNumbers', 'serverConfig', 'settings']);
  });
});
