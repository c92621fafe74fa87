import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

/**
 * Times in requests and in the control plane stay inside what the API can write: a protobuf `Timestamp`
 * spans 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z (timestamp.proto) and is RFC 3339 text.
 */
let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.close());

const CLUSTERS = '/v1beta1/projects/p/locations/us-central1-a/clusters';
const FIELD = 'cluster.maintenance_policy.window.maintenance_exclusions[x].start_time';

function createWithWindowStart(name: string, startTime: string) {
  return h.request('POST', CLUSTERS, {
    body: {
      cluster: {
        name,
        initialNodeCount: 1,
        maintenancePolicy: {
          window: {
            dailyMaintenanceWindow: { startTime: '03:00' },
            // An exclusion open to the end of support: its start alone is the Timestamp under test.
            maintenanceExclusions: {
              x: {
                startTime,
                maintenanceExclusionOptions: {
                  scope: 'NO_MINOR_UPGRADES',
                  endTimeBehavior: 'UNTIL_END_OF_SUPPORT',
                },
              },
            },
          },
        },
      },
    },
  });
}

describe('Timestamp fields in requests', () => {
  it('refuses a time that is no Timestamp with the front end type error, and creates nothing', async () => {
    const bad = [
      '2026-02-30T00:00:00Z', // no such day
      '2025-02-29T00:00:00Z', // not a leap year
      '0000-12-31T23:59:59Z', // before year 1
      '0001-01-01T00:00:00+01:00', // an hour before the range starts
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00', // no zone
      '2026-01-01T00:00:00.1234567890Z', // ten fractional digits
      'tomorrow',
    ];
    for (const [i, value] of bad.entries()) {
      const res = await createWithWindowStart(`c${i}`, value);
      expect(res.status, value).toBe(400);
      expect(res.body.error.message).toBe(
        `Invalid value at '${FIELD}' (type.googleapis.com/google.protobuf.Timestamp), ${JSON.stringify(value)}`,
      );
    }
    const list = await h.request('GET', CLUSTERS);
    expect(list.body.clusters ?? []).toEqual([]);
  });

  it('takes every RFC 3339 form a Timestamp allows', async () => {
    const good = [
      '2024-02-29T00:00:00Z',
      '2026-01-01T00:00:00.123456789Z',
      '2026-01-01T05:30:00+05:30',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999999999Z',
    ];
    for (const [i, value] of good.entries()) {
      const res = await createWithWindowStart(`ok${i}`, value);
      expect(res.status, `${value}: ${res.text}`).toBe(200);
    }
  });
});

describe('the clock', () => {
  it('is never set or advanced past what a Timestamp can hold', async () => {
    const put = (set: unknown) =>
      h.sim.app.request('/_sim/clock', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ set }),
      });
    for (const set of ['+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', -62135596800001, 1e20]) {
      const res = await put(set);
      expect(res.status, String(set)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z/,
      );
    }
    expect((await put('10000-01-01T00:00:00Z')).status).toBe(400);
    expect((await put('9999-12-31T23:00:00Z')).status).toBe(200);
    const advance = await h.sim.app.request('/_sim/clock/advance', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ by: '2h' }),
    });
    expect(advance.status).toBe(400);
    const state = (await (await h.sim.app.request('/_sim/clock')).json()) as { now: string };
    expect(state.now).toBe('9999-12-31T23:00:00.000Z');
  });
});
