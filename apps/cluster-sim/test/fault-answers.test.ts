import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLUSTER, createHarness, type Harness, OPS, POOL, ZONE } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const ZONAL_CLUSTER = `${ZONE}/clusters/c1`;
const ZONAL_POOL = `${ZONAL_CLUSTER}/nodePools/np1`;
const BUSY_TEXT = /^Cluster is running incompatible operation (operation-\d{13}-[0-9a-f-]{36})\.$/;

describe('answers made by domain fault effects say which rule made them', () => {
  it('clusterBusy on clusters.startIpRotation: X-Sim-Reason names the rule; the retry goes through', async () => {
    await h.addFault({
      id: 'busy-rotation',
      match: { operation: 'clusters.startIpRotation' },
      trigger: { times: 1 },
      effect: { clusterBusy: {} },
    });
    const busy = await h.post(`${CLUSTER}:startIpRotation`, {});
    expect(busy.status).toBe(400);
    expect(busy.body.error.status).toBe('FAILED_PRECONDITION');
    expect(busy.body.error.message).toMatch(BUSY_TEXT);
    expect(busy.headers.get('x-sim-reason')).toBe('fault:busy-rotation');
    const retry = await h.post(`${CLUSTER}:startIpRotation`, {});
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('x-sim-reason')).toBeNull();
  });

  it('quotaExhausted on zonal setMaintenancePolicy and on nodePools.setSize: 429 with the rule named', async () => {
    await h.addFault({
      id: 'quota-policy',
      match: { operation: 'clusters.setMaintenancePolicy' },
      trigger: { times: 1 },
      effect: { quotaExhausted: { quota: 3 } },
    });
    const current = (await h.get(CLUSTER)).body.maintenancePolicy.resourceVersion;
    const policy = { window: { dailyMaintenanceWindow: { startTime: '03:00' } }, resourceVersion: current };
    const policyRes = await h.post(`${ZONAL_CLUSTER}:setMaintenancePolicy`, { maintenancePolicy: policy });
    expect(policyRes.status).toBe(429);
    expect(policyRes.body.error).toMatchObject({
      status: 'RESOURCE_EXHAUSTED',
      message:
        'Too many operations: cluster "c1" hits the concurrent operations quota 3, please try again later.',
    });
    expect(policyRes.headers.get('x-sim-reason')).toBe('fault:quota-policy');

    await h.addFault({
      id: 'quota-size',
      match: { operation: 'nodePools.setSize' },
      trigger: { times: 1 },
      effect: { quotaExhausted: {} },
    });
    const size = await h.post(`${POOL}:setSize`, { nodeCount: 2 });
    expect(size.status).toBe(429);
    expect(size.headers.get('x-sim-reason')).toBe('fault:quota-size');
    const zonalSize = await h.post(`${ZONAL_POOL}/setSize`, { nodeCount: 2 });
    expect(zonalSize.status, zonalSize.text).toBe(200);
    expect(zonalSize.headers.get('x-sim-reason')).toBeNull();
  });

  it('clusterBusy on nodePools.setSize and zonal setMaintenancePolicy carry the header too', async () => {
    await h.addFault({
      id: 'busy-size',
      match: { operation: 'nodePools.setSize' },
      trigger: { times: 1 },
      effect: { clusterBusy: {} },
    });
    await h.addFault({
      id: 'busy-policy',
      match: { operation: 'clusters.setMaintenancePolicy' },
      trigger: { times: 1 },
      effect: { clusterBusy: { operationType: 'UPDATE_CLUSTER' } },
    });
    const size = await h.post(`${ZONAL_POOL}/setSize`, { nodeCount: 2 });
    expect(size.status).toBe(400);
    expect(size.headers.get('x-sim-reason')).toBe('fault:busy-size');
    const policy = await h.post(`${ZONAL_CLUSTER}:setMaintenancePolicy`, { maintenancePolicy: {} });
    expect(policy.status).toBe(400);
    expect(policy.headers.get('x-sim-reason')).toBe('fault:busy-policy');
  });

  it("etagBump: the stale-etag 409 it causes names the rule; the client's own stale etag does not", async () => {
    const etag = await h.etagOf();
    await h.addFault({
      id: 'writer',
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { etagBump: true },
    });
    const bumped = await h.put(POOL, { nodeVersion: '-', etag });
    expect(bumped.status).toBe(409);
    expect(bumped.body.error.status).toBe('ABORTED');
    expect(bumped.headers.get('x-sim-reason')).toBe('fault:writer');
    // The client's own stale etag (no rule this time): GKE's answer, no header.
    const stale = await h.put(POOL, { nodeVersion: '-', etag });
    expect(stale.status).toBe(409);
    expect(stale.headers.get('x-sim-reason')).toBeNull();
    // A bump that does not make the request fail makes no error answer.
    await h.addFault({
      id: 'writer-2',
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { etagBump: {} },
    });
    const noEtag = await h.put(POOL, { nodeVersion: '-' });
    expect(noEtag.status, noEtag.text).toBe(200);
    expect(noEtag.headers.get('x-sim-reason')).toBeNull();
    expect((await h.journal('fault=writer-2')).map((e) => e.status)).toEqual([200]);
  });

  it('an error rule keeps its header (the kernel answers it)', async () => {
    await h.addFault({
      id: 'unavailable',
      match: { operation: 'nodePools.setSize' },
      trigger: { times: 1 },
      effect: { error: { status: 'UNAVAILABLE' } },
    });
    const res = await h.post(`${POOL}:setSize`, { nodeCount: 2 });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-sim-reason')).toBe('fault:unavailable');
  });
});

