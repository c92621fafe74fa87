import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool } from './support/fixtures';
import { createHarness, type Harness } from './support/harness';

/** ClusterUpdate `desiredLocations`: the cluster's node zones; every node pool moves with them. */
let h: Harness;
const REGION = '/v1beta1/projects/p1/locations/us-central1';
const CLUSTER = `${REGION}/clusters/c1`;

beforeEach(async () => {
  h = createHarness();
  const cluster = aCluster()
    .inLocation('us-central1')
    .withPools(aNodePool('np1').withNodeCount(2), aNodePool('np2').withNodeCount(1))
    .build();
  cluster.locations = ['us-central1-a', 'us-central1-b'];
  await h.seed({ clusters: [cluster] });
});
afterEach(() => h.close());

describe('clusters.update desiredLocations', () => {
  it('moves every pool to the new zones with an UPDATE_CLUSTER operation, keeping the instance groups that stay', async () => {
    const before = (await h.get(`${CLUSTER}/nodePools/np1`)).body;
    expect(before.locations).toEqual(['us-central1-a', 'us-central1-b']);
    expect((await h.get(CLUSTER)).body.currentNodeCount).toBe(6);
    const res = await h.put(CLUSTER, {
      update: { desiredLocations: ['us-central1-b', 'us-central1-c', 'us-central1-f'] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ operationType: 'UPDATE_CLUSTER', status: 'PENDING' });
    expect(res.body.targetLink).toMatch(/\/locations\/us-central1\/clusters\/c1$/);
    // Nothing moves before the operation is DONE.
    expect((await h.get(`${CLUSTER}/nodePools/np1`)).body.locations).toEqual([
      'us-central1-a',
      'us-central1-b',
    ]);
    await h.advance('2s');
    const op = (await h.get(`${REGION}/operations/${res.body.name}`)).body;
    expect(op.status).toBe('DONE');
    const cluster = (await h.get(CLUSTER)).body;
    expect(cluster.locations).toEqual(['us-central1-b', 'us-central1-c', 'us-central1-f']);
    expect(cluster.currentNodeCount).toBe(9);
    const after = cluster.nodePools.find((p: { name: string }) => p.name === 'np1');
    expect(after.locations).toEqual(['us-central1-b', 'us-central1-c', 'us-central1-f']);
    expect(after.instanceGroupUrls).toHaveLength(3);
    expect(after.instanceGroupUrls[0]).toBe(before.instanceGroupUrls[1]);
    expect(after.instanceGroupUrls[1]).toMatch(
      /\/zones\/us-central1-c\/instanceGroupManagers\/gke-c1-np1-[0-9a-f]{8}-grp$/,
    );
    expect(after.etag).not.toBe(before.etag);
  });

  it('refuses zones outside the region, duplicates, and a zonal cluster without its primary zone', async () => {
    for (const [locations, message] of [
      [['us-east1-b'], `Location "us-east1-b" is not a zone of the cluster's region "us-central1".`],
      [['us-central1'], `Location "us-central1" is not a zone of the cluster's region "us-central1".`],
      [['us-central1-a', 'us-central1-a'], 'Locations must not contain duplicates.'],
    ] as const) {
      const res = await h.put(CLUSTER, { update: { desiredLocations: locations } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message });
    }
    await h.seed({ clusters: [aCluster('zonal').build()] });
    const zonal = await h.put('/v1beta1/projects/p1/locations/us-central1-a/clusters/zonal', {
      update: { desiredLocations: ['us-central1-b'] },
    });
    expect(zonal.status).toBe(400);
    expect(zonal.body.error.message).toBe(
      `Locations must include the cluster's primary zone "us-central1-a".`,
    );
    // Nothing started.
    expect((await h.get(`${REGION}/operations`)).body.operations ?? []).toEqual([]);
  });

  it('refuses desiredLocations beside another field as not simulated, applying neither', async () => {
    const res = await h.put(CLUSTER, {
      update: { desiredLocations: ['us-central1-a'], desiredNodeVersion: '-', desiredNodePoolId: 'np1' },
    });
    expect(res.status, res.text).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
  });
});
