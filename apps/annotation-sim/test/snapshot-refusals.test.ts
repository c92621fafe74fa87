import { appSender } from '@sims/test-support/control-dialect';
import { checkSnapshotRefusals } from '@sims/test-support/snapshot-refusals';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';

/**
 * Snapshot refusals, the same in both simulators (`@sims/test-support/snapshot-refusals`; cluster-sim's
 * test runs the same walk): a damaged `PUT /_sim/state` is the control plane's 400 at a path and changes
 * nothing, and a part of `state` left out starts as a new world has it.
 */
let h: Harness;
afterEach(() => h?.close());

describe("annotation-sim's PUT /_sim/state", () => {
  it('refuses damaged snapshots as cluster-sim does, and starts a left-out part as a new world has it', async () => {
    h = createHarness();
    h.seed({
      ...TEAM,
      projects: [{ name: 'p', owner: 'alice', labels: [{ name: 'car' }] }],
      tasks: [{ name: 't', owner: 'alice', project: 'p', size: 4, segment_size: 2 }],
    });
    expect((await h.patch('/api/jobs/1', { assignee: 2 }, { as: 'alice' })).status).toBe(200);
    const report = await checkSnapshotRefusals({
      send: appSender(h.sim.app),
      fresh: 'untouched',
      // The base URL a world answers under is learnt from each request's Host.
      volatile: ['baseUrl'],
    });
    expect(report.violations).toEqual([]);
    expect(report.refused.length).toBeGreaterThan(25);
    // A table other rows point into cannot go alone (the refusal names the row that points there).
    expect(report.leftOutRefused).toEqual(['seq', 'users', 'organizations', 'projects', 'tasks']);
    expect(report.leftOut).toEqual(expect.arrayContaining(['jobs', 'webhooks', 'deliveries', 'extensions']));
  });
});
