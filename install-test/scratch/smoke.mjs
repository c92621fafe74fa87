// Plain JavaScript, run with plain `node smoke.mjs` (no loader): the packages as an ESM user imports them.
import assert from 'node:assert/strict';
import { startAnnotationSim } from '@sims/annotation-sim';
import { startClusterSim } from '@sims/cluster-sim';
import { createAnnotationSimClient, createClusterSimClient } from '@sims/sim-client';

const POOL = 'projects/demo/locations/us-central1-a/clusters/c1/nodePools/default-pool';

const cluster = await startClusterSim({ port: 0, clock: { mode: 'manual' } });
try {
  const control = createClusterSimClient({ baseUrl: cluster.url });
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
  const res = await fetch(`${cluster.url}/v1beta1/${POOL}`, { headers: { authorization: 'Bearer t' } });
  assert.equal(res.status, 200, await res.clone().text());
  const pool = await res.json();
  assert.equal(pool.name, 'default-pool');
  assert.equal(pool.version, '1.29.8-gke.1211000');
  assert.equal((await control.health()).status, 'ok');
} finally {
  await cluster.close();
}

const annotation = await startAnnotationSim({ port: 0, clock: { mode: 'manual' } });
try {
  const control = createAnnotationSimClient({ baseUrl: annotation.url });
  await control.seed({ projects: [{ name: 'cats', owner: 'admin' }] });
  const basic = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
  const self = await fetch(`${annotation.url}/api/users/self`, { headers: { authorization: basic } });
  assert.equal(self.status, 200, await self.clone().text());
  assert.equal((await self.json()).username, 'admin');
  const projects = await fetch(`${annotation.url}/api/projects`, { headers: { authorization: basic } });
  assert.equal(projects.status, 200, await projects.clone().text());
  const page = await projects.json();
  assert.deepEqual(
    page.results.map((p) => p.name),
    ['cats'],
  );
} finally {
  await annotation.close();
}

console.log('smoke.mjs: ok');
