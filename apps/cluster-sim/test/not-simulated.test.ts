import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, POOL, ZONE } from './support/harness';

/**
 * Node pool methods GKE has and the simulator does not simulate yet (issue 16) are refused with 501 and
 * `X-Sim-Reason: not-simulated`, after auth and the pool lookup, instead of the unknown-route 404 that a
 * client reads as "no such node pool".
 */
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const ZONE_POOL = `${ZONE}/clusters/c1/nodePools/np1`;
const METHODS = [
  { name: 'nodePools.setSize', rpc: 'SetNodePoolSize', method: 'POST', loc: ':setSize', zone: '/setSize' },
  {
    name: 'nodePools.setManagement',
    rpc: 'SetNodePoolManagement',
    method: 'POST',
    loc: ':setManagement',
    zone: '/setManagement',
  },
  {
    name: 'nodePools.setAutoscaling',
    rpc: 'SetNodePoolAutoscaling',
    method: 'POST',
    loc: ':setAutoscaling',
    zone: '/autoscaling',
  },
  {
    name: 'nodePools.rollback',
    rpc: 'RollbackNodePoolUpgrade',
    method: 'POST',
    loc: ':rollback',
    zone: ':rollback',
  },
  {
    name: 'nodePools.completeUpgrade',
    rpc: 'CompleteNodePoolUpgrade',
    method: 'POST',
    loc: ':completeUpgrade',
  },
  {
    name: 'nodePools.fetchNodePoolUpgradeInfo',
    rpc: 'FetchNodePoolUpgradeInfo',
    method: 'GET',
    loc: ':fetchNodePoolUpgradeInfo',
  },
] as const;

const forms = METHODS.flatMap((m) => [
  { ...m, path: `${POOL}${m.loc}`, form: 'locations' },
  ...('zone' in m ? [{ ...m, path: `${ZONE_POOL}${m.zone}`, form: 'zones' }] : []),
]);

describe('node pool methods that are not simulated yet', () => {
  it.each(forms.map((f) => [`${f.name} (${f.form})`, f] as const))(
    '%s answers 501, not 404',
    async (_, f) => {
      const body = f.method === 'POST' ? {} : undefined;
      const res = await h.request(f.method, f.path, body === undefined ? {} : { body });
      expect(res.status, res.text).toBe(501);
      expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
      expect(res.body.error).toMatchObject({
        code: 501,
        status: 'UNIMPLEMENTED',
        message: `${f.name} (${f.rpc}): not simulated by cluster-sim, so the request is refused rather than accepted and ignored (see cluster-sim's FIDELITY.md).`,
        errors: [expect.objectContaining({ reason: 'notImplemented' })],
      });
      // The journal names the method, so a test can see what its client called.
      const [entry] = (await h.journal()).filter((e) => e.status === 501);
      expect(entry).toMatchObject({ operation: f.name, method: f.method });
    },
  );

  it('still answers 404 for a pool that does not exist and 401 without credentials', async () => {
    const missing = await h.post(`${POOL.replace(/np1$/, 'nope')}:setSize`, { nodeCount: 3 });
    expect(missing.status, missing.text).toBe(404);
    expect(missing.body.error.message).toBe('Not found: node pool "nope" not found.');
    const anonymous = await h.post(`${POOL}:setSize`, { nodeCount: 3 }, { token: null });
    expect(anonymous.status).toBe(401);
  });

  it('leaves the pool routes as they were: get, update and the legacy /update', async () => {
    expect((await h.get(POOL)).body).toMatchObject({ name: 'np1', status: 'RUNNING' });
    expect((await h.put(POOL, { nodeVersion: '-' })).status).toBe(200);
    await h.advance('2s');
    expect((await h.post(`${ZONE_POOL}/update`, { nodeVersion: '-' })).status).toBe(200);
  });
});

describe('custom verbs the simulator does not know', () => {
  it('answer as before: a GET of np1:unknown is no pool, a POST to the pool path no route', async () => {
    const get = await h.get(`${POOL}:unknown`);
    expect(get.status, get.text).toBe(404);
    expect(get.body.error.message).toBe('Not found: node pool "np1:unknown" not found.');
    const post = await h.post(POOL, {});
    expect(post.status, post.text).toBe(404);
  });
});
