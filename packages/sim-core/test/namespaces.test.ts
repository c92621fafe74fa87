import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call } from './support/http';
import { createToySim } from './support/toy-simulator';

const START = '2026-01-01T00:00:00.000Z';
const sim = () => createToySim({ seed: 3, clock: { mode: 'manual', start: START } });

type Step =
  | { kind: 'create'; ns: string; name: string; color: string }
  | { kind: 'paint'; ns: string; name: string; color: string }
  | { kind: 'fault'; ns: string }
  | { kind: 'advance'; ns: string; ms: number };

function send(app: ReturnType<typeof sim>['app'], step: Step, viaPrefix: boolean) {
  const prefix = viaPrefix ? `/_ns/${step.ns}` : '';
  const headers: Record<string, string> = viaPrefix ? {} : { 'x-sim-namespace': step.ns };
  switch (step.kind) {
    case 'create':
      return call(app, 'POST', `${prefix}/widgets`, { name: step.name, color: step.color }, headers);
    case 'paint':
      return call(app, 'POST', `${prefix}/widgets/${step.name}/paint`, { color: step.color }, headers);
    case 'fault':
      return call(
        app,
        'POST',
        `${prefix}/_sim/faults`,
        {
          match: { operation: 'widgets.create' },
          trigger: { times: 1 },
          effect: { error: { status: 'NO' } },
        },
        headers,
      );
    case 'advance':
      return call(app, 'POST', `${prefix}/_sim/clock/advance`, { by: step.ms }, headers);
  }
}

async function observe(app: ReturnType<typeof sim>['app'], ns: string) {
  const h = { 'x-sim-namespace': ns };
  const state = await call(app, 'GET', '/_sim/state', undefined, h);
  const journal = await call(app, 'GET', '/_sim/journal', undefined, h);
  const strip = (e: Record<string, unknown>) => ({ ...e, durationMs: 0, seq: 0, requestId: '' });
  return { state: state.body, journal: journal.body.entries.map(strip) };
}

