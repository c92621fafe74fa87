import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createClock } from '../src/clock';
import { createFaultEngine, type RequestFacts } from '../src/faults/engine';
import { createRandom } from '../src/random';

const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({
  operation: 'nodePools.update',
  resource: 'projects/p/locations/us-central1/clusters/c1/nodePools/np1',
  method: 'PUT',
  path: '/v1beta1/projects/p/locations/us-central1/clusters/c1/nodePools/np1',
  headers: { 'content-type': 'application/json', 'x-team': 'blue' },
  query: { alt: 'json' },
  body: { nodeVersion: '1.30', upgradeSettings: { maxSurge: 1 } },
  ...over,
});

function engine(seed = 'seed') {
  const clock = createClock({ mode: 'manual', start: '2026-01-01T00:00:00Z' });
  return {
    clock,
    faults: createFaultEngine({
      clock,
      random: createRandom(seed),
      domainEffects: { operationFails: z.object({ atProgress: z.number() }).strict() },
    }),
  };
}
const abort = { error: { status: 'ABORTED' } };

/** Which of `n` matching requests fire, according to the rule's documented semantics. */
function model(n: number, t: { times?: number; nth?: number; after?: number }): number[] {
  const out: number[] = [];
  for (let i = 1; i <= n; i++) {
    if (t.after !== undefined && i <= t.after) continue;
    if (t.nth !== undefined && i !== t.nth) continue;
    if (t.times !== undefined && out.length >= t.times) continue;
    out.push(i);
  }
  return out;
}

describe('fault triggers', () => {
  it('fire exactly as times / nth / after describe (property)', () => {
    const trigger = fc.oneof(
      fc.record({
        times: fc.integer({ min: 1, max: 5 }),
        after: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      }),
      fc.record({
        nth: fc.integer({ min: 1, max: 8 }),
        after: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      }),
      fc.record({ after: fc.integer({ min: 0, max: 8 }) }),
    );
    fc.assert(
      fc.property(trigger, fc.integer({ min: 0, max: 15 }), (t, n) => {
        const { faults } = engine();
        const cleaned = Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined));
        faults.add({ match: { operation: 'nodePools.update' }, trigger: cleaned, effect: abort });
        const fired: number[] = [];
        for (let i = 1; i <= n; i++) if (faults.evaluate(facts(), 'before').length > 0) fired.push(i);
        expect(fired).toEqual(model(n, cleaned));
        expect(faults.list()[0]?.fired).toBe(fired.length);
        expect(faults.list()[0]?.matched).toBe(n);
      }),
    );
  });

  it('make the same probabilistic decisions for the same seed (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.double({ min: 0, max: 1, noNaN: true }), (seed, p) => {
        const run = () => {
          const { faults } = engine(seed);
          faults.add({ trigger: { probability: p }, effect: abort });
          return Array.from({ length: 30 }, () => faults.evaluate(facts(), 'before').length);
        };
        expect(run()).toEqual(run());
      }),
    );
  });

  it('never fire at probability 0 and always fire at probability 1', () => {
    const { faults } = engine();
    faults.add({ id: 'never', match: { operation: 'a' }, trigger: { probability: 0 }, effect: abort });
    faults.add({ id: 'always', match: { operation: 'b' }, trigger: { probability: 1 }, effect: abort });
    for (let i = 0; i < 50; i++) {
      expect(faults.evaluate(facts({ operation: 'a' }), 'before')).toEqual([]);
      expect(faults.evaluate(facts({ operation: 'b' }), 'before').map((r) => r.id)).toEqual(['always']);
    }
  });

  it('fire only inside their clock window', () => {
    const { clock, faults } = engine();
    faults.add({ trigger: { window: { from: '+10s', to: '+20s' } }, effect: abort });
    expect(faults.evaluate(facts(), 'before')).toHaveLength(0);
    clock.advance('10s');
    expect(faults.evaluate(facts(), 'before')).toHaveLength(1);
    clock.advance('10s');
    expect(faults.evaluate(facts(), 'before')).toHaveLength(0);
    expect(faults.list()[0]).toMatchObject({ matched: 1, fired: 1 });
  });

  it('take absolute window times as ISO timestamps', () => {
    const { clock, faults } = engine();
    faults.add({ trigger: { window: { from: '2026-01-01T00:01:00Z' } }, effect: abort });
    expect(faults.evaluate(facts(), 'before')).toHaveLength(0);
    clock.set('2026-01-01T00:01:00Z');
    expect(faults.evaluate(facts(), 'before')).toHaveLength(1);
  });
});

