import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { V } from './support/fixtures';
import { createHarness, type Harness, OPS, POOL } from './support/harness';

/** Seeds that provider states need: exact etags, operations in a given phase, narrowed principals. */

const OP = 'operation-1731137433803-29e34938-9333-469b-b14f-5bdf10b143d2';
const CLUSTER_SEED = {
  serverConfig: { validNodeVersions: [V.master, V.minor132, V.minor131] },
  clusters: [
    { projectId: 'p1', location: 'us-central1-a', name: 'c1', currentMasterVersion: V.master, nodePools: [] },
  ],
};

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seed(CLUSTER_SEED);
});
afterEach(() => h.close());

describe('seeding for provider states', () => {
  it('adds a pool to an existing cluster with exactly the given etag, until the next write', async () => {
    const seeded = await h.seed({
      nodePools: [
        {
          projectId: 'p1',
          location: 'us-central1-a',
          cluster: 'c1',
          name: 'np1',
          version: V.minor132,
          etag: '8e0970c5',
        },
      ],
    });
    expect(seeded.nodePools).toEqual([
      {
        name: 'projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1',
        etag: '8e0970c5',
        version: V.minor132,
      },
    ]);
    expect(await h.etagOf()).toBe('8e0970c5');
    expect((await h.put(POOL, { nodeVersion: '1.33', etag: 'other' })).status).toBe(409);
    const ok = await h.put(POOL, { nodeVersion: '1.33', etag: '8e0970c5' });
    expect(ok.status, ok.text).toBe(200);
    expect(await h.etagOf()).not.toBe('8e0970c5');
    await h.advance('2s');
    expect((await h.get(POOL)).body.version).toBe(V.master);
  });

  it('seeds a running operation with a given id that keeps the pool busy until the clock moves', async () => {
    await h.seed({
      nodePools: [{ projectId: 'p1', location: 'us-central1-a', cluster: 'c1', name: 'np1' }],
      operations: [
        {
          id: OP,
          projectId: 'p1',
          location: 'us-central1-a',
          cluster: 'c1',
          nodePool: 'np1',
          status: 'RUNNING',
        },
      ],
    });
    const op = (await h.get(`${OPS}/${OP}`)).body;
    expect(op).toMatchObject({
      name: OP,
      status: 'RUNNING',
      operationType: 'UPGRADE_NODES',
      detail: 'Updating np1, processed 0 out of 1 nodes (0.0%)',
    });
    expect((await h.get(POOL)).body.status).toBe('RECONCILING');
    const busy = await h.put(POOL, { nodeVersion: '-' });
    expect(busy.status).toBe(400);
    expect(busy.body.error.message).toBe(`Cluster is running incompatible operation ${OP}.`);
    await h.advance('2s');
    expect((await h.get(`${OPS}/${OP}`)).body.status).toBe('DONE');
    expect((await h.get(POOL)).body.status).toBe('RUNNING');
  });

  it('seeds a done operation and a failed one (error and statusMessage, no details)', async () => {
    await h.seed({
      nodePools: [{ projectId: 'p1', location: 'us-central1-a', cluster: 'c1', name: 'np1' }],
      operations: [
        {
          id: OP,
          projectId: 'p1',
          location: 'us-central1-a',
          cluster: 'c1',
          nodePool: 'np1',
          status: 'DONE',
        },
        {
          id: 'operation-1731137433804-aa',
          projectId: 'p1',
          location: 'us-central1-a',
          cluster: 'c1',
          nodePool: 'np1',
          status: 'DONE',
          error: { code: 13, message: 'node failed' },
        },
      ],
    });
    const done = (await h.get(`${OPS}/${OP}`)).body;
    expect(done).toMatchObject({
      status: 'DONE',
      startTime: expect.any(String),
      endTime: expect.any(String),
    });
    expect(done.error).toBeUndefined();
    expect(done.statusMessage).toBeUndefined();
    const failed = (await h.get(`${OPS}/operation-1731137433804-aa`)).body;
    expect(failed).toMatchObject({
      status: 'DONE',
      statusMessage: 'node failed',
      error: { code: 13, message: 'node failed' },
    });
    expect(Object.keys(failed.error)).toEqual(['code', 'message']);
  });

  it('makes a token a principal with every permission but one', async () => {
    await h.seed({
      nodePools: [{ projectId: 'p1', location: 'us-central1-a', cluster: 'c1', name: 'np1' }],
      settings: {
        auth: { principals: { 'ya29.limited': { deniedPermissions: ['container.clusters.update'] } } },
      },
    });
    expect((await h.get(POOL, { token: 'ya29.limited' })).status).toBe(200);
    const res = await h.put(POOL, { nodeVersion: '-' }, { token: 'ya29.limited' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(
      'Required "container.clusters.update" permission(s) for "projects/p1/locations/us-central1-a/clusters/c1".',
    );
  });

  it('changes nothing when any item of a seed is refused', async () => {
    const res = await h.request('POST', '/_sim/seed', {
      token: null,
      body: {
        settings: { concurrentOperationsQuota: 1 },
        nodePools: [{ projectId: 'p1', location: 'us-central1-a', cluster: 'missing', name: 'np1' }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('does not exist');
    expect((await h.request('GET', '/_sim/settings', { token: null })).body.concurrentOperationsQuota).toBe(
      5,
    );
  });
});
