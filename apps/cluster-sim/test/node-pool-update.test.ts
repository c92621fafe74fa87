import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool, V } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, LOC, OPS, POOL, ZONE } from './support/harness';

const OP_ID = /^operation-\d{13}-[0-9a-f-]+$/;
const NUMBER = '281707762362'; // the project number the simulator derives for "p1"

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seed({
    clusters: [
      aCluster()
        .withPools(
          aNodePool('np1').withTaints(
            { key: 'a', value: '1', effect: 'NO_SCHEDULE' },
            { key: 'b', value: '2', effect: 'NO_EXECUTE' },
          ),
          aNodePool('np2'),
        )
        .build(),
    ],
  });
});
afterEach(() => h.close());

describe('nodePools.update', () => {
  it('returns 200 and a PENDING UPGRADE_NODES operation with links and startTime but no endTime', async () => {
    const res = await h.put(POOL, { nodeVersion: V.masterPrevPatch });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(res.body).toEqual({
      name: expect.stringMatching(OP_ID),
      zone: 'us-central1-a',
      operationType: 'UPGRADE_NODES',
      status: 'PENDING',
      selfLink: `https://container.googleapis.com/v1beta1/projects/${NUMBER}/zones/us-central1-a/operations/${res.body.name}`,
      targetLink: `https://container.googleapis.com/v1beta1/projects/${NUMBER}/zones/us-central1-a/clusters/c1/nodePools/np1`,
      startTime: '2026-01-01T00:00:00.000000Z',
    });
  });

  it('accepts the legacy zonal form POST …/zones/{z}/clusters/{c}/nodePools/{np}/update', async () => {
    const res = await h.post(`${ZONE}/clusters/c1/nodePools/np1/update`, { nodeVersion: '-' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      operationType: 'UPGRADE_NODES',
      status: 'PENDING',
      zone: 'us-central1-a',
    });
    const legacyGet = await h.get(`${ZONE}/operations/${res.body.name}`);
    expect(legacyGet.status).toBe(200);
    expect(legacyGet.body.name).toBe(res.body.name);
  });

  it('answers a PUT on the zonal pool path as a URL GKE does not serve (its zonal update is POST …/update)', async () => {
    const res = await h.put(`${ZONE}/clusters/c1/nodePools/np1`, { nodeVersion: '-' });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(
      `The requested URL /v1beta1/projects/p1/zones/us-central1-a/clusters/c1/nodePools/np1 was not found on this server.`,
    );
  });

  it('returns the same operation from operations.get by location, legacy zone and project number', async () => {
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    for (const path of [
      `${OPS}/${op.name}`,
      `${ZONE}/operations/${op.name}`,
      `/v1beta1/projects/${NUMBER}/locations/us-central1-a/operations/${op.name}`,
    ]) {
      const res = await h.get(path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expect(res.body).toEqual(op);
    }
  });

  it('uses locations/ in links for a regional cluster and mirrors the v1 version segment', async () => {
    await h.seed({ clusters: [aCluster('r1').inLocation('us-central1').build()] });
    const res = await h.put('/v1/projects/p1/locations/us-central1/clusters/r1/nodePools/np1', {
      nodeVersion: '-',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.selfLink).toBe(
      `https://container.googleapis.com/v1/projects/${NUMBER}/locations/us-central1/operations/${res.body.name}`,
    );
    expect(res.body.targetLink).toBe(
      `https://container.googleapis.com/v1/projects/${NUMBER}/locations/us-central1/clusters/r1/nodePools/np1`,
    );
    expect(res.body.zone).toBe('us-central1');
  });

  it('shows the pool RECONCILING while the operation runs and RUNNING with the changes at DONE', async () => {
    const op = (await h.put(POOL, { nodeVersion: V.masterPrevPatch, labels: { labels: { team: 'x' } } }))
      .body;
    await h.advance('1s');
    expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('RUNNING');
    const during = (await h.get(POOL)).body;
    expect(during.status).toBe('RECONCILING');
    expect(during.version).toBe(V.master);
    expect((await h.get(CLUSTER)).body.status).toBe('RECONCILING');
    await h.advance('1s');
    const after = (await h.get(POOL)).body;
    expect(after.status).toBe('RUNNING');
    expect(after.version).toBe(V.masterPrevPatch);
    expect(after.config.labels).toEqual({ team: 'x' });
    expect((await h.get(CLUSTER)).body.status).toBe('RUNNING');
  });

  it('returns 409 ABORTED when the etag is stale and creates no operation', async () => {
    const stale = await h.etagOf();
    await h.put(POOL, { nodeVersion: '-', etag: stale });
    await h.advance('2s');
    const res = await h.put(POOL, { nodeVersion: V.masterPrevPatch, etag: stale });
    expect(res.status, res.text).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 409,
      status: 'ABORTED',
      errors: [{ domain: 'global', reason: 'aborted' }],
    });
    expect(res.body.error.message).toBe(
      `Etag "${stale}" does not match the current etag of node pool "np1".`,
    );
    expect((await h.get(OPS)).body.operations).toHaveLength(1);
  });

  it('uses the configured ABORTED text', async () => {
    await h.settings({ etagMismatchMessage: 'stale {etag} for {nodePool}' });
    const res = await h.put(POOL, { nodeVersion: '-', etag: 'old' });
    expect(res.body.error.message).toBe('stale old for np1');
  });

  it('succeeds with the current etag or with no etag', async () => {
    const withEtag = await h.put(POOL, { nodeVersion: '-', etag: await h.etagOf() });
    expect(withEtag.status, withEtag.text).toBe(200);
    await h.advance('2s');
    const without = await h.put(POOL, { nodeVersion: '-' });
    expect(without.status, without.text).toBe(200);
  });

  it('changes the etag with every completed mutation', async () => {
    const e0 = await h.etagOf();
    expect(e0).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await h.put(POOL, { labels: { labels: { a: '1' } } });
    const e1 = await h.etagOf();
    await h.advance('2s');
    const e2 = await h.etagOf();
    await h.put(POOL, { labels: { labels: { a: '2' } } });
    await h.advance('2s');
    const e3 = await h.etagOf();
    expect(new Set([e0, e1, e2, e3]).size).toBe(4);
    expect((await h.get(`${CLUSTER}/nodePools`)).body.nodePools[0].etag).toBe(e3);
  });

  it('replaces the whole set of taints, and an empty list clears them', async () => {
    await h.put(POOL, { taints: { taints: [{ key: 'c', value: '3', effect: 'PREFER_NO_SCHEDULE' }] } });
    await h.advance('2s');
    expect((await h.get(POOL)).body.config.taints).toEqual([
      { key: 'c', value: '3', effect: 'PREFER_NO_SCHEDULE' },
    ]);
    await h.put(POOL, { taints: { taints: [] } });
    await h.advance('2s');
    expect((await h.get(POOL)).body.config.taints).toBeUndefined();
  });

  it('replaces tags, labels, resourceLabels and resourceManagerTags wholesale and leaves absent fields unchanged', async () => {
    await h.put(POOL, {
      tags: { tags: ['web'] },
      labels: { labels: { env: 'prod' } },
      resourceLabels: { labels: { cost: 'a' } },
      resourceManagerTags: { tags: { 'tagKeys/1': 'tagValues/2' } },
    });
    await h.advance('2s');
    await h.put(POOL, { tags: { tags: ['api'] } });
    await h.advance('2s');
    const config = (await h.get(POOL)).body.config;
    expect(config.tags).toEqual(['api']);
    expect(config.labels).toEqual({ env: 'prod' });
    expect(config.resourceLabels).toEqual({ cost: 'a' });
    expect(config.resourceManagerTags).toEqual({ tags: { 'tagKeys/1': 'tagValues/2' } });
    expect(config.machineType).toBe('e2-medium');
    expect(config.taints).toHaveLength(2);
  });

  it('lands each field where GKE maps it', async () => {
    const res = await h.put(POOL, {
      imageType: 'UBUNTU_CONTAINERD',
      machineType: 'e2-standard-4',
      diskType: 'pd-ssd',
      diskSizeGb: '200',
      upgradeSettings: { maxSurge: 2, maxUnavailable: 1, strategy: 'SURGE' },
      locations: ['us-central1-a', 'us-central1-b'],
      nodeNetworkConfig: { enablePrivateNodes: true },
      kubeletConfig: { cpuManagerPolicy: 'static', podPidsLimit: '4096' },
      queuedProvisioning: { enabled: false },
      maxRunDuration: '3600s',
      flexStart: true,
      storagePools: ['sp1'],
      gvnic: { enabled: true },
    });
    expect(res.status, res.text).toBe(200);
    await h.advance('2s');
    const pool = (await h.get(POOL)).body;
    expect(pool.config).toMatchObject({
      imageType: 'UBUNTU_CONTAINERD',
      machineType: 'e2-standard-4',
      diskType: 'pd-ssd',
      diskSizeGb: 200,
      kubeletConfig: { cpuManagerPolicy: 'static', podPidsLimit: '4096' },
      maxRunDuration: '3600s',
      flexStart: true,
      storagePools: ['sp1'],
      gvnic: { enabled: true },
    });
    expect(pool.upgradeSettings).toEqual({ maxSurge: 2, maxUnavailable: 1, strategy: 'SURGE' });
    expect(pool.locations).toEqual(['us-central1-a', 'us-central1-b']);
    expect(pool.networkConfig.enablePrivateNodes).toBe(true);
  });

  it('returns 400 INVALID_ARGUMENT with the real text when no updatable field is given', async () => {
    const res = await h.put(POOL, { etag: await h.etagOf(), name: 'np1' });
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.errors[0].reason).toBe('badRequest');
    expect(res.body.error.message).toMatch(
      /^At least one of \['node_version', 'image_type', 'updated_node_pool', .* must be specified\.$/,
    );
    expect(res.body.error.details).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.RequestInfo',
        requestId: expect.stringMatching(/^0x[0-9a-f]{16}$/),
      },
    ]);
  });

  it('succeeds without nodeVersion or imageType when another field is set', async () => {
    const res = await h.put(POOL, { kubeletConfig: { cpuCfsQuota: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.operationType).toBe('UPGRADE_NODES');
  });

  it('refuses a custom image (image, imageProject) with 501 and X-Sim-Reason instead of ignoring it', async () => {
    const before = (await h.get(POOL)).body;
    const res = await h.put(POOL, {
      imageType: 'CUSTOM_CONTAINERD',
      image: 'my-node-image',
      imageProject: 'my-images',
    });
    expect(res.status, res.text).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect(res.body.error).toMatchObject({
      status: 'UNIMPLEMENTED',
      message: expect.stringMatching(
        /^UpdateNodePoolRequest fields "image", "imageProject": not simulated by cluster-sim, so the request is refused/,
      ),
    });
    expect((await h.get(POOL)).body).toEqual(before);
  });

  it('lets the path name win and rejects deprecated ids that contradict it', async () => {
    const ok = await h.put(POOL, {
      nodeVersion: '-',
      projectId: 'p1',
      zone: 'us-central1-a',
      clusterId: 'c1',
      nodePoolId: 'np1',
      name: 'np1',
    });
    expect(ok.status, ok.text).toBe(200);
    await h.advance('2s');
    const bad = await h.put(POOL, { nodeVersion: '-', clusterId: 'other' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.status).toBe('INVALID_ARGUMENT');
    expect(bad.body.error.message).toContain("'cluster_id'");
  });

  it('lists all node pools and embeds the same pools in the cluster', async () => {
    const list = (await h.get(`${CLUSTER}/nodePools`)).body;
    expect(list.nodePools.map((p: { name: string }) => p.name)).toEqual(['np1', 'np2']);
    const cluster = (await h.get(CLUSTER)).body;
    expect(cluster.nodePools).toEqual(list.nodePools);
    expect(cluster).toMatchObject({
      name: 'c1',
      location: 'us-central1-a',
      currentMasterVersion: V.master,
      currentNodeVersion: V.master,
      status: 'RUNNING',
      selfLink: 'https://container.googleapis.com/v1beta1/projects/p1/zones/us-central1-a/clusters/c1',
    });
    expect((await h.get(`${LOC}/clusters`)).body.clusters).toHaveLength(1);
  });
});
