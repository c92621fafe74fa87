import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonical, fingerprint } from '../src/domain/etag';
import { AVAILABILITY_MESSAGE } from '../src/domain/maintenance-policy';
import { CLUSTER, createHarness, type Harness, LOC, OPS, type SimResponse, ZONE } from './support/harness';

/**
 * GKE's rules on a maintenance policy (setMaintenancePolicy and clusters.create) and the daily window's
 * derived `duration`: refusals are 400 INVALID_ARGUMENT with a RequestInfo, start nothing and store
 * nothing.
 */
let h: Harness;
beforeEach(async () => {
  h = createHarness();
  await h.seedDefault();
});
afterEach(() => h.close());

const ZONAL_CLUSTER = `${ZONE}/clusters/c1`;

const set = (maintenancePolicy: unknown, path = CLUSTER) =>
  h.post(`${path}:setMaintenancePolicy`, { maintenancePolicy });

async function settle(op: { name: string }) {
  await h.advance('5s');
  expect((await h.get(`${OPS}/${op.name}`)).body.status).toBe('DONE');
  return (await h.get(CLUSTER)).body;
}

/** A refusal: GKE's envelope, nothing started, the policy as it was. */
async function expectRefused(res: SimResponse, message: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.status).toBe('INVALID_ARGUMENT');
  expect(res.body.error.message).toBe(message);
  expect(res.body.error.errors[0].reason).toBe('badRequest');
  expect(res.body.error.details).toEqual([
    {
      '@type': 'type.googleapis.com/google.rpc.RequestInfo',
      requestId: expect.stringMatching(/^0x[0-9a-f]{16}$/),
    },
  ]);
  expect((await h.get(OPS)).body.operations).toBeUndefined();
  expect((await h.get(CLUSTER)).body.maintenancePolicy).toEqual({ resourceVersion: 'e3b0c442' });
}

const recurring = (startTime: string, endTime: string, recurrence: string) => ({
  window: { recurringWindow: { window: { startTime, endTime }, recurrence } },
});

describe('daily maintenance window', () => {
  it('refuses a start time outside "HH:MM" GMT, on both paths', async () => {
    for (const startTime of ['25:99', '24:00', '3:00', '03:60', '0300', '']) {
      await expectRefused(
        await set({ window: { dailyMaintenanceWindow: { startTime } } }),
        `Invalid value for field "maintenance_policy.window.daily_maintenance_window.start_time": ${JSON.stringify(startTime)}. It must be in format "HH:MM", where HH : [00-23] and MM : [00-59] GMT.`,
      );
    }
    const zonal = await set({ window: { dailyMaintenanceWindow: { startTime: '25:99' } } }, ZONAL_CLUSTER);
    expect(zonal.status).toBe(400);
    expect(zonal.body.error.message).toContain('"25:99"');
  });

  it('answers the derived duration PT4H0M0S, with the resourceVersion of the policy as kept', async () => {
    const policy = { window: { dailyMaintenanceWindow: { startTime: '23:59' } } };
    const op = await set(policy);
    expect(op.status, op.text).toBe(200);
    const after = await settle(op.body);
    const version = fingerprint(canonical(policy));
    expect(after.maintenancePolicy).toEqual({
      window: { dailyMaintenanceWindow: { startTime: '23:59', duration: 'PT4H0M0S' } },
      resourceVersion: version,
    });
    // v1 reads answer it too.
    const v1 = (await h.get(CLUSTER.replace('/v1beta1/', '/v1/'))).body;
    expect(v1.maintenancePolicy.window.dailyMaintenanceWindow.duration).toBe('PT4H0M0S');
    // The policy read back (duration and version included) is accepted as it is and changes nothing.
    const again = await set(after.maintenancePolicy);
    expect(again.status, again.text).toBe(200);
    const same = await settle(again.body);
    expect(same.maintenancePolicy).toEqual(after.maintenancePolicy);
  });

  it('clusters.create: the same rule and the same duration', async () => {
    const create = (name: string, startTime: string) =>
      h.post(`${LOC}/clusters`, {
        cluster: {
          name,
          initialNodeCount: 1,
          maintenancePolicy: { window: { dailyMaintenanceWindow: { startTime } } },
        },
      });
    const bad = await create('bad', '25:99');
    expect(bad.status).toBe(400);
    expect(bad.body.error.status).toBe('INVALID_ARGUMENT');
    expect(bad.body.error.message).toBe(
      'Invalid value for field "cluster.maintenance_policy.window.daily_maintenance_window.start_time": "25:99". It must be in format "HH:MM", where HH : [00-23] and MM : [00-59] GMT.',
    );
    expect((await h.get(`${LOC}/clusters/bad`)).status).toBe(404);
    const good = await create('good', '04:30');
    expect(good.status, good.text).toBe(200);
    const cluster = (await h.get(`${LOC}/clusters/good`)).body;
    expect(cluster.maintenancePolicy.window.dailyMaintenanceWindow).toEqual({
      startTime: '04:30',
      duration: 'PT4H0M0S',
    });
    expect(cluster.maintenancePolicy.resourceVersion).toBe(
      fingerprint(canonical({ window: { dailyMaintenanceWindow: { startTime: '04:30' } } })),
    );
  });
});

