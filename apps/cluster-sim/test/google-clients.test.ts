import { v1beta1 as gapic } from '@google-cloud/container';
import { container } from '@googleapis/container';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type StartedClusterSim, startClusterSim } from '../src/index';
import { aCluster, V } from './support/fixtures';

/**
 * Google's official Node clients against the simulator over a real socket on 127.0.0.1:
 * the discovery REST client (@googleapis/container) and the GAPIC client in REST fallback mode
 * (@google-cloud/container), both with a static access token (no metadata server lookups).
 */

const NAME = 'projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1';
const OPS = 'projects/p1/locations/us-central1-a/operations';

let sim: StartedClusterSim;
const auth = () => {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: 'fake-token' });
  return client;
};

beforeAll(async () => {
  process.env.METADATA_SERVER_DETECTION = 'none';
  sim = await startClusterSim({ seed: 7, clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' } });
});
afterAll(() => sim.close());
beforeEach(async () => {
  await sim.app.request('/_sim/reset', { method: 'POST' });
  const res = await sim.app.request('/_sim/seed', {
    method: 'POST',
    body: JSON.stringify({ clusters: [aCluster().build()] }),
  });
  expect(res.status).toBe(201);
});

const advance = (by: string) =>
  sim.app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by }) });
interface Entry {
  status: number;
  method: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  faults: string[];
}
const journal = async (query: string) =>
  ((await (await sim.app.request(`/_sim/journal?${query}`)).json()) as { entries: Entry[] }).entries;

describe('@googleapis/container (discovery REST client)', () => {
  const client = () =>
    // The client bundles its own google-auth-library types; the runtime object is the same kind.
    container({ version: 'v1beta1', rootUrl: `${sim.url}/`, auth: auth() as never });

  it('updates with the current etag and polls the operation to DONE', async () => {
    const gke = client();
    const pool = await gke.projects.locations.clusters.nodePools.get({ name: NAME });
    expect(pool.data.etag).toBeTruthy();
    const op = await gke.projects.locations.clusters.nodePools.update({
      name: NAME,
      requestBody: { nodeVersion: '1.33.4', etag: pool.data.etag ?? undefined },
    });
    expect(op.data).toMatchObject({ operationType: 'UPGRADE_NODES', status: 'PENDING' });
    let status = op.data.status;
    for (let i = 0; i < 10 && status !== 'DONE'; i++) {
      await advance('500ms');
      status = (await gke.projects.locations.operations.get({ name: `${OPS}/${op.data.name}` })).data.status;
    }
    expect(status).toBe('DONE');
    const after = await gke.projects.locations.clusters.nodePools.get({ name: NAME });
    expect(after.data.version).toBe(V.masterPrevPatch);
    expect(after.data.etag).not.toBe(pool.data.etag);
    const entry = (await journal('operation=nodePools.update'))[0];
    expect(entry?.headers.authorization).toBe('Bearer [REDACTED]');
  });

  it('surfaces a stale etag as the client 409 error', async () => {
    const gke = client();
    const err = (await gke.projects.locations.clusters.nodePools
      .update({ name: NAME, requestBody: { nodeVersion: '-', etag: 'c3RhbGVldGFn' } })
      .catch((e: unknown) => e)) as {
      status: number;
      code: number;
      message: string;
      response: { data: { error: { status: string } } };
    };
    expect(err).toMatchObject({ status: 409, code: 409 });
    expect(err.response.data.error.status).toBe('ABORTED');
    expect(err.message).toContain('np1');
  });

  it('resolves an alias through the legacy zonal method', async () => {
    const gke = client();
    const op = await gke.projects.zones.clusters.nodePools.update({
      projectId: 'p1',
      zone: 'us-central1-a',
      clusterId: 'c1',
      nodePoolId: 'np1',
      requestBody: { nodeVersion: '1.32' },
    });
    expect(op.data.operationType).toBe('UPGRADE_NODES');
    await advance('2s');
    const pool = await gke.projects.zones.clusters.nodePools.get({
      projectId: 'p1',
      zone: 'us-central1-a',
      clusterId: 'c1',
      nodePoolId: 'np1',
    });
    expect(pool.data.version).toBe(V.minor132);
  });

  it('retries an injected UNAVAILABLE on the location-form PUT, as gaxios does for real', async () => {
    await sim.app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({
        id: 'flaky',
        match: { operation: 'nodePools.update' },
        trigger: { times: 2 },
        effect: { error: { status: 'UNAVAILABLE' } },
      }),
    });
    const op = await client().projects.locations.clusters.nodePools.update({
      name: NAME,
      requestBody: { nodeVersion: '-' },
    });
    expect(op.status).toBe(200);
    const attempts = await journal('operation=nodePools.update');
    expect(attempts.map((e) => [e.status, e.faults])).toEqual([
      [503, ['flaky']],
      [503, ['flaky']],
      [200, []],
    ]);
  }, 15_000);

  it('surfaces a ClusterUpdate field the simulator does not simulate as a 501, after gaxios retried it', async () => {
    const update = client().projects.locations.clusters.update({
      name: 'projects/p1/locations/us-central1-a/clusters/c1',
      requestBody: { update: { desiredNodePoolAutoscaling: { enabled: true, maxNodeCount: 5 } } },
    });
    await expect(update).rejects.toMatchObject({
      status: 501,
      message: expect.stringMatching(/^ClusterUpdate field "desiredNodePoolAutoscaling": not simulated/),
    });
    // gaxios retries a 5xx on PUT (3 more times); none of the attempts started an operation.
    const attempts = await journal('operation=clusters.update');
    expect(attempts.map((e) => e.status)).toEqual([501, 501, 501, 501]);
    const ops = await client().projects.locations.operations.list({
      parent: 'projects/p1/locations/us-central1-a',
    });
    expect(ops.data.operations ?? []).toEqual([]);
  }, 15_000);

  it('does not retry an injected UNAVAILABLE on a POST route', async () => {
    await sim.app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({
        match: { operation: 'nodePools.update' },
        trigger: { times: 1 },
        effect: { error: { status: 'UNAVAILABLE' } },
      }),
    });
    const err = await client()
      .projects.zones.clusters.nodePools.update({
        projectId: 'p1',
        zone: 'us-central1-a',
        clusterId: 'c1',
        nodePoolId: 'np1',
        requestBody: { nodeVersion: '-' },
      })
      .catch((e: { status: number }) => e);
    expect(err).toMatchObject({ status: 503 });
    expect((await journal('operation=nodePools.update')).map((e) => e.status)).toEqual([503]);
  });
});

