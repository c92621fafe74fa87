import { v1, v1beta1 } from '@google-cloud/container';
import { describe, expect, it } from 'vitest';
import { fakeAuth, useSocketSim } from './support/client-sim';

/**
 * The full cluster shape through Google's GAPIC clients (REST fallback, numeric enums): every field
 * the simulator answers must decode in the client's proto of that API version (v1 answers leave out
 * the v1beta1-only fields).
 */

const simOf = useSocketSim(11);
const auth = fakeAuth;

const options = () =>
  ({
    fallback: true,
    apiEndpoint: '127.0.0.1',
    port: simOf().port,
    protocol: 'http',
    authClient: auth(),
  }) as never;

const advance = (by: string) =>
  simOf().app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by }) });

describe('a created cluster read by the GAPIC clients', () => {
  it.each([
    ['v1', () => new v1.ClusterManagerClient(options())],
    // The v1beta1 client has the same methods (its request and response types are wider).
    ['v1beta1', () => new v1beta1.ClusterManagerClient(options()) as unknown as v1.ClusterManagerClient],
  ] as const)('decodes in %s', async (version, make) => {
    const gke = make();
    const parent = 'projects/p1/locations/us-central1-a';
    const name = `shape-${version}`;
    const [op] = await gke.createCluster({
      parent,
      cluster: {
        name,
        initialNodeCount: 2,
        legacyAbac: { enabled: false },
        nodeConfig: { machineType: 'e2-standard-4' },
      },
    });
    expect(op.operationType).toBe('CREATE_CLUSTER');
    await advance('5s');
    const [done] = await gke.getOperation({ name: `${parent}/operations/${op.name}` });
    expect(done.progress?.metrics?.map((m) => m.name)).toContain('CLUSTER_HEALTHCHECKING_TOTAL');
    const [cluster] = await gke.getCluster({ name: `${parent}/clusters/${name}` });
    expect(cluster.network).toBe('default');
    expect(cluster.networkConfig?.network).toBe('projects/p1/global/networks/default');
    expect(cluster.ipAllocationPolicy?.useIpAliases).toBe(true);
    expect(cluster.currentNodeCount).toBe(2);
    expect(cluster.nodeConfig?.machineType).toBe('e2-standard-4');
    expect(cluster.nodePools?.[0]?.config?.machineType).toBe('e2-standard-4');
    expect(cluster.controlPlaneEndpointsConfig?.dnsEndpointConfig?.endpoint).toMatch(/\.gke\.goog$/);
    await gke.close();
  });
});