describe('namespaces', () => {
  it('never see each other’s state, faults, clock or journal, however requests interleave (property)', async () => {
    const names = ['a', 'b', 'c'];
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('create' as const),
        ns: fc.constantFrom(...names),
        name: fc.constantFrom('w1', 'w2'),
        color: fc.constantFrom('red', 'blue'),
      }),
      fc.record({
        kind: fc.constant('paint' as const),
        ns: fc.constantFrom(...names),
        name: fc.constantFrom('w1', 'w2'),
        color: fc.constantFrom('green', 'pink'),
      }),
      fc.record({ kind: fc.constant('fault' as const), ns: fc.constantFrom(...names) }),
      fc.record({
        kind: fc.constant('advance' as const),
        ns: fc.constantFrom(...names),
        ms: fc.integer({ min: 0, max: 3000 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), fc.boolean(), async (steps, viaPrefix) => {
        const shared = sim().app;
        for (const s of steps) await send(shared, s, viaPrefix);
        for (const ns of names) {
          // The same namespace's steps alone, on a simulator of its own.
          const alone = sim().app;
          for (const s of steps.filter((x) => x.ns === ns)) await send(alone, s, viaPrefix);
          expect(await observe(shared, ns)).toEqual(await observe(alone, ns));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('are selected by header or by path prefix, and default to "default"', async () => {
    const { app } = sim();
    await call(app, 'POST', '/widgets', { name: 'h' }, { 'x-sim-namespace': 'team-1' });
    await call(app, 'POST', '/_ns/team-1/widgets', { name: 'p' });
    await call(app, 'POST', '/widgets', { name: 'd' });
    expect((await call(app, 'GET', '/_ns/team-1/widgets/h')).status).toBe(200);
    expect((await call(app, 'GET', '/widgets/p', undefined, { 'x-sim-namespace': 'team-1' })).status).toBe(
      200,
    );
    expect((await call(app, 'GET', '/widgets/h')).status).toBe(404);
    expect((await call(app, 'GET', '/_ns/default/widgets/d')).status).toBe(200);
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces.sort()).toEqual([
      'default',
      'team-1',
    ]);
  });

  it('are deleted whole, and come back empty on next use', async () => {
    const { app } = sim();
    await call(app, 'POST', '/_ns/gone/widgets', { name: 'x' });
    await call(app, 'POST', '/_ns/gone/_sim/faults', {
      effect: { delay: '1s' },
      match: { operation: 'nothing' },
    });
    expect((await call(app, 'DELETE', '/_sim/namespaces/gone')).status).toBe(204);
    expect((await call(app, 'DELETE', '/_sim/namespaces/gone')).status).toBe(404);
    expect((await call(app, 'GET', '/_ns/gone/widgets/x')).status).toBe(404);
    expect((await call(app, 'GET', '/_ns/gone/_sim/faults')).body.faults).toEqual([]);
  });

  it('reach simulator-specific control routes too', async () => {
    const { app } = sim();
    await call(app, 'POST', '/_ns/n1/widgets', { name: 'w' });
    await call(app, 'POST', '/_ns/n1/widgets/w/paint', { color: 'red' });
    expect((await call(app, 'POST', '/_sim/widgets/w/finish-paint')).status).toBe(404);
    const done = await call(app, 'POST', '/_sim/widgets/w/finish-paint', undefined, {
      'x-sim-namespace': 'n1',
    });
    expect(done.body).toMatchObject({ name: 'w', painting: false });
  });

  it('have clocks of their own', async () => {
    const { app } = sim();
    await call(app, 'POST', '/_ns/a/_sim/clock/advance', { by: '1h' });
    expect((await call(app, 'GET', '/_ns/a/_sim/clock')).body.now).toBe('2026-01-01T01:00:00.000Z');
    expect((await call(app, 'GET', '/_ns/b/_sim/clock')).body.now).toBe(START);
  });

  it('reject an invalid name with a 400 that says why', async () => {
    const { app } = sim();
    const res = await call(app, 'GET', '/widgets/a', undefined, { 'x-sim-namespace': '../etc' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/invalid namespace "..\/etc"/);
    expect((await call(app, 'GET', '/_sim/faults', undefined, { 'x-sim-namespace': '-x' })).status).toBe(400);
  });
});

describe('namespace limit', () => {
  const limited = () => createToySim({ maxNamespaces: 3, clock: { mode: 'manual', start: START } });

  it('answers a request naming one namespace more with a 507 in the control envelope, naming the cap and the way out', async () => {
    const { app } = limited();
    for (const ns of ['a', 'b', 'c'])
      expect((await call(app, 'POST', `/_ns/${ns}/widgets`, { name: 'w' })).status).toBe(201);
    const refused = await call(app, 'POST', '/widgets', { name: 'w' }, { 'x-sim-namespace': 'd' });
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual({
      error: {
        status: 507,
        reason: 'NAMESPACE_LIMIT',
        message: expect.stringMatching(
          /^cannot create namespace "d": the simulator holds 3 namespaces, its limit/,
        ),
      },
    });
    expect(refused.body.error.message).toContain('--max-namespaces');
    expect(refused.body.error.message).toContain('DELETE /_sim/namespaces/<name>');
    // Through the control plane too (any route that names a new namespace creates it).
    const control = await call(app, 'POST', '/_ns/d/_sim/faults', { effect: { delay: '1s' } });
    expect(control.status).toBe(507);
    expect(control.body.error.reason).toBe('NAMESPACE_LIMIT');
    expect((await call(app, 'POST', '/_sim/reset')).status).toBe(507);
    // Nothing was created, the existing namespaces work on, and what needs no namespace answers.
    expect((await call(app, 'GET', '/_sim/namespaces')).body.namespaces.sort()).toEqual(['a', 'b', 'c']);
    expect((await call(app, 'GET', '/_ns/a/widgets/w')).status).toBe(200);
    expect((await call(app, 'GET', '/_sim/health')).body.namespaces).toBe(3);
  });

  it('makes room when a namespace is deleted', async () => {
    const { app } = limited();
    for (const ns of ['a', 'b', 'c']) await call(app, 'GET', `/_ns/${ns}/widgets/w`);
    expect((await call(app, 'GET', '/_ns/d/widgets/w')).status).toBe(507);
    expect((await call(app, 'DELETE', '/_sim/namespaces/b')).status).toBe(204);
    expect((await call(app, 'POST', '/_ns/d/widgets', { name: 'w' })).status).toBe(201);
    expect((await call(app, 'GET', '/_ns/e/widgets/w')).status).toBe(507);
  });

  it('is 1,000 by default', () => {
    const { namespaces } = sim();
    for (let i = 0; i < 1000; i++) namespaces.get(`n${i}`);
    expect(() => namespaces.get('one-more')).toThrow(/holds 1000 namespaces/);
    expect(namespaces.get('n999').namespace).toBe('n999');
  });
});
