import { describe, expect, it } from 'vitest';
import { call } from './support/http';
import { createToySim } from './support/toy-simulator';

const START = '2026-01-01T00:00:00.000Z';
const sim = (extra = {}) => createToySim({ seed: 1, clock: { mode: 'manual', start: START }, ...extra });

describe('control plane', () => {
  it('answers health with the simulator name and version', async () => {
    const { app } = sim();
    expect((await call(app, 'GET', '/_sim/health')).body).toEqual({
      status: 'ok',
      simulator: 'toy-sim',
      version: '0.0.0',
      namespaces: 0,
    });
  });

  it('requires the admin token when one is set, except for health', async () => {
    const { app } = sim({ adminToken: 's3cret' });
    // A route a simulator adds under /_sim on its own app (not through controlRoutes).
    app.get('/_sim/extra', (c) => c.json({ extra: true }));
    const denied = await call(app, 'GET', '/_sim/faults');
    expect(denied.status).toBe(401);
    expect(denied.body.error.reason).toBe('UNAUTHENTICATED');
    expect(
      (await call(app, 'GET', '/_sim/faults', undefined, { authorization: 'Bearer wrong' })).status,
    ).toBe(401);
    expect(
      (await call(app, 'GET', '/_sim/faults', undefined, { authorization: 'Bearer s3cret' })).status,
    ).toBe(200);
    expect(
      (await call(app, 'GET', '/_sim/faults', undefined, { 'x-sim-admin-token': 's3cret' })).status,
    ).toBe(200);
    expect((await call(app, 'GET', '/_sim/health')).status).toBe(200);
    // Routes a simulator adds under /_sim on its own app are guarded too.
    expect((await call(app, 'GET', '/_sim/extra')).status).toBe(401);
    expect((await call(app, 'GET', '/_ns/x/_sim/extra')).status).toBe(401);
    expect((await call(app, 'GET', '/_sim/extra', undefined, { 'x-sim-admin-token': 's3cret' })).status).toBe(
      200,
    );
    // The emulated API itself is not behind the admin token.
    expect((await call(app, 'GET', '/widgets/a')).status).toBe(404);
  });

  it('seeds resources and rejects bad seed input with a 400 naming the field', async () => {
    const { app } = sim();
    const ok = await call(app, 'POST', '/_sim/seed', { widgets: [{ name: 'a', color: 'red' }] });
    expect(ok).toMatchObject({ status: 201, body: { namespace: 'default', seeded: { widgets: ['a'] } } });
    const bad = await call(app, 'POST', '/_sim/seed', { widgets: [{ name: 'b', colour: 'red' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe(
      'widgets[0].color: required (string); widgets[0]: unknown field(s) "colour"',
    );
  });

  it('resets a namespace to an empty world', async () => {
    const { app } = sim();
    await call(app, 'POST', '/widgets', { name: 'a' });
    await call(app, 'POST', '/_sim/faults', { effect: { delay: '1s' }, match: { operation: 'x' } });
    await call(app, 'POST', '/_sim/reset');
    expect((await call(app, 'GET', '/widgets/a')).status).toBe(404);
    expect((await call(app, 'GET', '/_sim/faults')).body.faults).toEqual([]);
    expect((await call(app, 'GET', '/_sim/journal')).body.entries).toHaveLength(1);
  });

  it('exports a snapshot that imports into another simulator unchanged', async () => {
    const a = sim().app;
    await call(a, 'POST', '/widgets', { name: 'a', color: 'red' });
    await call(a, 'POST', '/_sim/faults', {
      id: 'f',
      match: { operation: 'widgets.get' },
      trigger: { times: 2 },
      effect: { error: { status: 'X' } },
    });
    await call(a, 'GET', '/widgets/a');
    await call(a, 'POST', '/_sim/clock/advance', { by: '1m' });
    const snapshot = (await call(a, 'GET', '/_sim/state')).body;
    const b = sim().app;
    expect((await call(b, 'PUT', '/_sim/state', snapshot)).status).toBe(200);
    expect((await call(b, 'GET', '/_sim/state')).body).toEqual(snapshot);
    expect((await call(b, 'GET', '/widgets/a')).status).toBe(503); // the rule's second firing
    expect((await call(b, 'GET', '/widgets/a')).status).toBe(200);
  });

  it('imports nothing when part of a snapshot is invalid', async () => {
    const { app } = sim();
    await call(app, 'POST', '/widgets', { name: 'keep' });
    const bad = { state: { widgets: [], nextWidget: 1 }, faults: [{ id: 'x', effect: { nope: 1 } }] };
    const res = await call(app, 'PUT', '/_sim/state', bad);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/faults\[0\]/);
    expect((await call(app, 'GET', '/widgets/keep')).status).toBe(200);
    const foreign = await call(app, 'PUT', '/_sim/state', { simulator: 'other-sim', state: {} });
    expect(foreign.body.error.message).toBe('simulator: this snapshot is of other-sim, not toy-sim');
  });

  it('manages fault rules: add one or many, get, list unfired, delete', async () => {
    const { app } = sim();
    const one = await call(app, 'POST', '/_sim/faults', {
      match: { operation: 'widgets.get' },
      effect: { error: { status: 'X' } },
    });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({
      id: 'rule-1',
      phase: 'before',
      trigger: {},
      matched: 0,
      fired: 0,
      createdAt: START,
    });
    const many = await call(app, 'POST', '/_sim/faults', [
      { id: 'two', match: { operation: 'widgets.create' }, effect: { delay: '1s' } },
      { id: 'three', match: { operation: 'widgets.paint' }, effect: { delay: '1s' } },
    ]);
    expect(many.body.faults.map((r: { id: string }) => r.id)).toEqual(['two', 'three']);
    await call(app, 'GET', '/widgets/a');
    expect((await call(app, 'GET', '/_sim/faults/rule-1')).body).toMatchObject({ matched: 1, fired: 1 });
    expect(
      (await call(app, 'GET', '/_sim/faults/unfired')).body.faults.map((r: { id: string }) => r.id),
    ).toEqual(['two', 'three']);
    expect((await call(app, 'GET', '/_sim/faults?unfired=true')).body.faults).toHaveLength(2);
    expect((await call(app, 'DELETE', '/_sim/faults/two')).status).toBe(204);
    expect((await call(app, 'GET', '/_sim/faults/two')).status).toBe(404);
    expect((await call(app, 'DELETE', '/_sim/faults')).status).toBe(204);
    expect((await call(app, 'GET', '/_sim/faults')).body.faults).toEqual([]);
  });

  it('adds no rule of a batch when one of them is invalid', async () => {
    const { app } = sim();
    const res = await call(app, 'POST', '/_sim/faults', [
      { id: 'ok', effect: { delay: '1s' } },
      { effect: { boom: true } },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^\[1\]\.effect: unknown field\(s\) "boom"/);
    expect((await call(app, 'GET', '/_sim/faults')).body.faults).toEqual([]);
  });

  it('answers bad input with a precise 400, never a 500', async () => {
    const { app } = sim();
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/_sim/faults', '{"effect": ', /malformed JSON body/],
      [
        'POST',
        '/_sim/faults',
        { effect: { error: { status: 'X' } }, trigger: { times: 'twice' } },
        /trigger\.times/,
      ],
      ['POST', '/_sim/clock/advance', { by: 'a while' }, /invalid duration "a while"/],
      ['POST', '/_sim/clock/advance', {}, /by/],
      ['PUT', '/_sim/clock', { mode: 'fast' }, /mode/],
      ['PUT', '/_sim/clock', { set: 'noon' }, /invalid time "noon"/],
      ['PUT', '/_sim/clock', { speed: -1 }, /speed/],
      ['GET', '/_sim/journal?status=abc', undefined, /status/],
      ['GET', '/_sim/journal?colour=red', undefined, /unknown field\(s\) "colour"/],
      ['GET', '/_sim/journal?limit=0', undefined, /limit must be a positive integer/],
      ['POST', '/_sim/journal/wait', { timeout: 'forever' }, /invalid duration "forever"/],
      ['PUT', '/_sim/state', [], /expected object/],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await call(app, method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error.message, `${method} ${path}`).toMatch(message);
    }
  });

  it('sets the clock mode, speed and time', async () => {
    const { app } = sim();
    const set = await call(app, 'PUT', '/_sim/clock', { set: '2027-05-01T00:00:00Z' });
    expect(set.body).toEqual({ mode: 'manual', speed: 1, now: '2027-05-01T00:00:00.000Z', pendingTimers: 0 });
    const real = await call(app, 'PUT', '/_sim/clock', { mode: 'real', speed: 5 });
    expect(real.body).toMatchObject({ mode: 'real', speed: 5 });
  });

  it('lists journal entries with filters and a limit, and clears them', async () => {
    const { app } = sim();
    await call(app, 'POST', '/widgets', { name: 'a' });
    await call(app, 'GET', '/widgets/a');
    await call(app, 'GET', '/widgets/zz');
    const notFound = await call(app, 'GET', '/_sim/journal?status=404');
    expect(notFound.body.entries.map((e: { path: string }) => e.path)).toEqual(['/widgets/zz']);
    expect((await call(app, 'GET', '/_sim/journal?limit=1')).body.entries[0].path).toBe('/widgets/zz');
    expect((await call(app, 'GET', '/_sim/journal?operation=widgets.get&since=2')).body.entries).toHaveLength(
      1,
    );
    expect((await call(app, 'DELETE', '/_sim/journal')).status).toBe(204);
    expect((await call(app, 'GET', '/_sim/journal')).body.entries).toEqual([]);
  });

  it('serves its OpenAPI document', async () => {
    const { app } = sim();
    const doc = (await call(app, 'GET', '/_sim/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/_sim/health',
        '/_sim/openapi.json',
        '/_sim/faults',
        '/_sim/clock/advance',
        '/_sim/journal/wait',
        '/_sim/scenarios',
        '/_sim/namespaces/{name}',
      ]),
    );
  });

  it('answers unknown emulated routes with the simulator’s own 404', async () => {
    const { app } = sim();
    expect(await call(app, 'GET', '/nothing/here')).toMatchObject({
      status: 404,
      body: { toyError: 'no such route' },
    });
  });
});

describe('scenarios', () => {
  const yaml = `name: slow-start
description: one widget, a failing create, a frozen clock
clock:
  mode: manual
  set: 2030-01-01T00:00:00Z
seed:
  widgets:
    - { name: seeded, color: gold }
faults:
  - id: first-create-fails
    match: { operation: widgets.create }
    trigger: { times: 1 }
    effect: { error: { status: BUSY } }
`;

  it('loads seed data, fault rules and clock settings from YAML', async () => {
    const { app } = createToySim({ clock: { mode: 'real' } });
    const res = await call(app, 'POST', '/_sim/scenarios', yaml, { 'content-type': 'application/yaml' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      name: 'slow-start',
      faults: ['first-create-fails'],
      seeded: { widgets: ['seeded'] },
      clock: { mode: 'manual', now: '2030-01-01T00:00:00.000Z' },
    });
    expect((await call(app, 'GET', '/widgets/seeded')).body.color).toBe('gold');
    expect((await call(app, 'POST', '/widgets', { name: 'x' })).status).toBe(503);
    expect((await call(app, 'POST', '/widgets', { name: 'x' })).status).toBe(201);
  });

  it('loads JSON scenarios too', async () => {
    const { app } = sim();
    const res = await call(
      app,
      'POST',
      '/_sim/scenarios',
      JSON.stringify({ faults: [{ effect: { delay: '1s' } }] }),
    );
    expect(res.body.faults).toEqual(['rule-1']);
  });

  it('points at the line and column of an invalid fault rule, and applies nothing', async () => {
    const { app } = sim();
    const broken = yaml.replace('trigger: { times: 1 }', 'trigger: { times: 0 }');
    const res = await call(app, 'POST', '/_sim/scenarios?source=slow.yaml', broken, {
      'content-type': 'application/yaml',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^slow\.yaml:12:23: trigger\.times: Too small/);
    expect((await call(app, 'GET', '/widgets/seeded')).status).toBe(404);
    expect((await call(app, 'GET', '/_sim/clock')).body.now).toBe(START);
  });

  it('points at the line of invalid seed data and of unknown top-level keys', async () => {
    const { app } = sim();
    const badSeed = yaml.replace('color: gold', 'colour: gold');
    expect((await call(app, 'POST', '/_sim/scenarios', badSeed)).body.error.message).toMatch(
      /^scenario:8:7: widgets\[0\]\.color: .*widgets\[0\]: unknown field\(s\) "colour"/,
    );
    const typo = `${yaml}expectations: []\n`;
    expect((await call(app, 'POST', '/_sim/scenarios', typo)).body.error.message).toMatch(
      /^scenario:1:1: unknown field\(s\) "expectations"/,
    );
  });

  it('reports YAML syntax errors with their position', async () => {
    const { app } = sim();
    const res = await call(app, 'POST', '/_sim/scenarios', 'faults:\n  - effect: { delay: 1s\n');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^scenario:\d+:\d+: /);
  });
});
