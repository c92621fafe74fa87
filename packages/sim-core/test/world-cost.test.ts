// A namespace costs what it uses (hardening: "nothing allocated up front that the namespace has not
// used"): the per-world parts sim-core makes (clock, id and fault streams, journal, fault engine) keep
// their methods on shared prototypes and make their tables on first use, and behave as before once used.
import { describe, expect, it } from 'vitest';
import { createNamespaces } from '../src/world';
import { toyDefinition } from './support/toy-simulator';

const entry = (path: string) => ({
  requestId: path,
  time: new Date(0).toISOString(),
  namespace: 'n',
  method: 'GET',
  path,
  query: {},
  headers: {},
  status: 200,
  durationMs: 1,
  faults: [],
});

describe('the cost of a touched namespace', () => {
  it('makes no functions of its own for the clock, random streams, journal or fault engine', () => {
    const ns = createNamespaces(toyDefinition, { collectAfterDeletes: 0, clock: { mode: 'manual' } });
    const worlds = Array.from({ length: 20 }, (_, i) => ns.get(`touched-${i}`));
    const [a, b] = worlds;
    if (!a || !b) throw new Error('no worlds');
    const methods = {
      clock: ['now', 'iso', 'at', 'after', 'sleep', 'cancel', 'advance', 'set', 'configure', 'state'],
      ids: ['next', 'int', 'hex', 'digits', 'uuid'],
      random: ['next', 'int', 'hex', 'digits', 'uuid'],
      journal: ['record', 'list', 'get', 'wait', 'clear', 'stats'],
      faults: ['add', 'list', 'get', 'remove', 'evaluate', 'take', 'snapshot', 'restore', 'onRuleAdded'],
      timers: ['arm', 'cancel', 'settle', 'rearm', 'pending', 'has'],
    } as const;
    for (const [part, names] of Object.entries(methods) as [keyof typeof methods, readonly string[]][]) {
      for (const name of names) {
        const of = (w: typeof a) => (w[part] as unknown as Record<string, unknown>)[name];
        expect(typeof of(a), `${part}.${name}`).toBe('function');
        expect(of(a), `${part}.${name}`).toBe(of(b));
      }
    }
    for (const world of worlds) {
      expect(world.clock.pending()).toBe(0);
      expect(world.journal.stats()).toEqual({ capacity: 10_000, size: 0, dropped: 0, total: 0 });
      expect(world.faults.size()).toBe(0);
      expect(world.timers.pending()).toBe(0);
      expect(world.faults.list()).toEqual([]);
      expect(world.faults.evaluate({ method: 'GET', path: '/', headers: {}, query: {} }, 'before')).toEqual(
        [],
      );
    }
    ns.close();
  });

  it('behaves as before once used, each world on its own', async () => {
    const ns = createNamespaces(toyDefinition, {
      collectAfterDeletes: 0,
      clock: { mode: 'manual', start: '2026-01-01T00:00:00Z' },
    });
    const a = ns.get('a');
    const b = ns.get('b');
    const fired: string[] = [];
    a.clock.after('2s', () => fired.push('2s'));
    a.clock.after('1s', () => fired.push('1s'));
    expect([a.clock.pending(), b.clock.pending()]).toEqual([2, 0]);
    a.clock.advance('5s');
    expect(fired).toEqual(['1s', '2s']);
    expect(b.clock.iso()).toBe('2026-01-01T00:00:00.000Z');

    const waited = a.journal.wait({ path: '/later' }, 1_000);
    a.journal.record(entry('/first'));
    a.journal.record(entry('/later'));
    expect((await waited)?.seq).toBe(2);
    expect(a.journal.get(1)?.path).toBe('/first');
    expect(b.journal.list()).toEqual([]);

    const rule = a.faults.add({
      match: { path: '/x' },
      trigger: { times: 1 },
      effect: { error: { status: 500 } },
    });
    const facts = { method: 'GET', path: '/x', headers: {}, query: {} };
    expect(b.faults.evaluate(facts, 'before')).toEqual([]);
    expect(a.faults.evaluate(facts, 'before').map((r) => r.id)).toEqual([rule.id]);
    const snapshot = a.faults.snapshot();
    b.faults.restore(snapshot);
    expect(b.faults.list()).toEqual(snapshot);

    // The same seeds give the same ids, however the streams are held.
    expect(ns.get('c').ids.uuid()).toBe(ns.reset('c').ids.uuid());
    ns.close();
  });
});
