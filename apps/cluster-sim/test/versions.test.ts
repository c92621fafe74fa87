import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveNodeVersion } from '../src/index';
import { aCluster, aNodePool, V } from './support/fixtures';
import { createHarness, type Harness, LOC, OPS, POOL, ZONE } from './support/harness';

let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seed({ clusters: [aCluster().withPools(aNodePool('np1').withVersion(V.minor132)).build()] });
});
afterEach(() => h.close());

async function upgradeTo(nodeVersion: string) {
  const res = await h.put(POOL, { nodeVersion });
  if (res.status === 200) await h.advance('2s');
  return res;
}

describe('nodeVersion resolution', () => {
  it.each([
    ['-', V.master],
    ['latest', V.master],
    ['1.33', V.master],
    ['1.33.4', V.masterPrevPatch],
    ['1.32', V.minor132],
    [V.oldPatch133, V.oldPatch133],
  ])('resolves %s and stores the explicit version %s', async (alias, explicit) => {
    const res = await upgradeTo(alias);
    expect(res.status, res.text).toBe(200);
    expect((await h.get(POOL)).body.version).toBe(explicit);
  });

  it('resolves latest to the highest valid version not above the master', () => {
    const rules = {
      validNodeVersions: [V.newerMinor, V.master, V.minor132],
      masterVersion: V.minor132,
      maxNodeSkewMinors: 2,
    };
    expect(resolveNodeVersion('latest', rules)).toEqual({ ok: true, value: V.minor132 });
  });

  it('rejects a node version with a greater minor than the master with the real message and no operation', async () => {
    const res = await h.put(POOL, { nodeVersion: '1.34' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: `Node version "${V.newerMinor}" must not have a greater minor version than master version "${V.master}".`,
      errors: [{ reason: 'badRequest', domain: 'global' }],
    });
    expect((await h.get(OPS)).body).toEqual({});
  });

  it('rejects an unknown version with "is unsupported"', async () => {
    for (const v of ['1.33.9-gke.1', '1.20', 'banana']) {
      const res = await h.put(POOL, { nodeVersion: v });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(`Node version "${v}" is unsupported.`);
    }
    expect((await h.get(OPS)).body).toEqual({});
  });

  it('rejects a node version more minors older than the master than the configured skew bound', async () => {
    const tooOld = await h.put(POOL, { nodeVersion: '1.30' });
    expect(tooOld.status).toBe(400);
    expect(tooOld.body.error.status).toBe('INVALID_ARGUMENT');
    expect(tooOld.body.error.message).toContain(`"${V.minor130}"`);
    expect((await upgradeTo('1.31')).status).toBe(200);
    await h.settings({ maxNodeSkewMinors: 3 });
    expect((await upgradeTo('1.30')).status).toBe(200);
  });

  it('resolves against the ServerConfig set through the control plane', async () => {
    const set = await h.request('PUT', '/_sim/server-config', {
      token: null,
      body: { validNodeVersions: ['1.33.1-gke.5', V.master, '1.33.2-gke.7'] },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.validNodeVersions).toEqual([V.master, '1.33.2-gke.7', '1.33.1-gke.5']);
    expect((await upgradeTo('1.33.2')).status).toBe(200);
    expect((await h.get(POOL)).body.version).toBe('1.33.2-gke.7');
    expect((await h.put(POOL, { nodeVersion: V.minor132 })).body.error.message).toBe(
      `Node version "${V.minor132}" is unsupported.`,
    );
  });
});

describe('serverConfig', () => {
  it('returns versions in descending order, image types and channels in both path forms', async () => {
    const res = await h.get(`${LOC}/serverConfig`);
    expect(res.status, res.text).toBe(200);
    const config = res.body;
    expect(config.defaultClusterVersion).toBe(V.master);
    expect(config.defaultImageType).toBe('COS_CONTAINERD');
    expect(config.validImageTypes).toContain('UBUNTU_CONTAINERD');
    for (const list of [config.validNodeVersions, config.validMasterVersions]) {
      expect(list).toEqual([...list].sort((a: string, b: string) => (a < b ? 1 : -1)));
    }
    expect(config.validNodeVersions.length).toBeGreaterThan(config.validMasterVersions.length);
    expect(config.channels.map((c: { channel: string }) => c.channel)).toEqual([
      'RAPID',
      'REGULAR',
      'STABLE',
      'EXTENDED',
    ]);
    expect(config.channels[1]).toEqual({
      channel: 'REGULAR',
      defaultVersion: V.master,
      validVersions: expect.any(Array),
      upgradeTargetVersion: V.master,
    });
    expect((await h.get(`${ZONE}/serverconfig`)).body).toEqual(config);
  });
});
