import { afterEach, describe, expect, it } from 'vitest';
import { aCluster, aNodePool, V } from './support/fixtures';
import { createHarness, type Harness, LOC, OPS } from './support/harness';

/**
 * GKE's own node recreations after an IP or credential rotation starts: UPGRADE_NODES operations, one
 * pool at a time, within the maintenance windows, on the world clock (node-recreation.ts).
 */

const C2 = `${LOC}/clusters/c2`;
const harnesses: Harness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.close();
});

/** A world with cluster c2 and its pools a and b, and the maintenance policy given (if any). */
async function withCluster(policy?: unknown): Promise<Harness> {
  const h = createHarness();
  harnesses.push(h);
  await h.seed({ clusters: [aCluster('c2').withPools(aNodePool('a'), aNodePool('b')).build()] });
  if (policy !== undefined)
    await settle(h, await h.post(`${C2}:setMaintenancePolicy`, { maintenancePolicy: policy }));
  return h;
}

async function settle(h: Harness, res: { status: number; text: string; body: { name: string } }) {
  expect(res.status, res.text).toBe(200);
  await h.advance('5s');
  const done = (await h.get(`${OPS}/${res.body.name}`)).body;
  expect(done.status).toBe('DONE');
  expect(done.error).toBeUndefined();
  return done;
}

/** A timestamp as `Date.toISOString` writes it, without the fraction (GKE's have six digits). */
const iso = (t: string) => new Date(t).toISOString().replace('.000Z', 'Z');

interface Op {
  name: string;
  operationType: string;
  status: string;
  targetLink: string;
  startTime: string;
  endTime?: string;
}

/** The node upgrades of c2, oldest first, with the pool each works on. */
async function nodeUpgrades(h: Harness) {
  const ops: Op[] = (await h.get(OPS)).body.operations ?? [];
  return ops
    .filter((op) => op.operationType === 'UPGRADE_NODES' && op.targetLink.includes('/clusters/c2/'))
    .map((op) => ({
      ...op,
      pool: op.targetLink.split('/').pop(),
      startTime: iso(op.startTime),
      endTime: op.endTime && iso(op.endTime),
    }))
    .sort((x, y) => x.startTime.localeCompare(y.startTime));
}

/** Moves the world clock to `iso` (after T0). */
async function advanceTo(h: Harness, iso: string) {
  const now = Date.parse((await h.get('/_sim/clock', { token: null })).body.now);
  await h.advance(Date.parse(iso) - now);
}

const DAILY_10 = { window: { dailyMaintenanceWindow: { startTime: '10:00' } } };

