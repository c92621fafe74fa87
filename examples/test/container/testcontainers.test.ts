import { ClusterSimContainer, type StartedClusterSimContainer } from '@sims/testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipReason } from './support';

describe.skipIf(skipReason)('cluster-sim in a container', () => {
  let sim: StartedClusterSimContainer;
  beforeAll(async () => {
    sim = await new ClusterSimContainer()
      .withScenario('../scenarios/operation-fails-midway.yaml') // relative to this package
      .withClock('manual')
      .start(); // once the ready line is logged and /_sim/health answers
  });
  afterAll(() => sim?.stop());

  it('fails the first upgrade halfway, as the scenario says', async () => {
    const control = sim.client(); // the typed control-plane client, already pointed at the container
    await control.seed({
      clusters: [{ projectId: 'p', location: 'europe-west1', name: 'c1', nodePools: [{ name: 'np1' }] }],
    });
    const pool = `${sim.getBaseUrl()}/v1beta1/projects/p/locations/europe-west1/clusters/c1/nodePools/np1`;
    const auth = { authorization: 'Bearer t', 'content-type': 'application/json' };
    const update = await fetch(pool, { method: 'PUT', headers: auth, body: '{"nodeVersion":"-"}' });
    const op = (await update.json()) as { name: string };

    await control.clock.advance('1h');
    const ops = `${sim.getBaseUrl()}/v1beta1/projects/p/locations/europe-west1/operations`;
    const done = await (await fetch(`${ops}/${op.name}`, { headers: auth })).json();
    expect(done).toMatchObject({ status: 'DONE', error: { code: 13 } });
  });
});
