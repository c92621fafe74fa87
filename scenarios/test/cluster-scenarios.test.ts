import { type StartedClusterSim, startClusterSim } from '@sims/cluster-sim';
import { type ClusterSimClient, createClusterSimClient } from '@sims/sim-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scenario, send } from './support';

const POOL = 'projects/p/locations/us-central1-a/clusters/c1/nodePools/np1';
const bearer = { authorization: 'Bearer scenario-test' };

let sim: StartedClusterSim;
let client: ClusterSimClient;
const api = (path: string) => `${sim.url}/v1beta1/${path}`;
const getPool = () => send(api(POOL), 'GET', undefined, bearer);
const update = (etag?: string) =>
  send(api(POOL), 'PUT', { nodeVersion: 'latest', ...(etag ? { etag } : {}) }, bearer);
const getOperation = (name: string) =>
  send(api(`projects/p/locations/us-central1-a/operations/${name}`), 'GET', undefined, bearer);

beforeEach(async () => {
  sim = await startClusterSim({ port: 0, seed: 1, clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' } });
  client = createClusterSimClient({ baseUrl: sim.url });
  await client.seed({
    clusters: [
      {
        projectId: 'p',
        location: 'us-central1-a',
        name: 'c1',
        nodePools: [{ name: 'np1', version: '1.29.8-gke.1211000' }],
      },
    ],
  });
});
afterEach(() => sim.close());

async function load(file: string) {
  const result = await client.scenarios.load(scenario(file), { source: file });
  expect(result.name).toBe(file.replace('.yaml', ''));
}

async function runToDone(operationName: string, step = '1m') {
  for (let i = 0; i < 30; i++) {
    const op = await getOperation(operationName);
    if (op.body.status === 'DONE') return op.body;
    await client.clock.advance(step);
  }
  throw new Error(`operation ${operationName} never finished`);
}

describe('cluster scenarios', () => {
  it('aborted-first-update: the first update is ABORTED for a real reason, a re-read and retry succeeds', async () => {
    await load('aborted-first-update.yaml');
    const before = await getPool();
    const first = await update(before.body.etag);
    expect(first.status).toBe(409);
    expect(first.body.error.status).toBe('ABORTED');
    const reread = await getPool();
    expect(reread.body.etag).not.toBe(before.body.etag);
    const retry = await update(reread.body.etag);
    expect(retry.status).toBe(200);
    expect(retry.body.operationType).toBe('UPGRADE_NODES');
    expect((await client.faults.list()).find((r) => r.id === 'concurrent-writer')?.fired).toBe(1);
  });

  it('slow-realistic-upgrade: an upgrade takes 8 minutes of world-clock time', async () => {
    await load('slow-realistic-upgrade.yaml');
    const op = (await update()).body;
    await client.clock.advance('7m59s');
    expect((await getOperation(op.name)).body.status).toBe('RUNNING');
    await client.clock.advance('1s');
    expect((await getOperation(op.name)).body.status).toBe('DONE');
  });

  it('busy-cluster: the first two updates get FAILED_PRECONDITION, the third goes through', async () => {
    await load('busy-cluster.yaml');
    for (let i = 0; i < 2; i++) {
      const busy = await update();
      expect(busy.status).toBe(400);
      expect(busy.body.error.status).toBe('FAILED_PRECONDITION');
      expect(busy.body.error.message).toMatch(/^Cluster is running incompatible operation /);
    }
    expect((await update()).status).toBe(200);
  });

  it('operation-fails-midway: the operation ends DONE with an INTERNAL error and the pool shows it', async () => {
    await load('operation-fails-midway.yaml');
    const op = (await update()).body;
    const done = await runToDone(op.name);
    expect(done.error).toMatchObject({ code: 13, message: expect.stringMatching(/instance group manager/) });
    expect(done.statusMessage).toMatch(/instance group manager/);
    expect((await getPool()).body.status).toBe('RUNNING_WITH_ERROR');
  });

  it('surge-upgrade: 6 nodes in 2 zones, 2 at a time, a batch every 5 minutes; cancel and rollback', async () => {
    await load('surge-upgrade.yaml');
    const pool = 'projects/scenario-project/locations/us-central1/clusters/surge-cluster/nodePools/pool-1';
    const opPath = (name: string) =>
      api(`projects/scenario-project/locations/us-central1/operations/${name}`);
    const op = (await send(api(pool), 'PUT', { nodeVersion: 'latest' }, bearer)).body;
    await client.clock.advance('1s');
    const details: string[] = [];
    for (let i = 0; i < 2; i++) {
      await client.clock.advance('5m');
      details.push((await send(opPath(op.name), 'GET', undefined, bearer)).body.detail);
    }
    expect(details).toEqual([
      'Updating pool-1, processed 2 out of 6 nodes (33.3%)',
      // Zone a's second batch is its last node: batches are per zone.
      'Updating pool-1, processed 3 out of 6 nodes (50.0%)',
    ]);
    await send(`${opPath(op.name)}:cancel`, 'POST', {}, bearer);
    await client.clock.advance('1s');
    const rollback = await send(api(`${pool}:rollback`), 'POST', {}, bearer);
    expect(rollback.status).toBe(200);
    // 3 upgraded nodes come back 2 at a time.
    await client.clock.advance('11m');
    expect((await send(opPath(rollback.body.name), 'GET', undefined, bearer)).body.status).toBe('DONE');
    expect((await send(api(pool), 'GET', undefined, bearer)).body.version).toBe('1.33.4-gke.1036000');
  });

  it('blue-green-upgrade: the phases, an hour of soak, and completeUpgrade ending it early', async () => {
    await load('blue-green-upgrade.yaml');
    const pool =
      'projects/scenario-project/locations/us-central1-a/clusters/blue-green-cluster/nodePools/pool-1';
    const phase = async () =>
      (await send(api(pool), 'GET', undefined, bearer)).body.updateInfo?.blueGreenInfo?.phase;
    const op = (await send(api(pool), 'PUT', { nodeVersion: 'latest' }, bearer)).body;
    const phases: string[] = [];
    // create 2m, cordon 2m, drain 3m + 1m soak + 3m: soaking after 11 minutes.
    for (let i = 0; i < 12; i++) {
      await client.clock.advance('1m');
      const p = await phase();
      if (phases.at(-1) !== p) phases.push(p);
    }
    expect(phases).toEqual([
      'CREATING_GREEN_POOL',
      'CORDONING_BLUE_POOL',
      'DRAINING_BLUE_POOL',
      'NODE_POOL_SOAKING',
    ]);
    const complete = await send(api(`${pool}:completeUpgrade`), 'POST', {}, bearer);
    expect(complete.status).toBe(200);
    expect(await phase()).toBe('DELETING_BLUE_POOL');
    await client.clock.advance('2m');
    const done = (
      await send(
        api(`projects/scenario-project/locations/us-central1-a/operations/${op.name}`),
        'GET',
        undefined,
        bearer,
      )
    ).body;
    expect(done).toMatchObject({ operationType: 'UPGRADE_NODES', status: 'DONE' });
    expect((await send(api(pool), 'GET', undefined, bearer)).body.version).toBe('1.33.5-gke.1308000');
  });
});
