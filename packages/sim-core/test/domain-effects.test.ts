import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { createClock } from '../src/clock';
import {
  type DomainEffectName,
  type DomainEffectValue,
  defineDomainEffects,
} from '../src/faults/domain-effects';
import { createFaultEngine, type FaultRule, type RequestFacts } from '../src/faults/engine';
import { createRandom } from '../src/random';

const effects = defineDomainEffects({
  operationFails: () =>
    z
      .object({ atProgress: z.number().min(0).max(1).optional(), message: z.string().default('boom') })
      .strict(),
  etagBump: () => z.union([z.literal(true), z.object({}).strict()]),
});

const facts: RequestFacts = {
  operation: 'nodePools.update',
  method: 'PUT',
  path: '/p',
  headers: {},
  query: {},
};

function engine() {
  const clock = createClock({ mode: 'manual', start: '2026-01-01T00:00:00Z' });
  return createFaultEngine({ clock, random: createRandom('seed'), domainEffects: effects.schemas });
}

describe('defineDomainEffects', () => {
  it('builds a schema the first time it is read, once, and lists the names without building any', () => {
    const built: string[] = [];
    const lazyEffects = defineDomainEffects({
      a: () => {
        built.push('a');
        return z.literal(true);
      },
      b: () => {
        built.push('b');
        return z.string();
      },
    });
    expect(lazyEffects.names).toEqual(['a', 'b']);
    expect(Object.keys(lazyEffects.schemas)).toEqual(['a', 'b']);
    const clock = createClock({ mode: 'manual', start: '2026-01-01T00:00:00Z' });
    const faults = createFaultEngine({
      clock,
      random: createRandom('s'),
      domainEffects: lazyEffects.schemas,
    });
    expect(built).toEqual([]);
    faults.add({ effect: { b: 'x' } });
    expect(lazyEffects.schemas.b).toBe(lazyEffects.schemas.b);
    expect(built.filter((n) => n === 'b')).toEqual(['b']);
  });

  it('validates rules with its schemas and reads them back as their output', () => {
    const faults = engine();
    expect(() => faults.add({ effect: { operationFails: { atProgress: 2 } } })).toThrow(/atProgress/);
    expect(() => faults.add({ effect: { operationFail: {} } })).toThrow();
    faults.add({ id: 'f', trigger: { times: 1 }, effect: { operationFails: { atProgress: 0.5 } } });
    const taken = effects.take(faults, facts, 'operationFails');
    expect(taken?.rule.id).toBe('f');
    expect(taken?.value).toEqual({ atProgress: 0.5, message: 'boom' });
    expect(effects.take(faults, facts, 'operationFails')).toBeUndefined();
    expect(effects.take(faults, facts, 'etagBump')).toBeUndefined();
    expect(effects.names).toEqual(['operationFails', 'etagBump']);
  });

  it('reads through a request sim by name', () => {
    const asked: string[] = [];
    const sim = {
      takeEffect(kind: string) {
        asked.push(kind);
        return kind === 'etagBump' ? true : undefined;
      },
    };
    expect(effects.takeEffect(sim, 'etagBump')).toBe(true);
    expect(effects.takeEffect(sim, 'operationFails')).toBeUndefined();
    expect(asked).toEqual(['etagBump', 'operationFails']);
  });

  it('types the value from the schema and the name from the declared keys', () => {
    const faults = engine();
    type Fails = { atProgress?: number | undefined; message: string };
    expectTypeOf(effects.take(faults, facts, 'operationFails')).toEqualTypeOf<
      { rule: FaultRule; value: Fails } | undefined
    >();
    expectTypeOf(effects.takeEffect({ takeEffect: () => undefined }, 'etagBump')).toEqualTypeOf<
      true | Record<string, never> | undefined
    >();
    expectTypeOf<DomainEffectValue<typeof effects, 'operationFails'>>().toEqualTypeOf<Fails>();
    expectTypeOf<DomainEffectName<typeof effects>>().toEqualTypeOf<'operationFails' | 'etagBump'>();
    // @ts-expect-error a name the schemas do not declare
    effects.take(faults, facts, 'operationFail');
    // @ts-expect-error a name the schemas do not declare
    effects.takeEffect({ takeEffect: () => undefined }, 'etagbump');
  });
});
