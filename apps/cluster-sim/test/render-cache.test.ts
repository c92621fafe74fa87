import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderNodePool } from '../src/domain/node-pools';
import type { ClusterState } from '../src/domain/state';
import { aCluster, aNodePool, V } from './support/fixtures';
import { createHarness, type Harness, POOL } from './support/harness';

// GET nodePool answers from a rendering made once per stored pool value (bench/, issue 8): these pin
// that the answer still follows every change of the pool.
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seed({ clusters: [aCluster().withPools(aNodePool('np1')).build()] });
});
afterEach(() => h.close());

describe('node pool renderings', () => {
  it('follow an update through to DONE: version, status and etag', async () => {
    const before = (await h.get(POOL)).body;
    expect((await h.get(POOL)).body).toEqual(before);
    const put = await h.put(POOL, { nodeVersion: V.masterPrevPatch, etag: before.etag });
    expect(put.status, put.text).toBe(200);
    const during = (await h.get(POOL)).body;
    expect(during.etag).not.toBe(before.etag);
    expect(during.status).toBe('RECONCILING');
    await h.advance('1h');
    const after = (await h.get(POOL)).body;
    expect(after.version).toBe(V.masterPrevPatch);
    expect(after.status).toBe('RUNNING');
    expect(after.etag).not.toBe(during.etag);
  });

  it('differ by API version (self link, v1beta1-only node image) and are shared, frozen objects', async () => {
    const beta = (await h.get(POOL)).body;
    const v1 = (await h.get(POOL.replace('/v1beta1/', '/v1/'))).body;
    expect(beta.selfLink).toContain('/v1beta1/');
    expect(v1.selfLink).toContain('/v1/');
    // NodeConfig.nodeImageConfig exists only in v1beta1 (recorded in GKE 1.35's v1beta1 answers).
    const { nodeImageConfig, ...betaConfig } = beta.config;
    expect(nodeImageConfig).toMatchObject({ imageProject: 'gke-node-images' });
    expect({ ...v1, selfLink: beta.selfLink }).toEqual({ ...beta, config: betaConfig });

    const state = h.world().state as ClusterState;
    const cluster = [...state.clusters.values()][0];
    const record = cluster?.pools.get('np1');
    if (!cluster || !record) throw new Error('seeded pool missing');
    const first = renderNodePool(cluster, record, 'v1beta1');
    expect(renderNodePool(cluster, record, 'v1beta1')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { name?: string }).name = 'changed';
    }).toThrow(TypeError);
    // A pinned etag (a state file's) is part of the rendering too.
    record.pinnedEtag = 'cGlubmVk';
    expect(renderNodePool(cluster, record, 'v1beta1').etag).toBe('cGlubmVk');
  });
});