describe('@google-cloud/container v1beta1 (GAPIC, REST fallback)', () => {
  const client = () =>
    new gapic.ClusterManagerClient({
      fallback: true,
      apiEndpoint: '127.0.0.1',
      port: sim.port,
      protocol: 'http',
      authClient: auth(),
    } as unknown as ConstructorParameters<typeof gapic.ClusterManagerClient>[0]);

  it('updates with numeric enums and polls the operation to DONE', async () => {
    const gke = client();
    const [pool] = await gke.getNodePool({ name: NAME });
    const [op] = await gke.updateNodePool({
      name: NAME,
      nodeVersion: 'latest',
      etag: pool.etag ?? '',
      upgradeSettings: { maxSurge: 2, strategy: 'SURGE' },
      taints: { taints: [{ key: 'k', value: 'v', effect: 'NO_EXECUTE' }] },
    });
    expect(op.operationType).toBe('UPGRADE_NODES');
    const sent = (await journal('operation=nodePools.update'))[0];
    expect(sent?.query.$alt).toBe('json;enum-encoding=int');
    let status: unknown = op.status;
    for (let i = 0; i < 10 && status !== 'DONE'; i++) {
      await advance('500ms');
      [{ status }] = await gke.getOperation({ name: `${OPS}/${op.name}` });
    }
    expect(status).toBe('DONE');
    const [after] = await gke.getNodePool({ name: NAME });
    expect(after.version).toBe(V.master);
    expect(after.upgradeSettings?.strategy).toBe('SURGE');
    expect(after.config?.taints?.[0]?.effect).toBe('NO_EXECUTE');
    await gke.close();
  });

  it('surfaces a stale etag as a 409 whose message is the Google error JSON', async () => {
    const gke = client();
    const err = await gke
      .updateNodePool({ name: NAME, nodeVersion: '-', etag: 'c3RhbGVldGFn' })
      .catch((e: { code: number; message: string }) => e);
    expect((err as { code: number }).code).toBe(409);
    expect(JSON.parse((err as { message: string }).message).error.status).toBe('ABORTED');
    await gke.close();
  });

  it('decodes a failed operation (error without details)', async () => {
    await sim.app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({
        match: { operation: 'nodePools.update' },
        effect: { operationFails: { atProgress: 0.2, status: 'INTERNAL', message: 'node failed' } },
      }),
    });
    const gke = client();
    const [op] = await gke.updateNodePool({ name: NAME, nodeVersion: '-' });
    await advance('2s');
    const [done] = await gke.getOperation({ name: `${OPS}/${op.name}` });
    expect(done).toMatchObject({
      status: 'DONE',
      statusMessage: 'node failed',
      error: { code: 13, message: 'node failed' },
    });
    await gke.close();
  });

  it('creates a pool, cancels its operation and deletes it', async () => {
    const gke = client();
    const parent = 'projects/p1/locations/us-central1-a/clusters/c1';
    const [created] = await gke.createNodePool({
      parent,
      nodePool: { name: 'np2', initialNodeCount: 1, upgradeSettings: { strategy: 'BLUE_GREEN' } },
    });
    expect(created.operationType).toBe('CREATE_NODE_POOL');
    await advance('2s');
    const [update] = await gke.updateNodePool({ name: `${parent}/nodePools/np2`, nodeVersion: '-' });
    await advance('1s');
    const [cancelled] = await gke.cancelOperation({ name: `${OPS}/${update.name}` });
    expect(cancelled).toEqual({});
    expect((await gke.getOperation({ name: `${OPS}/${update.name}` }))[0].status).toBe('ABORTING');
    await advance('1s');
    expect((await gke.getOperation({ name: `${OPS}/${update.name}` }))[0]).toMatchObject({
      status: 'DONE',
      error: { code: 1 },
    });
    const [deleted] = await gke.deleteNodePool({ name: `${parent}/nodePools/np2` });
    expect(deleted.operationType).toBe('DELETE_NODE_POOL');
    await advance('2s');
    const [pools] = await gke.listNodePools({ parent });
    expect(pools.nodePools?.map((p) => p.name)).toEqual(['np1']);
    await gke.close();
  });

  it('lists operations and reads the server config', async () => {
    const gke = client();
    await gke.updateNodePool({ name: NAME, nodeVersion: '-' });
    const [list] = await gke.listOperations({ parent: 'projects/p1/locations/-' });
    expect(list.operations).toHaveLength(1);
    const [config] = await gke.getServerConfig({ name: 'projects/p1/locations/us-central1-a' });
    expect(config.validMasterVersions?.[0]).toBe(V.newerMinor);
    await gke.close();
  });
});
