import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

/** The scenario files shipped in `scenarios/`: each loads, and the two walkthroughs run as described. */

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.close());

async function load(file: string) {
  const res = await h.request('POST', '/_sim/scenarios', {
    body: readFileSync(join(DIR, file), 'utf8'),
    headers: { 'content-type': 'application/yaml' },
    token: null,
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('scenario files', () => {
  it.each(readdirSync(DIR).filter((f) => f.endsWith('.yaml')))('%s loads', async (file) => {
    const result = await load(file);
    expect(result.name).toBe(file.replace(/\.yaml$/, ''));
  });

  it('maintenance-window-change: busy once, then a minute-long UPDATE_CLUSTER that pauses minor upgrades', async () => {
    await load('maintenance-window-change.yaml');
    const cluster = '/v1/projects/p1/locations/europe-west1/clusters/prod';
    const before = (await h.get(cluster)).body.maintenancePolicy;
    expect(before.window.dailyMaintenanceWindow.startTime).toBe('03:00');
    const policy = {
      resourceVersion: before.resourceVersion,
      window: {
        recurringWindow: {
          // 8 hours on each weekend day: GKE wants 48 hours of availability in any 32 days.
          window: { startTime: '2026-03-07T01:00:00Z', endTime: '2026-03-07T09:00:00Z' },
          recurrence: 'FREQ=WEEKLY;BYDAY=SA,SU',
        },
        maintenanceExclusions: {
          freeze: {
            startTime: '2026-03-02T00:00:00Z',
            endTime: '2026-03-09T00:00:00Z',
            maintenanceExclusionOptions: { scope: 'NO_MINOR_UPGRADES' },
          },
        },
      },
    };
    const busy = await h.post(`${cluster}:setMaintenancePolicy`, { maintenancePolicy: policy });
    expect(busy.status).toBe(400);
    expect(busy.body.error.status).toBe('FAILED_PRECONDITION');
    const op = await h.post(`${cluster}:setMaintenancePolicy`, { maintenancePolicy: policy });
    expect(op.status, op.text).toBe(200);
    expect(op.body.operationType).toBe('UPDATE_CLUSTER');
    await h.advance('30s');
    expect((await h.get(cluster)).body.status).toBe('RECONCILING');
    await h.advance('31s');
    const after = (await h.get(cluster)).body;
    expect(after.status).toBe('RUNNING');
    expect(after.maintenancePolicy.window.recurringWindow.recurrence).toBe('FREQ=WEEKLY;BYDAY=SA,SU');
    expect(after.maintenancePolicy.window.dailyMaintenanceWindow).toBeUndefined();
    const info = (await h.get(`${cluster}:fetchClusterUpgradeInfo`)).body;
    expect(info.autoUpgradeStatus).toEqual(['MINOR_UPGRADE_PAUSED']);
  });

  it('ip-rotation: a five-minute start, a failed recreation GKE redoes in the window, then the completion', async () => {
    await load('ip-rotation.yaml');
    const cluster = '/v1/projects/p1/locations/us-central1-a/clusters/c1';
    const start = await h.post(`${cluster}:startIpRotation`, { rotateCredentials: true });
    expect(start.status, start.text).toBe(200);
    await h.advance('4m');
    expect((await h.get(cluster)).body.status).toBe('RECONCILING');
    await h.advance('1m');
    expect((await h.get(cluster)).body.status).toBe('RUNNING');
    expect((await h.get(`${cluster}/jwks`)).body.keys).toHaveLength(2);
    const recreate = async (pool: string) => {
      const op = await h.put(`${cluster}/nodePools/${pool}`, { nodeVersion: '1.33.5-gke.1308000' });
      expect(op.status, op.text).toBe(200);
      await h.advance('10s');
      return (await h.get(`/v1/projects/p1/locations/us-central1-a/operations/${op.body.name}`)).body;
    };
    expect((await recreate('default-pool')).error).toBeUndefined();
    expect((await recreate('batch')).error).toEqual({ code: 13, message: 'Node recreation failed.' });
    const refused = await h.post(`${cluster}:completeIpRotation`, {});
    expect(refused.body.error.message).toBe('Node pool "batch" requires recreation.');
    // GKE recreates "batch" itself when the daily window opens (02:00 UTC the next day).
    await h.advance('16h50m');
    expect((await h.post(`${cluster}:completeIpRotation`, {})).status).toBe(400);
    await h.advance('10m');
    const ops = (await h.get('/v1/projects/p1/locations/us-central1-a/operations')).body.operations;
    const gke = ops.filter((op: { startTime: string }) => op.startTime.startsWith('2026-03-03T02:00:00'));
    expect(gke.map((op: { operationType: string; status: string }) => [op.operationType, op.status])).toEqual(
      [['UPGRADE_NODES', 'DONE']],
    );
    expect(gke[0].targetLink).toMatch(/\/nodePools\/batch$/);
    const complete = await h.post(`${cluster}:completeIpRotation`, {});
    expect(complete.status, complete.text).toBe(200);
    await h.advance('5s');
    expect((await h.get(`${cluster}/jwks`)).body.keys).toHaveLength(1);
  });
});
