import { container } from '@googleapis/container';
import { type StartedClusterSim, startClusterSim } from '@sims/cluster-sim';
import { createClusterSimClient } from '@sims/sim-client';
import { setup } from '@sims/sim-client/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

setup(); // registers toHaveReceived and toHaveFired

let sim: StartedClusterSim;
beforeAll(async () => {
  sim = await startClusterSim({ port: 0, clock: { mode: 'manual' } }); // 127.0.0.1, a free port
});
afterAll(() => sim.close());

const POOL = 'projects/demo/locations/us-central1-a/clusters/c1/nodePools/default-pool';

it('re-reads the pool and retries when the update is ABORTED', async () => {
  const control = createClusterSimClient({ baseUrl: sim.url });
  await control.seed({
    clusters: [
      {
        projectId: 'demo',
        location: 'us-central1-a',
        name: 'c1',
        nodePools: [{ name: 'default-pool', version: '1.29.8-gke.1211000' }],
      },
    ],
  });
  const rule = await control.faults.add({
    match: { operation: 'nodePools.update' },
    trigger: { times: 1 },
    effect: { error: { status: 'ABORTED' } },
  });

  // Google's own client, pointed at the simulator.
  const gke = container({
    version: 'v1beta1',
    rootUrl: `${sim.url}/`,
    headers: { authorization: 'Bearer t' },
  });
  const upgrade = async () => {
    const pool = await gke.projects.locations.clusters.nodePools.get({ name: POOL });
    const etag = pool.data.etag ?? undefined;
    return gke.projects.locations.clusters.nodePools.update({
      name: POOL,
      requestBody: { nodeVersion: '-', etag },
    });
  };
  await expect(upgrade()).rejects.toMatchObject({ status: 409 }); // ABORTED
  const op = await upgrade(); // the retry goes through

  await control.clock.advance('10m'); // no sleeping: the operation finishes on the world clock
  const done = await gke.projects.locations.operations.get({
    name: `projects/demo/locations/us-central1-a/operations/${op.data.name}`,
  });
  expect(done.data.status).toBe('DONE');
  await expect(control).toHaveReceived({ operation: 'nodePools.update', times: 2 });
  await expect(rule).toHaveFired(1);
});