describe('maintenance exclusions', () => {
  const daily = { dailyMaintenanceWindow: { startTime: '03:00' } };

  it('refuses an exclusion ending before it starts, or without an end', async () => {
    await expectRefused(
      await set({
        window: {
          ...daily,
          maintenanceExclusions: {
            freeze: { startTime: '2026-03-09T00:00:00Z', endTime: '2026-03-02T00:00:00Z' },
          },
        },
      }),
      'Invalid value for field "maintenance_policy.window.maintenance_exclusions[freeze].end_time": "2026-03-02T00:00:00Z". The end time must be after the start time "2026-03-09T00:00:00Z".',
    );
    await expectRefused(
      await set({
        window: { ...daily, maintenanceExclusions: { freeze: { startTime: '2026-03-09T00:00:00Z' } } },
      }),
      'Invalid value for field "maintenance_policy.window.maintenance_exclusions[freeze].end_time": "". A maintenance exclusion must have an end time, unless its maintenance_exclusion_options.end_time_behavior is UNTIL_END_OF_SUPPORT.',
    );
  });

  it('refuses an exclusion without a start', async () => {
    await expectRefused(
      await set({
        window: { ...daily, maintenanceExclusions: { freeze: { endTime: '2026-03-09T00:00:00Z' } } },
      }),
      'Invalid value for field "maintenance_policy.window.maintenance_exclusions[freeze].start_time": "". A maintenance exclusion must have a start time.',
    );
  });

  it('keeps no empty window (as clusters.create does not)', async () => {
    const op = await set({ window: {} });
    expect(op.status, op.text).toBe(200);
    expect((await settle(op.body)).maintenancePolicy).toEqual({ resourceVersion: 'e3b0c442' });
  });

  it('takes an exclusion without an end that lasts until the end of support', async () => {
    const op = await set({
      window: {
        ...daily,
        maintenanceExclusions: {
          hold: {
            startTime: '2026-03-09T00:00:00Z',
            maintenanceExclusionOptions: {
              scope: 'NO_MINOR_UPGRADES',
              endTimeBehavior: 'UNTIL_END_OF_SUPPORT',
            },
          },
        },
      },
    });
    expect(op.status, op.text).toBe(200);
    const after = await settle(op.body);
    expect(after.maintenancePolicy.window.maintenanceExclusions.hold.maintenanceExclusionOptions).toEqual({
      scope: 'NO_MINOR_UPGRADES',
      endTimeBehavior: 'UNTIL_END_OF_SUPPORT',
    });
  });

  it('takes exclusions at the ends of the Timestamp range', async () => {
    for (const startTime of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999999Z']) {
      const op = await set({
        window: {
          ...daily,
          maintenanceExclusions: {
            hold: {
              startTime,
              maintenanceExclusionOptions: {
                scope: 'NO_MINOR_UPGRADES',
                endTimeBehavior: 'UNTIL_END_OF_SUPPORT',
              },
            },
          },
        },
      });
      expect(op.status, op.text).toBe(200);
      await settle(op.body);
    }
    const op = await set({
      window: {
        ...daily,
        maintenanceExclusions: {
          all: { startTime: '0001-01-01T00:00:00Z', endTime: '9999-12-31T23:59:59.999999999Z' },
        },
      },
    });
    expect(op.status, op.text).toBe(200);
  });

  it('refuses more than 20 exclusions', async () => {
    const exclusions = Object.fromEntries(
      Array.from({ length: 21 }, (_, i) => [
        `x${i}`,
        { startTime: '2026-03-09T00:00:00Z', endTime: '2026-03-10T00:00:00Z' },
      ]),
    );
    await expectRefused(
      await set({ window: { ...daily, maintenanceExclusions: exclusions } }),
      'Too many maintenance exclusions: 21 given, a cluster can have at most 20.',
    );
    delete exclusions.x20;
    expect((await set({ window: { ...daily, maintenanceExclusions: exclusions } })).status).toBe(200);
  });

  it('refuses a scope that is not one of the enum', async () => {
    const res = await set({
      window: {
        ...daily,
        maintenanceExclusions: {
          x: {
            startTime: '2026-03-09T00:00:00Z',
            endTime: '2026-03-10T00:00:00Z',
            maintenanceExclusionOptions: { scope: 'NO_PATCHES' },
          },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toContain('NO_PATCHES');
  });
});

describe('recurring maintenance window', () => {
  const FIELD = 'maintenance_policy.window.recurring_window';

  it('refuses a recurrence that is no RRULE a window can use', async () => {
    const cases: [string, string][] = [
      ['FREQ=HOURLY', 'FREQ=HOURLY is not supported; use DAILY, WEEKLY, MONTHLY or YEARLY'],
      ['FREQ=WEEKLY;BYDAY=XX', 'BYDAY value "XX" is not a weekday'],
      ['BYDAY=SA,SU', 'FREQ must be specified'],
      ['FREQ=WEEKLY;BYDAY=1SA', 'BYDAY takes a numeric value only with FREQ=MONTHLY or FREQ=YEARLY'],
      ['FREQ=DAILY;COUNT=3;UNTIL=20270101', 'COUNT and UNTIL cannot both be given'],
      // The property name is not part of the value GKE takes (its examples never carry it): the simulator's reading.
      ['RRULE:FREQ=DAILY', '"RRULE:FREQ=DAILY" is not a NAME=VALUE part of an RFC 5545 RRULE'],
    ];
    for (const [rule, reason] of cases) {
      await expectRefused(
        await set(recurring('2026-03-07T00:00:00Z', '2026-03-08T00:00:00Z', rule)),
        `Invalid value for field "${FIELD}.recurrence": ${JSON.stringify(rule)}. Not a valid RFC 5545 RRULE: ${reason}.`,
      );
    }
  });

  it('refuses a window ending before it starts', async () => {
    await expectRefused(
      await set(recurring('2026-03-07T05:00:00Z', '2026-03-07T01:00:00Z', 'FREQ=DAILY')),
      `Invalid value for field "${FIELD}.window.end_time": "2026-03-07T01:00:00Z". The end time must be after the start time "2026-03-07T05:00:00Z".`,
    );
  });

  it('refuses windows leaving less than 48 hours in 32 days, counting only blocks of 4 hours', async () => {
    expect(AVAILABILITY_MESSAGE).toBe(
      'maintenance policy would go longer than 32d without 48h maintenance availability',
    );
    const short = [
      // Two 4-hour weekend windows: at most 40 hours in 32 days.
      recurring('2026-03-07T01:00:00Z', '2026-03-07T05:00:00Z', 'FREQ=WEEKLY;BYDAY=SA,SU'),
      // A weekly Sunday of 4 hours.
      recurring('2026-03-08T01:00:00Z', '2026-03-08T05:00:00Z', 'FREQ=WEEKLY;BYDAY=SU'),
      // Every day, but 3 hours: no block counts.
      recurring('2026-03-07T01:00:00Z', '2026-03-07T04:00:00Z', 'FREQ=DAILY'),
      // Two days on the first Saturday of each month: 35 days between some of them.
      recurring('2026-03-07T00:00:00Z', '2026-03-09T00:00:00Z', 'FREQ=MONTHLY;BYSETPOS=1;BYDAY=SA'),
      // A rule that stops.
      recurring('2026-03-07T00:00:00Z', '2026-03-08T00:00:00Z', 'FREQ=DAILY;COUNT=10'),
    ];
    for (const policy of short) await expectRefused(await set(policy), AVAILABILITY_MESSAGE);
  });

  it('takes windows that leave enough, and keeps them', async () => {
    const enough = [
      // Two 8-hour weekend windows: at least 64 hours in any 32 days.
      recurring('2026-03-07T01:00:00Z', '2026-03-07T09:00:00Z', 'FREQ=WEEKLY;BYDAY=SA,SU'),
      // Two 6-hour windows (the public fix for the refusal): exactly 48 hours in the leanest 32 days.
      recurring('2025-01-04T15:00:00Z', '2025-01-04T21:00:00Z', 'FREQ=WEEKLY;BYDAY=SA,SU'),
      // Four hours every day, as a daily window.
      recurring('2026-03-07T03:00:00Z', '2026-03-07T07:00:00Z', 'FREQ=DAILY'),
      // The weekend, midnight Saturday to the last minute of Sunday (the proto's example).
      recurring('2019-01-05T00:00:00Z', '2019-01-07T23:59:00Z', 'FREQ=WEEKLY;BYDAY=SA'),
      // 9 to 5 on weekdays, UTC-4 (the proto's example).
      recurring('2019-01-01T09:00:00-04:00', '2019-01-01T17:00:00-04:00', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR'),
    ];
    for (const policy of enough) {
      const op = await set(policy);
      expect(op.status, `${JSON.stringify(policy)}: ${op.text}`).toBe(200);
      const after = await settle(op.body);
      expect(after.maintenancePolicy.window).toEqual(policy.window);
    }
  });

  it('counts the 32-day spans from now: an ended rule leaves none, a rule begun long ago is checked today', async () => {
    // Begun in 2001, no end: today's spans are what count (and the old periods are not stepped through).
    const old = await set(
      recurring('2001-01-06T01:00:00Z', '2001-01-06T09:00:00Z', 'FREQ=WEEKLY;BYDAY=SA,SU'),
    );
    expect(old.status, old.text).toBe(200);
    await settle(old.body);
    const current = (await h.get(CLUSTER)).body.maintenancePolicy;
    // Rules that ended before now (COUNT or UNTIL), or end within the year: no maintenance after them.
    for (const rule of ['FREQ=DAILY;COUNT=500', 'FREQ=DAILY;UNTIL=20200301', 'FREQ=DAILY;UNTIL=20260301']) {
      const res = await set({
        ...recurring('2019-01-01T00:00:00Z', '2019-01-01T06:00:00Z', rule),
        resourceVersion: current.resourceVersion,
      });
      expect(res.status, rule).toBe(400);
      expect(res.body.error.message, rule).toBe(AVAILABILITY_MESSAGE);
    }
    const far = await set({
      ...recurring('2019-01-01T00:00:00Z', '2019-01-01T06:00:00Z', 'FREQ=DAILY;UNTIL=20300101'),
      resourceVersion: current.resourceVersion,
    });
    expect(far.status, far.text).toBe(200);
  });

  it('reads a recurrence as RFC 5545 does: names and values in any case, BYMONTHDAY in every month', async () => {
    const cases = [
      recurring('2026-03-07T01:00:00Z', '2026-03-07T09:00:00Z', 'freq=weekly;byday=sa,su;'),
      // The 1st to the 3rd of every month (BYMONTHDAY without BYMONTH: all twelve months).
      recurring('2026-02-01T00:00:00Z', '2026-02-03T00:00:00Z', 'FREQ=YEARLY;BYMONTHDAY=1'),
    ];
    for (const policy of cases) {
      const op = await set(policy);
      expect(op.status, `${JSON.stringify(policy)}: ${op.text}`).toBe(200);
      // Kept as sent.
      expect((await settle(op.body)).maintenancePolicy.window).toEqual(policy.window);
    }
  });

  it('refuses an RRULE part the simulator does not expand as not simulated', async () => {
    const res = await set(
      recurring('2026-03-07T00:00:00Z', '2026-03-08T00:00:00Z', 'FREQ=YEARLY;BYWEEKNO=10'),
    );
    expect(res.status).toBe(501);
    expect(res.headers.get('x-sim-reason')).toBe('not-simulated');
    expect((await h.get(OPS)).body.operations).toBeUndefined();
  });

  it('answers the 501 rather than count a COUNT rule through thousands of periods before now', async () => {
    const res = await set(
      recurring('2001-01-01T00:00:00Z', '2001-01-01T06:00:00Z', 'FREQ=DAILY;COUNT=999999'),
    );
    expect(res.status).toBe(501);
    expect(res.body.error.message).toContain('more than 5000 of its periods');
    expect((await h.get(OPS)).body.operations).toBeUndefined();
  });

  it('applies the same rules to a recurringMaintenanceWindow (v1beta1)', async () => {
    const window = (windowDuration: string, recurrence: string) => ({
      window: {
        recurringMaintenanceWindow: {
          delayUntil: { year: 2026, month: 3, day: 7 },
          windowStartTime: { hours: 1 },
          windowDuration,
          recurrence,
        },
      },
    });
    await expectRefused(await set(window('3600s', 'FREQ=DAILY')), AVAILABILITY_MESSAGE);
    await expectRefused(
      await set(window('14400s', 'FREQ=SECONDLY')),
      'Invalid value for field "maintenance_policy.window.recurring_maintenance_window.recurrence": "FREQ=SECONDLY". Not a valid RFC 5545 RRULE: FREQ=SECONDLY is not supported; use DAILY, WEEKLY, MONTHLY or YEARLY.',
    );
    const op = await set(window('14400s', 'FREQ=DAILY'));
    expect(op.status, op.text).toBe(200);
  });

  it('clusters.create refuses the same windows', async () => {
    const res = await h.post(`${LOC}/clusters`, {
      cluster: {
        name: 'weekend',
        initialNodeCount: 1,
        maintenancePolicy: recurring(
          '2026-03-07T01:00:00Z',
          '2026-03-07T05:00:00Z',
          'FREQ=WEEKLY;BYDAY=SA,SU',
        ),
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(AVAILABILITY_MESSAGE);
    expect((await h.get(`${LOC}/clusters/weekend`)).status).toBe(404);
  });
});
