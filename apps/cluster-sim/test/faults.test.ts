import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, OPS, POOL } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

describe('fault rules', () => {
  it('names routes by method so rules match nodePools.update and record the firing in the journal', async () => {
    const rule = await h.addFault({
      id: 'abort-next-update',
      match: { operation: 'nodePools.update', resource: 'projects/p1/locations/*/clusters/c1/nodePools/np1' },
      trigger: { times: 1 },
      effect: { error: { status: 'ABORTED', message: 'Injected abort.' } },
    });
    expect(rule.id).toBe('abort-next-update');
    const res = await h.put(POOL, { nodeVersion: '-' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ status: 'ABORTED', message: 'Injected abort.' });
    expect((await h.put(POOL, { nodeVersion: '-' })).status).toBe(200);
    const entries = await h.journal('operation=nodePools.update');
    expect(entries.map((e) => [e.status, e.faults])).toEqual([
      [409, ['abort-next-update']],
      [200, []],
    ]);
  });

  it('bumps the etag through a concurrent writer so the request is ABORTED for a real reason', async () => {
    const etag = await h.etagOf();
    await h.addFault({
      id: 'writer',
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { etagBump: true },
    });
    const res = await h.put(POOL, { nodeVersion: '-', etag });
    expect(res.status).toBe(409);
    expect(res.body.error.status).toBe('ABORTED');
    const fresh = await h.etagOf();
    expect(fresh).not.toBe(etag);
    expect((await h.put(POOL, { nodeVersion: '-', etag: fresh })).status).toBe(200);
    expect((await h.journal('fault=writer')).map((e) => e.status)).toEqual([409]);
  });

  it('makes the cluster busy on demand', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { clusterBusy: { operation: 'operation-1767225600000-deadbeef' } },
    });
    const res = await h.put(POOL, { nodeVersion: '-' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: 'Cluster is running incompatible operation operation-1767225600000-deadbeef.',
    });
  });

  it('exhausts the concurrent operation quota on demand', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { quotaExhausted: {} },
    });
    const res = await h.put(POOL, { nodeVersion: '-' });
    expect(res.status).toBe(429);
    expect(res.body.error.message).toBe(
      'Too many operations: cluster "c1" hits the concurrent operations quota 5, please try again later.',
    );
  });

  it('sets the duration of the operation a request starts (time or polls)', async () => {
    await h.addFault({
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { operationDuration: { duration: '10m' } },
    });
    const slow = (await h.put(POOL, { nodeVersion: '-' })).body;
    await h.advance('9m');
    expect((await h.get(`${OPS}/${slow.name}`)).body.status).toBe('RUNNING');
    await h.advance('1m');
    expect((await h.get(`${OPS}/${slow.name}`)).body.status).toBe('DONE');
    await h.addFault({
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { operationDuration: { polls: 2 } },
    });
    const polled = (await h.put(POOL, { nodeVersion: '-' })).body;
    expect((await h.get(`${OPS}/${polled.name}`)).body.status).toBe('RUNNING');
    expect((await h.get(`${OPS}/${polled.name}`)).body.status).toBe('DONE');
  });

  it('keeps an operation effect for the request that really starts an operation', async () => {
    await h.addFault({
      id: 'fail-once',
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { operationFails: { atProgress: 0, message: 'boom' } },
    });
    expect((await h.put(POOL, { nodeVersion: '9.9' })).status).toBe(400);
    const op = (await h.put(POOL, { nodeVersion: '-' })).body;
    await h.advance('2s');
    expect((await h.get(`${OPS}/${op.name}`)).body).toMatchObject({ status: 'DONE', statusMessage: 'boom' });
    expect((await h.journal('fault=fail-once')).map((e) => e.status)).toEqual([200]);
  });

  it('rejects a rule with an unknown Google status name', async () => {
    const res = await h.request('POST', '/_sim/faults', {
      token: null,
      body: { match: { operation: 'nodePools.get' }, effect: { error: { status: 'TEAPOT' } } },
    });
    expect(res.status).toBe(400);
  });

  it('reports rules that never fired', async () => {
    await h.addFault({
      id: 'never',
      match: { operation: 'clusters.delete' },
      effect: { error: { status: 'INTERNAL' } },
    });
    await h.get(POOL);
    const res = await h.request('GET', '/_sim/faults/unfired', { token: null });
    expect(res.body.faults.map((f: { id: string }) => f.id)).toEqual(['never']);
  });
});
