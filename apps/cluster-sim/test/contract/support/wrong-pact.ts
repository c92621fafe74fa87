import { clusterStates } from '@sims/contracts';

const POOL_PATH = '/v1beta1/projects/sim-project/locations/us-central1-a/clusters/cluster-1/nodePools/pool-1';
const WORLD = [
  {
    name: clusterStates.cluster.template,
    params: {
      project: 'sim-project',
      location: 'us-central1-a',
      cluster: 'cluster-1',
      masterVersion: '1.30.5-gke.1014000',
      validNodeVersions: ['1.30.5-gke.1014000', '1.29.8-gke.1211000'],
    },
  },
  {
    name: clusterStates.nodePool.template,
    params: { nodePool: 'pool-1', cluster: 'cluster-1', version: '1.29.8-gke.1211000', etag: 'any' },
  },
];

/** A pact that is wrong on purpose: a pool version the state never set, and a state nobody documented. */
export const WRONG_PACT = {
  consumer: { name: 'wrong-consumer' },
  provider: { name: 'cluster-sim' },
  interactions: [
    {
      type: 'Synchronous/HTTP',
      description: 'a read of pool-1 expecting a version it does not have',
      providerStates: WORLD,
      request: { method: 'GET', path: POOL_PATH, headers: { Authorization: ['Bearer ya29.token'] } },
      response: {
        status: 200,
        body: {
          content: { name: 'pool-1', version: '1.31.0-gke.1000000' },
          contentType: 'application/json',
          encoded: false,
        },
      },
    },
    {
      type: 'Synchronous/HTTP',
      description: 'a read of pool-1 in an undocumented world',
      providerStates: [...WORLD, { name: 'the pool is on fire', params: {} }],
      request: { method: 'GET', path: POOL_PATH, headers: { Authorization: ['Bearer ya29.token'] } },
      response: { status: 200 },
    },
  ],
  metadata: { pactSpecification: { version: '4.0' } },
};
