import { afterEach, describe, expect, it } from 'vitest';
import { aCluster } from './support/fixtures';
import { createHarness, type Harness, OPS, POOL } from './support/harness';

let h: Harness;
afterEach(() => h.close());

describe('world state', () => {
  it('exports and imports a snapshot, and a running operation continues on the clock after import', async () => {
    h = createHarness();
    await h.seed({
      projects: [{ projectId: 'p1', projectNumber: '123456789012' }],
      clusters: [aCluster().build()],
    });
    const op = (await h.put(POOL, { labels: { labels: { a: 'b' } } })).body;
    expect(op.selfLink).toContain('/projects/123456789012/');
    const snapshot = (await h.request('GET', '/_sim/state', { token: null })).body;
    expect(snapshot.simulator).toBe('cluster-sim');

    const other = createHarness();
    const put = await other.request('PUT', '/_sim/state', { token: null, body: snapshot });
    expect(put.status, put.text).toBe(200);
    expect((await other.get(`${OPS}/${op.name}`)).body).toEqual(op);
    expect((await other.get(POOL)).body).toEqual((await h.get(POOL)).body);
    await other.advance('2s');
    expect((await other.get(`${OPS}/${op.name}`)).body.status).toBe('DONE');
    expect((await other.get(POOL)).body.config.labels).toEqual({ a: 'b' });
    expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('PENDING');
    other.close();
  });

  it('rejects a bad snapshot and leaves the world unchanged', async () => {
    h = createHarness();
    await h.seedDefault();
    const res = await h.request('PUT', '/_sim/state', { token: null, body: { state: { clusters: 'nope' } } });
    expect(res.status).toBe(400);
    expect((await h.get(POOL)).status).toBe(200);
  });

  it('seeds all or nothing and refuses an existing cluster', async () => {
    h = createHarness();
    await h.seedDefault();
    const res = await h.request('POST', '/_sim/seed', {
      token: null,
      body: { clusters: [aCluster('c9').build(), aCluster().build()] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('already exists');
    expect((await h.get('/v1beta1/projects/p1/locations/us-central1-a/clusters/c9')).status).toBe(404);
  });

  it('returns the seeded pool etags, which match what clients read', async () => {
    h = createHarness();
    const seeded = await h.seedDefault();
    expect(seeded.clusters).toEqual(['projects/p1/locations/us-central1-a/clusters/c1']);
    expect(seeded.nodePools[0]?.etag).toBe(await h.etagOf());
  });

  it('keeps namespaces isolated', async () => {
    h = createHarness();
    await h.seedDefault();
    expect((await h.get(`/_ns/other${POOL}`)).status).toBe(404);
    expect((await h.get(POOL, { headers: { 'x-sim-namespace': 'other' } })).status).toBe(404);
    expect((await h.get(POOL)).status).toBe(200);
  });

  it('gives the same ids for the same seed and requests', async () => {
    h = createHarness();
    const other = createHarness();
    await h.seedDefault();
    await other.seedDefault();
    const a = (await h.put(POOL, { nodeVersion: '-' })).body;
    const b = (await other.put(POOL, { nodeVersion: '-' })).body;
    expect(a).toEqual(b);
    other.close();
  });

  it('resets a world through the control plane', async () => {
    h = createHarness();
    await h.seedDefault();
    await h.request('POST', '/_sim/reset', { token: null });
    expect((await h.get(POOL)).status).toBe(404);
  });
});
