import { describe, expect, it } from 'vitest';
import { call } from './support/http';
import { createToySim } from './support/toy-simulator';

const START = '2026-01-01T00:00:00.000Z';
const sim = () => createToySim({ seed: 1, clock: { mode: 'manual', start: START } });

describe('world snapshot import', () => {
  it('answers 400 at clock.now for a bad time and leaves the state, rules and clock as they were', async () => {
    const { app } = sim();
    await call(app, 'POST', '/widgets', { name: 'keep' });
    await call(app, 'POST', '/_sim/faults', {
      id: 'r',
      match: { operation: 'widgets.get' },
      effect: { delay: '1s' },
    });
    const before = (await call(app, 'GET', '/_sim/state')).body;
    const bad = {
      ...before,
      clock: { mode: 'manual', speed: 2, now: 'not a time' },
      faults: [],
      state: { widgets: [{ name: 'other', color: 'red' }], nextWidget: 7 },
    };
    const res = await call(app, 'PUT', '/_sim/state', bad);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^clock\.now: invalid time "not a time"/);
    expect((await call(app, 'GET', '/_sim/state')).body).toEqual(before);
  });

  it('answers 400 for a time outside the range the APIs can write, before anything changes', async () => {
    const { app } = sim();
    await call(app, 'POST', '/widgets', { name: 'keep' });
    const before = (await call(app, 'GET', '/_sim/state')).body;
    const res = await call(app, 'PUT', '/_sim/state', {
      ...before,
      clock: { now: '+010000-01-01T00:00:00Z' },
      state: { widgets: [], nextWidget: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^clock\.now: invalid time/);
    expect((await call(app, 'GET', '/_sim/state')).body).toEqual(before);
  });

  it('answers 400 for an empty clock.now, saying to leave it out, and keeps the clock when it is left out', async () => {
    const { app } = sim();
    await call(app, 'POST', '/_sim/clock/advance', { by: '1h' });
    const before = (await call(app, 'GET', '/_sim/state')).body;
    // GET always writes a time: "" is no snapshot's, and not taken as one that keeps the clock.
    expect(before.clock.now).toBe('2026-01-01T01:00:00.000Z');
    const empty = await call(app, 'PUT', '/_sim/state', {
      clock: { mode: 'manual', now: '' },
      state: { widgets: [{ name: 'other', color: 'red' }], nextWidget: 2 },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe(
      `clock.now: invalid time "": expected an ISO-8601 timestamp (leave clock.now out to keep the world's clock)`,
    );
    expect((await call(app, 'GET', '/_sim/state')).body).toEqual(before);
    const kept = await call(app, 'PUT', '/_sim/state', {
      clock: { mode: 'manual' },
      state: { widgets: [], nextWidget: 1 },
    });
    expect(kept.status, kept.text).toBe(200);
    expect((await call(app, 'GET', '/_sim/clock')).body.now).toBe('2026-01-01T01:00:00.000Z');
  });
});
