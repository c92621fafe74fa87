import { type StartedClusterSim, startClusterSim } from '@sims/cluster-sim';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ClusterSimClient, createClusterSimClient, SimControlError } from '../src/index';

/**
 * `operations.list` and `nodePools.list` against a real cluster simulator on 127.0.0.1: the operations
 * the emulated API starts, and the clusters with their pools, as the control plane shows them.
 */
const START = { mode: 'manual', start: '2026-01-01T00:00:00Z' } as const;
const LOC = 'projects/p/locations/us-central1-a';
const CLUSTER = `${LOC}/clusters/c1`;
const NP1 = `${CLUSTER}/nodePools/np1`;
const NP2 = `${CLUSTER}/nodePools/np2`;
const OLD = '1.29.8-gke.1211000';

let sim: StartedClusterSim;
let control: ClusterSimClient;

// biome-ignore lint/suspicious/noExplicitAny: response bodies of the emulated API are arbitrary JSON
type AnyJson = any;
/** The emulated GKE API, as the code under test calls it. */
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: AnyJson }> {
  const res = await fetch(`${sim.url}/v1beta1/${path}`, {
    method,
    headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

beforeEach(async () => {
  sim = await startClusterSim({ seed: 1, clock: START });
  control = createClusterSimClient({ baseUrl: sim.url });
  await control.seed({
    clusters: [
      {
        projectId: 'p',
        location: 'us-central1-a',
        name: 'c1',
        nodePools: [
          { name: 'np1', version: OLD, initialNodeCount: 3 },
          { name: 'np2', version: OLD },
        ],
      },
    ],
  });
});
afterEach(async () => {
  await sim.close();
});

describe('operations.list', () => {
  it('lists the operations the API started, newest first, and filters by status', async () => {
    expect(await control.operations.list()).toEqual([]);
    const upgrade = await api('PUT', NP1, { nodeVersion: '-' });
    expect(upgrade.status).toBe(200);
    await control.clock.advance('500ms');
    const resize = await api('POST', `${NP2}:setSize`, { nodeCount: 5 });
    expect(resize.status).toBe(200);

    const [newest, oldest, ...rest] = await control.operations.list();
    expect(rest).toEqual([]);
    expect(newest).toMatchObject({
      id: resize.body.name,
      name: resize.body.name,
      operationType: 'SET_NODE_POOL_SIZE',
      status: 'PENDING',
      project: 'p',
      location: 'us-central1-a',
      cluster: 'c1',
      pool: 'np2',
      percent: 0,
    });
    expect(oldest).toMatchObject({
      id: upgrade.body.name,
      operationType: 'UPGRADE_NODES',
      status: 'RUNNING',
      pool: 'np1',
      selfLink: upgrade.body.selfLink,
      targetLink: upgrade.body.targetLink,
      startTime: '2026-01-01T00:00:00.000000Z',
    });
    expect(oldest?.percent).toBeGreaterThan(0);
    expect(oldest?.percent).toBeLessThan(100);

    // Finished through the control plane with the id the view gives.
    await control.operations.complete(oldest?.id as string);
    expect((await control.operations.list({ status: 'DONE' })).map((o) => [o.id, o.percent])).toEqual([
      [upgrade.body.name, 100],
    ]);
    expect((await control.operations.list({ status: 'PENDING' })).map((o) => o.id)).toEqual([
      resize.body.name,
    ]);
    expect(await control.operations.list({ status: 'RUNNING' })).toEqual([]);
    expect(await control.operations.list({ status: 'ABORTING' })).toEqual([]);

    // The view carries the API's own rendering of the operation, field for field.
    const [done] = await control.operations.list({ status: 'DONE' });
    expect(done).toEqual({
      ...(await api('GET', `${LOC}/operations/${upgrade.body.name}`)).body,
      id: upgrade.body.name,
      project: 'p',
      location: 'us-central1-a',
      cluster: 'c1',
      pool: 'np1',
      percent: 100,
    });
  });

  it('is not a poll: listing never moves a poll-driven operation', async () => {
    await control.settings.update({ operationPolls: 2 });
    const started = (await api('PUT', NP1, { nodeVersion: '-' })).body;
    for (let i = 0; i < 5; i++) {
      expect((await control.operations.list())[0]).toMatchObject({ id: started.name, status: 'PENDING' });
    }
    await api('GET', `${LOC}/operations/${started.name}`);
    await api('GET', `${LOC}/operations/${started.name}`);
    expect((await control.operations.list())[0]).toMatchObject({ status: 'DONE', percent: 100 });
  });

  it('refuses a status it does not know with a 400 naming the parameter', async () => {
    const error = await control.operations.list({ status: 'FINISHED' as 'DONE' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimControlError);
    expect(error).toMatchObject({ status: 400, reason: 'INVALID_INPUT', path: 'status' });
  });

  it('lists only its own namespace', async () => {
    await api('PUT', NP1, { nodeVersion: '-' });
    expect(await control.operations.list()).toHaveLength(1);
    expect(await control.withNamespace('other').operations.list()).toEqual([]);
  });
});

describe('nodePools.list', () => {
  it('lists the clusters with their pools, etags and running operations', async () => {
    const before = await control.nodePools.list();
    expect(before).toEqual([
      expect.objectContaining({
        project: 'p',
        location: 'us-central1-a',
        name: 'c1',
        operations: [],
        pools: [
          expect.objectContaining({
            name: 'np1',
            version: OLD,
            initialNodeCount: 3,
            locations: ['us-central1-a'],
            nodesPerZone: { 'us-central1-a': 3 },
            nodeCount: 3,
            rollout: null,
            operation: null,
          }),
          expect.objectContaining({ name: 'np2', version: OLD, operation: null }),
        ],
      }),
    ]);
    // The etag is the one a client of the API reads (and must send with a conditional update).
    expect(before[0]?.pools[0]?.etag).toBe((await api('GET', NP1)).body.etag);

    const upgrade = (await api('PUT', NP1, { nodeVersion: '-' })).body;
    await control.clock.advance('1s');
    const [during] = await control.nodePools.list();
    expect(during?.operations).toEqual([upgrade.name]);
    expect(during?.pools.map((p) => [p.name, p.operation])).toEqual([
      ['np1', upgrade.name],
      ['np2', null],
    ]);
    expect(during?.pools[0]?.rollout).toMatchObject({
      state: 'RUNNING',
      kind: 'upgrade',
      strategy: 'SURGE',
      fromVersion: OLD,
      nodesTotal: 3,
      stalled: false,
      operation: upgrade.name,
    });

    await control.operations.complete(upgrade.name);
    const [after] = await control.nodePools.list();
    expect(after?.operations).toEqual([]);
    expect(after?.pools[0]).toMatchObject({ operation: null, rollout: null });
    expect(after?.pools[0]?.version).not.toBe(OLD);
    expect(after?.pools[0]?.version).toBe((await api('GET', NP1)).body.version);
  });

  it('is empty in a namespace without clusters', async () => {
    expect(await control.withNamespace('empty').nodePools.list()).toEqual([]);
  });
});
