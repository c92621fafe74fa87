import { v1 } from '@google-cloud/container';
import { credentials } from '@grpc/grpc-js';
import { startClusterSim } from '@sims/cluster-sim';
import { createClusterSimClient } from '@sims/sim-client';
import { afterAll, expect, it } from 'vitest';

// gRPC on the REST port. From the CLI, the ready line names it: "…, gRPC 127.0.0.1:8085, clock real)".
const sim = await startClusterSim({ port: 0 });
afterAll(() => sim.close());

it('reads a cluster with @google-cloud/container on its default transport, gRPC', async () => {
  await createClusterSimClient({ baseUrl: sim.url }).seed({
    clusters: [{ projectId: 'p1', location: 'us-central1-a', name: 'c1' }],
  });
  const [host, port] = sim.grpcEndpoint.split(':'); // '127.0.0.1', '<port>'
  const gke = new v1.ClusterManagerClient({
    apiEndpoint: host,
    port: Number(port),
    sslCreds: credentials.createInsecure(), // plaintext HTTP/2
  });
  // Insecure credentials carry no token: send one as call metadata (any bearer token is accepted).
  const call = { otherArgs: { headers: { authorization: 'Bearer any-token' } } };
  const [cluster] = await gke.getCluster({ name: 'projects/p1/locations/us-central1-a/clusters/c1' }, call);
  expect(cluster.status).toBe('RUNNING');
  await gke.close();
});