describe("GKE's node recreations during a rotation", () => {
  it('recreates each pool in the maintenance window, one at a time, after which completing succeeds', async () => {
    const h = await withCluster(DAILY_10);
    await settle(h, await h.post(`${C2}:startIpRotation`, { rotateCredentials: true }));

    // Too early: GKE's text, and nothing started.
    const early = await h.post(`${C2}:completeIpRotation`, {});
    expect(early.status).toBe(400);
    expect(early.body.error).toMatchObject({
      code: 400,
      status: 'FAILED_PRECONDITION',
      message: 'Node pool "a" requires recreation.',
    });
    await advanceTo(h, '2026-01-01T09:59:00Z');
    expect(await nodeUpgrades(h)).toEqual([]);

    // The window opens: pool a first, b waits for it.
    await advanceTo(h, '2026-01-01T10:00:00Z');
    const first = await nodeUpgrades(h);
    expect(first.map((op) => [op.pool, op.status])).toEqual([['a', 'PENDING']]);
    expect(first[0]?.startTime).toBe('2026-01-01T10:00:00Z');
    expect(first[0]?.targetLink).toMatch(
      /\/projects\/\d+\/zones\/us-central1-a\/clusters\/c2\/nodePools\/a$/,
    );
    expect((await h.get(`${C2}/nodePools/a`)).body.status).toBe('RECONCILING');
    expect((await h.post(`${C2}:completeIpRotation`, {})).body.error.message).toBe(
      'Node pool "a" requires recreation.',
    );

    await h.advance('1h');
    const both = await nodeUpgrades(h);
    expect(both.map((op) => [op.pool, op.status])).toEqual([
      ['a', 'DONE'],
      ['b', 'DONE'],
    ]);
    // One pool at a time: b started when a was DONE.
    expect(both[1]?.startTime).toBe(both[0]?.endTime);
    for (const pool of ['a', 'b']) {
      const read = (await h.get(`${C2}/nodePools/${pool}`)).body;
      expect(read.status).toBe('RUNNING');
      expect(read.version).toBe(V.master);
    }
    await settle(h, await h.post(`${C2}:completeIpRotation`, {}));
    expect((await h.get(`${C2}/jwks`)).body.keys).toHaveLength(1);
    // Nothing more is started once the rotation is complete.
    await h.advance('2d');
    expect(await nodeUpgrades(h)).toHaveLength(2);
  });

  it("counts the user's own upgrade of a pool to its version: GKE recreates only the others", async () => {
    const h = await withCluster(DAILY_10);
    await settle(h, await h.post(`${C2}:startIpRotation`, {}));
    await settle(h, await h.put(`${C2}/nodePools/a`, { nodeVersion: V.master }));
    expect((await h.post(`${C2}:completeIpRotation`, {})).body.error.message).toBe(
      'Node pool "b" requires recreation.',
    );
    await advanceTo(h, '2026-01-01T11:00:00Z');
    const ops = await nodeUpgrades(h);
    expect(ops.map((op) => [op.pool, op.status, op.startTime])).toEqual([
      ['a', 'DONE', '2026-01-01T00:00:10Z'],
      ['b', 'DONE', '2026-01-01T10:00:00Z'],
    ]);
    await settle(h, await h.post(`${C2}:completeIpRotation`, {}));
  });

  it('without a maintenance window starts an hour after the start is DONE', async () => {
    const h = await withCluster();
    const start = await settle(h, await h.post(`${C2}:startIpRotation`, {}));
    const from = Date.parse(start.endTime) + 3_600_000;
    await h.advance(from - Date.parse(start.endTime) - 10_000);
    expect(await nodeUpgrades(h)).toEqual([]);
    await h.advance('5s');
    expect(await nodeUpgrades(h)).toEqual([]);
    await h.advance('10s');
    const ops = await nodeUpgrades(h);
    expect(ops.map((op) => [op.pool, Date.parse(op.startTime)])[0]).toEqual(['a', from]);
  });

  it('waits for a running operation of the user, then for the window it spilled past', async () => {
    const h = await withCluster(DAILY_10);
    await settle(h, await h.post(`${C2}:startIpRotation`, {}));
    await advanceTo(h, '2026-01-01T09:59:59Z');
    // A slow resize of pool b holds the cluster from before the window opens to after it closes.
    await h.addFault({
      match: { operation: 'nodePools.setSize' },
      trigger: { times: 1 },
      effect: { operationDuration: { duration: '5h' } },
    });
    const resize = await h.post(`${C2}/nodePools/b:setSize`, { nodeCount: 2 });
    expect(resize.status, resize.text).toBe(200);
    await advanceTo(h, '2026-01-02T09:59:00Z');
    expect(await nodeUpgrades(h)).toEqual([]);
    expect((await h.get(`${OPS}/${resize.body.name}`)).body.status).toBe('DONE');
    await advanceTo(h, '2026-01-02T10:00:00Z');
    expect((await nodeUpgrades(h)).map((op) => [op.pool, op.startTime])).toEqual([
      ['a', '2026-01-02T10:00:00Z'],
    ]);
  });

  it("reads a recurring window's occurrences (weekends only)", async () => {
    const h = await withCluster({
      window: {
        recurringWindow: {
          window: { startTime: '2026-01-03T03:00:00Z', endTime: '2026-01-03T11:00:00Z' },
          recurrence: 'FREQ=WEEKLY;BYDAY=SA,SU',
        },
      },
    });
    await settle(h, await h.post(`${C2}:startIpRotation`, {}));
    // Thursday 1 January: the first window opens on Saturday at 03:00.
    await advanceTo(h, '2026-01-03T02:59:00Z');
    expect(await nodeUpgrades(h)).toEqual([]);
    await advanceTo(h, '2026-01-03T03:00:00Z');
    expect((await nodeUpgrades(h)).map((op) => [op.pool, op.startTime])).toEqual([
      ['a', '2026-01-03T03:00:00Z'],
    ]);
  });

  it('holds the recreations while a maintenance exclusion of node changes is in force', async () => {
    const h = await withCluster({
      window: {
        dailyMaintenanceWindow: { startTime: '10:00' },
        maintenanceExclusions: {
          freeze: {
            startTime: '2026-01-01T00:00:00Z',
            endTime: '2026-01-03T15:00:00Z',
            maintenanceExclusionOptions: { scope: 'NO_MINOR_OR_NODE_UPGRADES' },
          },
          minor: {
            startTime: '2026-01-01T00:00:00Z',
            endTime: '2026-01-10T00:00:00Z',
            maintenanceExclusionOptions: { scope: 'NO_MINOR_UPGRADES' },
          },
        },
      },
    });
    await settle(h, await h.post(`${C2}:startIpRotation`, {}));
    await advanceTo(h, '2026-01-04T09:59:00Z');
    expect(await nodeUpgrades(h)).toEqual([]);
    await advanceTo(h, '2026-01-04T10:00:00Z');
    expect((await nodeUpgrades(h)).map((op) => op.pool)).toEqual(['a']);
  });

  it('goes on in a world the rotation is imported into (PUT /_sim/state)', async () => {
    const h = await withCluster(DAILY_10);
    await settle(h, await h.post(`${C2}:startIpRotation`, {}));
    const snapshot = (await h.get('/_sim/state', { token: null })).body;
    const other = createHarness();
    harnesses.push(other);
    const put = await other.request('PUT', '/_sim/state', { body: snapshot, token: null });
    expect(put.status, put.text).toBe(200);
    await advanceTo(other, '2026-01-01T10:00:00Z');
    expect((await nodeUpgrades(other)).map((op) => [op.pool, op.startTime])).toEqual([
      ['a', '2026-01-01T10:00:00Z'],
    ]);
  });
});
