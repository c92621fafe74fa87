// TypeScript under strict NodeNext: type-checked with `tsc --noEmit`, then compiled and run with node.
import assert from 'node:assert/strict';
import { type StartedAnnotationSim, startAnnotationSim } from '@sims/annotation-sim';
import { type StartedClusterSim, startClusterSim } from '@sims/cluster-sim';
import {
  type AnnotationSimClient,
  type ClusterSimClient,
  createAnnotationSimClient,
  createClusterSimClient,
} from '@sims/sim-client';

interface NodePool {
  name: string;
  version: string;
  etag?: string;
}

const POOL = 'projects/demo/locations/us-central1-a/clusters/c1/nodePools/default-pool';

const cluster: StartedClusterSim = await startClusterSim({ port: 0, clock: { mode: 'manual' } });
try {
  const control: ClusterSimClient = createClusterSimClient({ baseUrl: cluster.url });
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
  const pool = (await res.json()) as NodePool;
  assert.equal(pool.version, '1.29.8-gke.1211000');
  const health = await control.health();
  assert.equal(health.status, 'ok');
} finally {
  await cluster.close();
}

const annotation: StartedAnnotationSim = await startAnnotationSim({ port: 0, clock: { mode: 'manual' } });
try {
  const control: AnnotationSimClient = createAnnotationSimClient({ baseUrl: annotation.url });
  await control.seed({ projects: [{ name: 'cats', owner: 'admin' }] });
  const basic = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
  const res = await fetch(`${annotation.url}/api/projects`, { headers: { authorization: basic } });
  assert.equal(res.status, 200, await res.clone().text());
  const page = (await res.json()) as { count: number; results: { name: string }[] };
  assert.deepEqual(
    page.results.map((p) => p.name),
    ['cats'],
  );
} finally {
  await annotation.close();
}

console.log('smoke.ts: ok');
