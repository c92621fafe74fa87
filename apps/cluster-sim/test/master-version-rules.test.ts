import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool, V } from './support/fixtures';
import { CLUSTER, createHarness, type Harness, OPS, type SimResponse } from './support/harness';

/**
 * GKE's rules for a control plane version change (FIDELITY.md, "Version aliases"): no downgrade to an
 * earlier minor version, no skipped minor version, patch downgrades within the minor allowed. They hold
 * for updateMaster (`masterVersion`) and clusters.update (`desiredMasterVersion`), in every URL form and
 * both API versions, on the version an alias resolves to.
 */

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.close());

const NOT_NEWER = (v: string) =>
  `Master cannot be upgraded to "${v}": specified version is not newer than the current version.`;
const SKIPS = (v: string) =>
  `Master cannot be upgraded to "${v}": cannot upgrade the master more than a minor version at a time.`;

type Form = { name: string; send: (version: string) => Promise<SimResponse> };

/** The four ways to ask for a master version, under both API versions. */
const FORMS: Form[] = (['v1beta1', 'v1'] as const).flatMap((api) => {
  const loc = `/${api}/projects/p1/locations/us-central1-a/clusters/c1`;
  const zone = `/${api}/projects/p1/zones/us-central1-a/clusters/c1`;
  return [
    {
      name: `${api} :updateMaster`,
      send: (v: string) => h.post(`${loc}:updateMaster`, { masterVersion: v }),
    },
    { name: `${api} zones …/master`, send: (v: string) => h.post(`${zone}/master`, { masterVersion: v }) },
    {
      name: `${api} clusters.update`,
      send: (v: string) => h.put(loc, { update: { desiredMasterVersion: v } }),
    },
    {
      name: `${api} zones clusters.update`,
      send: (v: string) => h.put(zone, { update: { desiredMasterVersion: v } }),
    },
  ];
});

async function seedAt(version: string) {
  await h.seed({
    clusters: [
      aCluster().withMasterVersion(version).withPools(aNodePool('np1').withVersion(version)).build(),
    ],
  });
}

async function operationCount(): Promise<number> {
  const res = await h.get(OPS);
  expect(res.status, res.text).toBe(200);
  return (res.body.operations ?? []).length;
}

/** Expects GKE's 400 for the refusal, and that nothing started or changed. */
async function expectRefused(res: SimResponse, message: string, master: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message });
  expect(res.body.error.errors).toEqual([{ message, domain: 'global', reason: 'badRequest' }]);
  expect(res.body.error.details).toEqual([
    {
      '@type': 'type.googleapis.com/google.rpc.RequestInfo',
      requestId: expect.stringMatching(/^0x[0-9a-f]{16}$/),
    },
  ]);
  expect(await operationCount()).toBe(0);
  await h.advance('5s');
  expect((await h.get(CLUSTER)).body.currentMasterVersion).toBe(master);
}

async function expectUpgradedTo(res: SimResponse, version: string) {
  expect(res.status, res.text).toBe(200);
  expect(res.body.operationType).toBe('UPGRADE_MASTER');
  await h.advance('5s');
  expect((await h.get(`${OPS}/${res.body.name}`)).body.status).toBe('DONE');
  expect((await h.get(CLUSTER)).body.currentMasterVersion).toBe(version);
}

describe('a master minor downgrade is refused', () => {
  for (const form of FORMS) {
    it(`${form.name}: "1.32" on a 1.33 master with 1.33 nodes`, async () => {
      await seedAt(V.master);
      await expectRefused(await form.send('1.32'), NOT_NEWER(V.minor132), V.master);
    });
  }

  it('an explicit version two minors down, through clusters.update', async () => {
    await seedAt(V.master);
    const res = await h.put(CLUSTER, { update: { desiredMasterVersion: V.minor131 } });
    await expectRefused(res, NOT_NEWER(V.minor131), V.master);
  });
});

describe('a master upgrade that skips a minor version is refused', () => {
  for (const form of FORMS) {
    it(`${form.name}: "1.34" on a 1.31 master`, async () => {
      await seedAt(V.minor131);
      await expectRefused(await form.send('1.34'), SKIPS(V.newerMinor), V.minor131);
    });
  }

  it('"latest" resolves first, then the rule applies to the version it names', async () => {
    await seedAt(V.minor131);
    await expectRefused(
      await h.post(`${CLUSTER}:updateMaster`, { masterVersion: 'latest' }),
      SKIPS(V.newerMinor),
      V.minor131,
    );
    await expectRefused(
      await h.put(CLUSTER, { update: { desiredMasterVersion: '1.33.5' } }),
      SKIPS(V.master),
      V.minor131,
    );
  });
});

describe('the changes GKE allows still start UPGRADE_MASTER', () => {
  for (const form of FORMS) {
    it(`${form.name}: one minor version up`, async () => {
      await seedAt(V.minor131);
      await expectUpgradedTo(await form.send('1.32'), V.minor132);
    });
  }

  it('an earlier patch version of the same minor (a patch downgrade)', async () => {
    await seedAt(V.master);
    await expectUpgradedTo(
      await h.post(`${CLUSTER}:updateMaster`, { masterVersion: V.masterPrevPatch }),
      V.masterPrevPatch,
    );
  });

  it('the version the master already runs, as "-" or explicitly', async () => {
    await seedAt(V.master);
    await expectUpgradedTo(await h.post(`${CLUSTER}:updateMaster`, { masterVersion: '-' }), V.master);
    await expectUpgradedTo(await h.put(CLUSTER, { update: { desiredMasterVersion: V.master } }), V.master);
  });

  it('one minor at a time reaches two minors up', async () => {
    await seedAt(V.minor132);
    await expectUpgradedTo(await h.put(CLUSTER, { update: { desiredMasterVersion: '1.33' } }), V.master);
    await expectUpgradedTo(await h.put(CLUSTER, { update: { desiredMasterVersion: '1.34' } }), V.newerMinor);
  });
});
