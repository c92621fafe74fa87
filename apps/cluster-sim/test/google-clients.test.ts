import { v1beta1 as gapic } from '@google-cloud/container';
import { container } from '@googleapis/container';
import { describe, expect, it } from 'vitest';
import { fakeAuth, useSocketSim } from './support/client-sim';
import { V } from './support/fixtures';

/**
 * Google's official Node clients against the simulator over a real socket on 127.0.0.1:
 * the discovery REST client (@googleapis/container) and the GAPIC client in REST fallback mode
 * (@google-cloud/container), both with a static access token (no metadata server lookups).
 */

const NAME = 'projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1';
const OPS = 'projects/p1/locations/us-central1-a/operations';
const CLUSTER_NAME = 'projects/p1/locations/us-central1-a/clusters/c1';
/** The same pool through the legacy zonal methods. */
const ZONAL = { projectId: 'p1', zone: 'us-central1-a', clusterId: 'c1', nodePoolId: 'np1' };
const ZONAL_NAME = 'projects/p1/zones/us-central1-a/clusters/c1/nodePools/np1';
const TARGET =
  /^https:\/\/container\.googleapis\.com\/v1beta1\/projects\/\d+\/zones\/us-central1-a\/clusters\/c1\/nodePools\/np1$/;
const NOT_IN_SOAK =
  'Node pool "np1" is not in the node pool soaking phase of a blue-green upgrade; completeUpgrade can only end a node pool soak.';

const simOf = useSocketSim(7, { seedEach: true });
const auth = fakeAuth;

const advance = (by: string) =>
  simOf().app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by }) });
interface Entry {
  status: number;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  faults: string[];
}
const journal = async (query: string) =>
  ((await (await simOf().app.request(`/_sim/journal?${query}`)).json()) as { entries: Entry[] }).entries;

/** Polls an operation as a client does, advancing the clock 500 ms between reads, until it is DONE. */
async function pollToDone(status: () => Promise<unknown>) {
  let current = await status();
  for (let i = 0; i < 10 && current !== 'DONE'; i++) {
    await advance('500ms');
    current = await status();
  }
  expect(current).toBe('DONE');
}

