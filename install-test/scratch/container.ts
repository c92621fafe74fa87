// @sims/testcontainers against the image (sims/cluster-sim:dev): compiled with the rest, run only when a
// Docker engine answers. The test sets the host-network variables of packages/testcontainers' README.
import assert from 'node:assert/strict';
import { ClusterSimContainer, type StartedClusterSimContainer } from '@sims/testcontainers';

const sim: StartedClusterSimContainer = await new ClusterSimContainer()
  .withClock('manual')
  .withLabels({ 'org.sims.install-test': process.env.SIMS_INSTALL_TEST_RUN ?? 'by-hand' })
  .start();
try {
  const control = sim.client();
  assert.equal((await control.health()).status, 'ok');
  await control.seed({
    clusters: [{ projectId: 'p', location: 'europe-west1', name: 'c1', nodePools: [{ name: 'np1' }] }],
  });
  const pool = `${sim.getBaseUrl()}/v1beta1/projects/p/locations/europe-west1/clusters/c1/nodePools/np1`;
  const res = await fetch(pool, { headers: { authorization: 'Bearer t' } });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(((await res.json()) as { name: string }).name, 'np1');
} finally {
  await sim.stop();
}
console.log('container.ts: ok');
