import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool } from './support/fixtures';
import { createHarness, type Harness, LOC, OPS, POOL } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seed({
    clusters: [aCluster().withPools(aNodePool('np1').withNodeCount(4), aNodePool('np2')).build()],
  });
});
afterEach(() => h.close());

const metric = (name: string, value: number) => ({ name, intValue: String(value) });

describe('operations', () => {
  it('moves PENDING → RUNNING → DONE on the world clock with detail and progress metrics', async () => {
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    expect(op.status).toBe('PENDING');
    expect(op.progress).toBeUndefined();
    await h.advance('200ms');
    const early = (await h.get(`${OPS}/${op.name}`)).body;
    expect(early).toMatchObject({
      status: 'RUNNING',
      detail: 'Updating np1, processed 0 out of 4 nodes (0.0%)',
      progress: { metrics: [metric('NODES_TOTAL', 4), metric('NODES_COMPLETE', 0), metric('NODES_DONE', 0)] },
    });
    expect(early.endTime).toBeUndefined();
    await h.advance('900ms');
    expect((await h.get(`${OPS}/${op.name}`)).body.detail).toBe(
      'Updating np1, processed 2 out of 4 nodes (50.0%)',
    );
    await h.advance('900ms');
    const done = (await h.get(`${OPS}/${op.name}`)).body;
    expect(done).toMatchObject({ status: 'DONE', endTime: '2026-01-01T00:00:02.000000Z' });
    expect(done.detail).toBeUndefined();
    expect(done.progress.metrics).toEqual([
      metric('NODES_TOTAL', 4),
      metric('NODES_FAILED', 0),
      metric('NODES_COMPLETE', 4),
      metric('NODES_DONE', 4),
      metric('NODE_PDB_DELAY_SECONDS', 0),
    ]);
  });

  it('never advances an operation because it was read', async () => {
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    for (let i = 0; i < 20; i++) expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('PENDING');
    expect((await h.get(POOL)).body.status).toBe('RECONCILING');
  });

  it('takes the configured duration per world', async () => {
    await h.settings({ operationDurationMs: 60_000 });
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    await h.advance('59s');
    expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('RUNNING');
    await h.advance('1s');
    expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('DONE');
  });

  it('completes after a configured number of polls', async () => {
    await h.settings({ operationPolls: 3 });
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.get(`${OPS}/${op.name}`)).body.status);
    expect(statuses).toEqual(['RUNNING', 'RUNNING', 'DONE']);
    expect((await h.get(POOL)).body.status).toBe('RUNNING');
  });

  it('cancels a running operation: {} then ABORTING then DONE with the cancel error', async () => {
    const op = (await h.put(POOL, { nodeVersion: '-', labels: { labels: { x: 'y' } } })).body;
    await h.advance('1s');
    const cancel = await h.post(`${OPS}/${op.name}:cancel`, {});
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body).toEqual({});
    expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('ABORTING');
    await h.advance('2s');
    const done = (await h.get(`${OPS}/${op.name}`)).body;
    expect(done).toMatchObject({
      status: 'DONE',
      statusMessage: 'Operation was aborted: operation was aborted.',
      error: { code: 1, message: 'Operation was aborted: operation was aborted.' },
    });
    expect(done.error.details).toBeUndefined();
    const pool = (await h.get(POOL)).body;
    expect(pool.status).toBe('RUNNING');
    expect(pool.config.labels).toBeUndefined();
  });

  it('returns FAILED_PRECONDITION when cancelling a DONE operation', async () => {
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    await h.advance('2s');
    const res = await h.post(`${OPS}/${op.name}:cancel`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('FAILED_PRECONDITION');
  });

  it('ends a failed operation DONE with statusMessage and error (no details) and the pool RUNNING_WITH_ERROR', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      effect: {
        operationFails: { atProgress: 0.5, status: 'RESOURCE_EXHAUSTED', message: 'Insufficient quota.' },
      },
    });
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    await h.advance('1s');
    expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('RUNNING');
    await h.advance('100ms');
    const done = (await h.get(`${OPS}/${op.name}`)).body;
    expect(done).toMatchObject({
      status: 'DONE',
      statusMessage: 'Insufficient quota.',
      error: { code: 8, message: 'Insufficient quota.' },
      endTime: '2026-01-01T00:00:01.100000Z',
    });
    expect(Object.keys(done.error)).toEqual(['code', 'message']);
    expect((await h.get(POOL)).body.status).toBe('RUNNING_WITH_ERROR');
  });

  it('leaves the pool ERROR after a failure when so configured', async () => {
    await h.settings({ failedPoolStatus: 'ERROR' });
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    const res = await h.post(
      `/_sim/operations/${op.name}/fail`,
      { status: 'INTERNAL', message: 'boom' },
      { token: null },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      status: 'DONE',
      error: { code: 13, message: 'boom' },
      statusMessage: 'boom',
    });
    expect((await h.get(POOL)).body.status).toBe('ERROR');
  });

  it('finishes an operation now through the control plane', async () => {
    const op = (await h.put(POOL, { labels: { labels: { now: 'yes' } } })).body;
    const res = await h.post(`/_sim/operations/${op.name}/complete`, {}, { token: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('DONE');
    expect((await h.get(POOL)).body.config.labels).toEqual({ now: 'yes' });
    expect((await h.post(`/_sim/operations/${op.name}/complete`, {}, { token: null })).status).toBe(409);
  });

  it('lists operations including DONE ones, and location "-" lists every location', async () => {
    await h.seed({ clusters: [aCluster('r1').inLocation('europe-west1').build()] });
    const a = (await h.put(POOL, { nodeVersion: '-' })).body;
    await h.advance('2s');
    const b = (
      await h.put('/v1beta1/projects/p1/locations/europe-west1/clusters/r1/nodePools/np1', {
        nodeVersion: '-',
      })
    ).body;
    const here = (await h.get(OPS)).body.operations.map((o: { name: string }) => o.name);
    expect(here).toEqual([a.name]);
    const all = (await h.get('/v1beta1/projects/p1/locations/-/operations')).body.operations;
    expect(all.map((o: { name: string; status: string }) => [o.name, o.status])).toEqual([
      [a.name, 'DONE'],
      [b.name, 'PENDING'],
    ]);
    expect((await h.get('/v1beta1/projects/p1/zones/-/operations')).body.operations).toHaveLength(2);
    expect((await h.get('/v1beta1/projects/other/locations/-/operations')).body).toEqual({});
  });

  it('forgets the oldest DONE operations beyond maxOperations, never a running one', async () => {
    await h.settings({ maxOperations: 2 });
    const first = (await h.put(POOL, { nodeVersion: '-' })).body;
    await h.advance('2s');
    const second = (await h.put(POOL, { nodeVersion: '-' })).body;
    const third = (await h.put(`${LOC}/clusters/c1/nodePools/np2`, { nodeVersion: '-' })).body;
    const names = (await h.get(OPS)).body.operations.map((o: { name: string }) => o.name);
    expect(names).toEqual([second.name, third.name]);
    expect((await h.get(`${OPS}/${first.name}`)).status).toBe(404);
  });

  it('returns 404 for an unknown operation', async () => {
    const res = await h.get(`${LOC}/operations/operation-1767225600000-00000000`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 404,
      status: 'NOT_FOUND',
      message: 'Not found: projects/p1/zones/us-central1-a/operations/operation-1767225600000-00000000.',
    });
  });
});