describe('@googleapis/container (discovery REST client)', () => {
  const client = () =>
    // The client bundles its own google-auth-library types; the runtime object is the same kind.
    container({ version: 'v1beta1', rootUrl: `${simOf().url}/`, auth: auth() as never });

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
    await simOf().app.request('/_sim/faults', {
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
      requestBody: { update: { desiredShieldedNodes: { enabled: false } } },
    });
    await expect(update).rejects.toMatchObject({
      status: 501,
      message: expect.stringMatching(/^ClusterUpdate field "desiredShieldedNodes": not simulated/),
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
    await simOf().app.request('/_sim/faults', {
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

  describe('node pool methods', () => {
    const opStatus = (gke: ReturnType<typeof client>, name?: string | null) => async () =>
      (await gke.projects.locations.operations.get({ name: `${OPS}/${name}` })).data.status;
    const zonalOpStatus = (gke: ReturnType<typeof client>, operationId?: string | null) => async () =>
      (
        await gke.projects.zones.operations.get({
          projectId: 'p1',
          zone: 'us-central1-a',
          operationId: operationId ?? '',
        })
      ).data.status;

    it('resizes a pool with setSize in both forms, and the cluster counts the nodes', async () => {
      const gke = client();
      const before = (await gke.projects.locations.clusters.nodePools.get({ name: NAME })).data;
      const op = await gke.projects.locations.clusters.nodePools.setSize({
        name: NAME,
        requestBody: { nodeCount: 5 },
      });
      expect(op.data).toMatchObject({
        operationType: 'SET_NODE_POOL_SIZE',
        status: 'PENDING',
        targetLink: expect.stringMatching(TARGET),
      });
      await pollToDone(opStatus(gke, op.data.name));
      const after = (await gke.projects.locations.clusters.nodePools.get({ name: NAME })).data;
      expect(after.initialNodeCount).toBe(5);
      expect(after.etag).not.toBe(before.etag);
      const cluster = (await gke.projects.locations.clusters.get({ name: CLUSTER_NAME })).data;
      expect(cluster.currentNodeCount).toBe(5);

      const zonal = await gke.projects.zones.clusters.nodePools.setSize({
        ...ZONAL,
        requestBody: { nodeCount: 2 },
      });
      expect(zonal.data.operationType).toBe('SET_NODE_POOL_SIZE');
      await pollToDone(zonalOpStatus(gke, zonal.data.name));
      expect((await gke.projects.zones.clusters.nodePools.get(ZONAL)).data.initialNodeCount).toBe(2);
      expect((await journal('operation=nodePools.setSize')).map((e) => e.status)).toEqual([200, 200]);
    });

    it('sets the management with setManagement, and surfaces the release channel refusal as a 400', async () => {
      const gke = client();
      const op = await gke.projects.locations.clusters.nodePools.setManagement({
        name: NAME,
        requestBody: { management: { autoUpgrade: true, autoRepair: false } },
      });
      expect(op.data).toMatchObject({
        operationType: 'SET_NODE_POOL_MANAGEMENT',
        targetLink: expect.stringMatching(TARGET),
      });
      await pollToDone(opStatus(gke, op.data.name));
      const pool = (await gke.projects.locations.clusters.nodePools.get({ name: NAME })).data;
      expect(pool.management).toEqual({ autoUpgrade: true });

      const refused = gke.projects.zones.clusters.nodePools.setManagement({
        ...ZONAL,
        requestBody: { management: { autoUpgrade: false, autoRepair: false } },
      });
      await expect(refused).rejects.toMatchObject({
        status: 400,
        message: 'Auto_upgrade and auto_repair cannot be false when release_channel REGULAR is set.',
      });
    });

    it('sets and clears autoscaling with setAutoscaling and the zonal autoscaling method', async () => {
      const gke = client();
      const op = await gke.projects.locations.clusters.nodePools.setAutoscaling({
        name: NAME,
        requestBody: { autoscaling: { enabled: true, minNodeCount: 1, maxNodeCount: 5 } },
      });
      expect(op.data).toMatchObject({
        operationType: 'UPDATE_CLUSTER',
        targetLink: expect.stringMatching(TARGET),
      });
      await pollToDone(opStatus(gke, op.data.name));
      const done = (await gke.projects.locations.operations.get({ name: `${OPS}/${op.data.name}` })).data;
      expect(done.progress).toEqual({ metrics: [{ name: 'NODES_TOTAL', intValue: '0' }] });
      expect((await gke.projects.locations.clusters.nodePools.get({ name: NAME })).data.autoscaling).toEqual({
        enabled: true,
        minNodeCount: 1,
        maxNodeCount: 5,
        locationPolicy: 'BALANCED',
      });

      const off = await gke.projects.zones.clusters.nodePools.autoscaling({
        ...ZONAL,
        requestBody: { autoscaling: { enabled: false } },
      });
      await pollToDone(zonalOpStatus(gke, off.data.name));
      expect((await gke.projects.zones.clusters.nodePools.get(ZONAL)).data.autoscaling).toBeUndefined();
      expect((await journal('operation=nodePools.setAutoscaling')).map((e) => e.path)).toEqual([
        `/v1beta1/${NAME}:setAutoscaling`,
        `/v1beta1/projects/p1/zones/us-central1-a/clusters/c1/nodePools/np1/autoscaling`,
      ]);
    });

    it('rolls back with nothing to roll back (an operation that changes nothing), in both forms', async () => {
      const gke = client();
      const before = (await gke.projects.locations.clusters.nodePools.get({ name: NAME })).data;
      const op = await gke.projects.locations.clusters.nodePools.rollback({
        name: NAME,
        requestBody: { respectPdb: true },
      });
      expect(op.data).toMatchObject({
        operationType: 'UPGRADE_NODES',
        targetLink: expect.stringMatching(TARGET),
      });
      await pollToDone(opStatus(gke, op.data.name));
      const zonal = await gke.projects.zones.clusters.nodePools.rollback({ ...ZONAL, requestBody: {} });
      expect(zonal.data.operationType).toBe('UPGRADE_NODES');
      await pollToDone(zonalOpStatus(gke, zonal.data.name));
      expect((await gke.projects.locations.clusters.nodePools.get({ name: NAME })).data).toEqual(before);
    });

    it('surfaces completeUpgrade outside a blue-green soak as a 400, not retried', async () => {
      const complete = client().projects.locations.clusters.nodePools.completeUpgrade({
        name: NAME,
        requestBody: {},
      });
      await expect(complete).rejects.toMatchObject({ status: 400, message: NOT_IN_SOAK });
      const attempts = await journal('operation=nodePools.completeUpgrade');
      expect(attempts.map((e) => [e.method, e.status])).toEqual([['POST', 400]]);
    });

    it('fetches the upgrade info in both forms, with the upgrade nodePools.update made', async () => {
      const gke = client();
      const op = await gke.projects.locations.clusters.nodePools.update({
        name: NAME,
        requestBody: { nodeVersion: V.masterPrevPatch },
      });
      await pollToDone(opStatus(gke, op.data.name));
      const info = await gke.projects.locations.clusters.nodePools.fetchNodePoolUpgradeInfo({ name: NAME });
      expect(info.data).toEqual({
        autoUpgradeStatus: ['ACTIVE'],
        patchTargetVersion: V.master,
        upgradeDetails: [
          {
            state: 'SUCCEEDED',
            startTime: op.data.startTime,
            endTime: expect.stringMatching(/^2026-01-01T\d\d:\d\d:\d\d\.\d{6}Z$/),
            initialVersion: V.master,
            targetVersion: V.masterPrevPatch,
            startType: 'MANUAL',
          },
        ],
      });
      const zonal = await gke.projects.zones.clusters.nodePools.fetchNodePoolUpgradeInfo({
        name: ZONAL_NAME,
        version: 'v1beta1',
      });
      expect(zonal.data).toEqual(info.data);
      const calls = await journal('operation=nodePools.fetchNodePoolUpgradeInfo');
      expect(calls.map((e) => [e.status, e.query])).toEqual([
        [200, {}],
        [200, { version: 'v1beta1' }],
      ]);
    });
  });
});

describe('@google-cloud/container v1beta1 (GAPIC, REST fallback)', () => {
  const client = () =>
    new gapic.ClusterManagerClient({
      fallback: true,
      apiEndpoint: '127.0.0.1',
      port: simOf().port,
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
    await simOf().app.request('/_sim/faults', {
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

  describe('node pool methods', () => {
    const opStatus = (gke: ReturnType<typeof client>, name?: string | null) => async () =>
      (await gke.getOperation({ name: `${OPS}/${name}` }))[0].status;

    it('resizes a pool with setNodePoolSize', async () => {
      const gke = client();
      const [before] = await gke.getNodePool({ name: NAME });
      const [op] = await gke.setNodePoolSize({ name: NAME, nodeCount: 5 });
      expect(op).toMatchObject({ operationType: 'SET_NODE_POOL_SIZE', status: 'PENDING' });
      expect(op.targetLink).toMatch(TARGET);
      expect((await journal('operation=nodePools.setSize'))[0]?.query.$alt).toBe('json;enum-encoding=int');
      await pollToDone(opStatus(gke, op.name));
      const [after] = await gke.getNodePool({ name: NAME });
      expect(after.initialNodeCount).toBe(5);
      expect(after.etag).not.toBe(before.etag);
      const [cluster] = await gke.getCluster({ name: CLUSTER_NAME });
      expect(cluster.currentNodeCount).toBe(5);
      await gke.close();
    });

    it('sets the management with setNodePoolManagement, and surfaces the release channel refusal', async () => {
      const gke = client();
      const [op] = await gke.setNodePoolManagement({
        name: NAME,
        management: { autoUpgrade: true, autoRepair: false },
      });
      expect(op.operationType).toBe('SET_NODE_POOL_MANAGEMENT');
      await pollToDone(opStatus(gke, op.name));
      const [pool] = await gke.getNodePool({ name: NAME });
      expect(pool.management).toMatchObject({ autoUpgrade: true, autoRepair: false });
      const err = await gke
        .setNodePoolManagement({ name: NAME, management: { autoUpgrade: false, autoRepair: true } })
        .catch((e: { code: number; message: string }) => e);
      expect((err as { code: number }).code).toBe(400);
      expect(JSON.parse((err as { message: string }).message).error).toMatchObject({
        status: 'INVALID_ARGUMENT',
        message: 'Auto_upgrade cannot be false when release_channel REGULAR is set.',
      });
      await gke.close();
    });

    it('sets autoscaling with setNodePoolAutoscaling, its location policy decoded from the number', async () => {
      const gke = client();
      const [op] = await gke.setNodePoolAutoscaling({
        name: NAME,
        autoscaling: { enabled: true, minNodeCount: 1, maxNodeCount: 5 },
      });
      expect(op.operationType).toBe('UPDATE_CLUSTER');
      expect(op.targetLink).toMatch(TARGET);
      await pollToDone(opStatus(gke, op.name));
      const [done] = await gke.getOperation({ name: `${OPS}/${op.name}` });
      expect(done.progress?.metrics).toEqual([
        expect.objectContaining({ name: 'NODES_TOTAL', intValue: '0' }),
      ]);
      const [pool] = await gke.getNodePool({ name: NAME });
      expect(pool.autoscaling).toMatchObject({
        enabled: true,
        minNodeCount: 1,
        maxNodeCount: 5,
        locationPolicy: 'BALANCED',
      });
      await gke.close();
    });

    it('rolls back with nothing to roll back, and is refused completeNodePoolUpgrade outside a soak', async () => {
      const gke = client();
      const [before] = await gke.getNodePool({ name: NAME });
      const [op] = await gke.rollbackNodePoolUpgrade({ name: NAME, respectPdb: true });
      expect(op.operationType).toBe('UPGRADE_NODES');
      await pollToDone(opStatus(gke, op.name));
      const [after] = await gke.getNodePool({ name: NAME });
      expect(after.version).toBe(before.version);
      expect(after.etag).toBe(before.etag);
      const err = await gke
        .completeNodePoolUpgrade({ name: NAME })
        .catch((e: { code: number; message: string }) => e);
      expect((err as { code: number }).code).toBe(400);
      expect(JSON.parse((err as { message: string }).message).error).toMatchObject({
        status: 'FAILED_PRECONDITION',
        message: NOT_IN_SOAK,
      });
      await gke.close();
    });

    it('fetches the upgrade info with its enums decoded from numbers', async () => {
      const gke = client();
      const [op] = await gke.updateNodePool({ name: NAME, nodeVersion: V.masterPrevPatch });
      await pollToDone(opStatus(gke, op.name));
      const [info] = await gke.fetchNodePoolUpgradeInfo({ name: NAME, version: 'v1beta1' });
      const sent = (await journal('operation=nodePools.fetchNodePoolUpgradeInfo'))[0];
      expect(sent?.query).toEqual({ version: 'v1beta1', $alt: 'json;enum-encoding=int' });
      expect(info.autoUpgradeStatus).toEqual(['ACTIVE']);
      expect(info.patchTargetVersion).toBe(V.master);
      expect(info.minorTargetVersion ?? '').toBe('');
      expect(info.upgradeDetails).toHaveLength(1);
      expect(info.upgradeDetails?.[0]).toMatchObject({
        state: 'SUCCEEDED',
        initialVersion: V.master,
        targetVersion: V.masterPrevPatch,
        startType: 'MANUAL',
      });
      expect(info.upgradeDetails?.[0]?.startTime).toBeTruthy();
      expect(info.upgradeDetails?.[0]?.endTime).toBeTruthy();
      const [zonal] = await gke.fetchNodePoolUpgradeInfo({ name: ZONAL_NAME });
      expect(zonal).toEqual(info);
      await gke.close();
    });
  });
});