describe('the operation a clusterBusy rule names', () => {
  it('is real: DONE, of the default type UPGRADE_MASTER, on the cluster, found by operations.get and list', async () => {
    await h.addFault({
      id: 'busy',
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { clusterBusy: {} },
    });
    const before = (await h.get(CLUSTER)).body;
    const busy = await h.put(POOL, { nodeVersion: '-' });
    expect(busy.status).toBe(400);
    const id = BUSY_TEXT.exec(busy.body.error.message)?.[1] as string;
    expect(id).toBeDefined();
    const op = await h.get(`${OPS}/${id}`);
    expect(op.status, op.text).toBe(200);
    expect(op.body).toMatchObject({
      name: id,
      operationType: 'UPGRADE_MASTER',
      status: 'DONE',
      startTime: '2026-01-01T00:00:00.000000Z',
      endTime: '2026-01-01T00:00:00.000000Z',
    });
    expect(op.body.error).toBeUndefined();
    expect(op.body.targetLink).toMatch(/\/projects\/[^/]+\/(zones|locations)\/us-central1-a\/clusters\/c1$/);
    // The legacy zonal form and the list find it too.
    expect((await h.get(`${ZONE}/operations/${id}`)).status).toBe(200);
    const list = (await h.get(OPS)).body.operations as { name: string }[];
    expect(list.map((o) => o.name)).toContain(id);
    // It changed nothing and holds nothing: the cluster is as it was, the retry starts its operation.
    const after = (await h.get(CLUSTER)).body;
    expect(after.status).toBe(before.status);
    expect(after.currentMasterVersion).toBe(before.currentMasterVersion);
    const retry = await h.put(POOL, { nodeVersion: '-' });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.operationType).toBe('UPGRADE_NODES');
  });

  it("has the rule's operationType, also in the legacy wording", async () => {
    await h.settings({ busyMessage: 'legacy' });
    await h.addFault({
      id: 'busy-delete',
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { clusterBusy: { operationType: 'DELETE_NODE_POOL' } },
    });
    const busy = await h.put(POOL, { nodeVersion: '-' });
    expect(busy.status).toBe(400);
    expect(busy.headers.get('x-sim-reason')).toBe('fault:busy-delete');
    const m = /^Operation (\S+) is currently deleting a node pool for cluster c1\./.exec(
      busy.body.error.message,
    );
    const id = m?.[1] as string;
    expect(id).toBeDefined();
    const op = await h.get(`${OPS}/${id}`);
    expect(op.body).toMatchObject({ operationType: 'DELETE_NODE_POOL', status: 'DONE' });
  });

  it("is the user's own id when the rule gives one: named as given, not recorded", async () => {
    await h.addFault({
      id: 'busy-named',
      match: { operation: 'nodePools.update' },
      trigger: { times: 1 },
      effect: { clusterBusy: { operation: 'operation-1767225600000-deadbeef' } },
    });
    const before = ((await h.get(OPS)).body.operations ?? []).length;
    const busy = await h.put(POOL, { nodeVersion: '-' });
    expect(busy.body.error.message).toBe(
      'Cluster is running incompatible operation operation-1767225600000-deadbeef.',
    );
    expect(busy.headers.get('x-sim-reason')).toBe('fault:busy-named');
    expect((await h.get(`${OPS}/operation-1767225600000-deadbeef`)).status).toBe(404);
    expect(((await h.get(OPS)).body.operations ?? []).length).toBe(before);
  });

  it('refuses a rule whose operationType is not an Operation.Type', async () => {
    const res = await h.request('POST', '/_sim/faults', {
      body: {
        match: { operation: 'nodePools.update' },
        effect: { clusterBusy: { operationType: 'NAPPING' } },
      },
      token: null,
    });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/operationType/);
  });

  it('is not recorded when the request fails before the busy check', async () => {
    await h.addFault({
      id: 'busy-missing',
      match: { operation: 'nodePools.update' },
      effect: { clusterBusy: {} },
    });
    const missing = await h.put(`${CLUSTER}/nodePools/nope`, { nodeVersion: '-' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-sim-reason')).toBeNull();
    expect((await h.get(OPS)).body.operations ?? []).toEqual([]);
  });
});