describe('fault matching', () => {
  it('matches operation, resource glob, method, path glob, headers, query and body', () => {
    const { faults } = engine();
    faults.add({
      id: 'all',
      match: {
        operation: ['nodePools.get', 'nodePools.update'],
        resource: 'projects/*/locations/*/clusters/c1/nodePools/*',
        method: 'put',
        path: '/v1beta1/**',
        headers: { 'X-Team': 'bl*' },
        query: { alt: 'json' },
        body: { 'upgradeSettings.maxSurge': 1, nodeVersion: '1.30' },
      },
      effect: abort,
    });
    expect(faults.evaluate(facts(), 'before').map((r) => r.id)).toEqual(['all']);
    const misses: Partial<RequestFacts>[] = [
      { operation: 'nodePools.delete' },
      { resource: 'projects/p/locations/us/clusters/c2/nodePools/np1' },
      { method: 'GET' },
      { path: '/v1/projects/p' },
      { headers: { 'x-team': 'red' } },
      { query: {} },
      { body: { nodeVersion: '1.31', upgradeSettings: { maxSurge: 1 } } },
      { body: undefined },
    ];
    for (const miss of misses)
      expect(faults.evaluate(facts(miss), 'before'), JSON.stringify(miss)).toEqual([]);
  });

  it('lets delay rules add up and stops at the first terminal effect', () => {
    const { faults } = engine();
    faults.add({ id: 'd1', effect: { delay: '1s' } });
    faults.add({ id: 'err', effect: abort });
    faults.add({ id: 'shadowed', effect: { http: { status: 503 } } });
    expect(faults.evaluate(facts(), 'before').map((r) => r.id)).toEqual(['d1', 'err']);
    expect(faults.get('shadowed')?.matched).toBe(0);
  });

  it('evaluates rules only in their own phase', () => {
    const { faults } = engine();
    faults.add({ id: 'late', phase: 'after', effect: abort });
    expect(faults.evaluate(facts(), 'before')).toEqual([]);
    expect(faults.evaluate(facts(), 'after').map((r) => r.id)).toEqual(['late']);
  });

  it('leaves domain rules to take(), which counts them', () => {
    const { faults } = engine();
    faults.add({ id: 'midway', trigger: { times: 1 }, effect: { operationFails: { atProgress: 50 } } });
    expect(faults.evaluate(facts(), 'before')).toEqual([]);
    expect(faults.take(facts(), 'operationFails')).toMatchObject({ value: { atProgress: 50 } });
    expect(faults.take(facts(), 'operationFails')).toBeUndefined();
    expect(faults.get('midway')).toMatchObject({ fired: 1, exhausted: true });
  });

  it('draws ranged delays from the seeded generator within bounds', () => {
    const { faults } = engine();
    const rule = faults.add({ effect: { delay: { min: '100ms', max: '200ms' } } });
    for (let i = 0; i < 100; i++) {
      const d = faults.delayOf(rule);
      expect(d).toBeGreaterThanOrEqual(100);
      expect(d).toBeLessThanOrEqual(200);
    }
  });

  it('answers which rules never fired', () => {
    const { faults } = engine();
    faults.add({ id: 'used', match: { operation: 'nodePools.update' }, effect: abort });
    faults.add({ id: 'unused', match: { operation: 'nodePools.delete' }, effect: abort });
    faults.evaluate(facts(), 'before');
    expect(faults.unfired().map((r) => r.id)).toEqual(['unused']);
  });
});

describe('fault rule validation', () => {
  const cases: [string, unknown, RegExp][] = [
    ['an unknown effect kind', { effect: { explode: true } }, /effect: unknown field\(s\) "explode"/],
    ['no effect', { effect: {} }, /an effect needs one of: error, http, delay, connection, operationFails/],
    [
      'two terminal effects',
      { effect: { error: { status: 'X' }, http: { status: 500 } } },
      /error and http cannot be combined/,
    ],
    [
      'a domain effect mixed with a generic one',
      { effect: { operationFails: { atProgress: 1 }, delay: '1s' } },
      /cannot be combined with generic effects/,
    ],
    ['times below 1', { trigger: { times: 0 }, effect: abort }, /trigger\.times/],
    ['nth with times', { trigger: { times: 1, nth: 2 }, effect: abort }, /nth and times cannot be combined/],
    ['probability above 1', { trigger: { probability: 2 }, effect: abort }, /trigger\.probability/],
    ['a bad delay', { effect: { delay: 'soon' } }, /effect\.delay/],
    ['a bad connection effect', { effect: { connection: 'explode' } }, /effect\.connection/],
    ['an http status out of range', { effect: { http: { status: 700 } } }, /effect\.http\.status/],
    ['an unknown match field', { match: { verb: 'PUT' }, effect: abort }, /match: unknown field\(s\) "verb"/],
    [
      'a relative path glob',
      { match: { path: 'v1/*' }, effect: abort },
      /match\.path: a path glob starts with "\/"/,
    ],
    ['a bad window time', { trigger: { window: { from: 'later' } }, effect: abort }, /trigger\.window\.from/],
    ['an unknown phase', { phase: 'during', effect: abort }, /phase/],
    ['a top-level typo', { efect: abort }, /unknown field\(s\) "efect"/],
  ];
  for (const [what, rule, message] of cases) {
    it(`rejects ${what}`, () => {
      const { faults } = engine();
      expect(() => faults.add(rule)).toThrow(message);
      expect(faults.list()).toEqual([]);
    });
  }

  it('rejects a duplicate id', () => {
    const { faults } = engine();
    faults.add({ id: 'x', effect: abort });
    expect(() => faults.add({ id: 'x', effect: abort })).toThrow(/already exists/);
  });
});
