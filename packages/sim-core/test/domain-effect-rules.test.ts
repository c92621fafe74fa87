import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { SimulatorDefinition } from '../src/definition';
import { defineDomainEffects } from '../src/faults/domain-effects';
import { RequestContext, type SimEnv } from '../src/http/request-context';
import { createWorld } from '../src/world';

const effects = defineDomainEffects({
  busy: () => z.object({ operation: z.string().optional() }).strict(),
  bump: () => z.literal(true),
});

const definition = {
  name: 'effects-sim',
  version: '0.0.0',
  createState: () => ({}),
  domainEffects: effects.schemas,
} as unknown as SimulatorDefinition<object>;

/** A world and a way to run one request through a real `RequestContext` (as the kernel makes it). */
function setup() {
  const world = createWorld(definition, 'default', { clock: { mode: 'manual', start: 0 } });
  const app = new Hono<SimEnv<object>>();
  const seen: RequestContext<object>[] = [];
  let handle: (sim: RequestContext<object>) => unknown = () => undefined;
  let out: unknown;
  app.post('/x', (c) => {
    const sim = new RequestContext(world, 'default', 'req', c);
    sim.operation = 'things.update';
    seen.push(sim);
    out = handle(sim);
    return c.json({});
  });
  const request = async (h: (sim: RequestContext<object>) => unknown) => {
    handle = h;
    await app.request('/x', { method: 'POST' });
    return out;
  };
  return { world, request, seen };
}

describe('domain effects: the rule behind an effect', () => {
  it('takeEffectRule gives the value and the id of the rule that fired (journalled as fired)', async () => {
    const { world, request, seen } = setup();
    world.faults.add({ id: 'other', match: { operation: 'nope' }, effect: { busy: {} } });
    world.faults.add({ id: 'busy-once', trigger: { times: 1 }, effect: { busy: { operation: 'op-1' } } });
    const first = await request((sim) => effects.takeEffectRule(sim, 'busy'));
    expect(first).toEqual({ value: { operation: 'op-1' }, ruleId: 'busy-once' });
    expect(seen[0]?.fired).toEqual(['busy-once']);
    const second = await request((sim) => effects.takeEffectRule(sim, 'busy'));
    expect(second).toBeUndefined();
    expect(seen[1]?.fired).toEqual([]);
  });

  it('takenRule says which rule gave an effect this request took, and only this request', async () => {
    const { world, request } = setup();
    world.faults.add({ id: 'writer', trigger: { times: 1 }, effect: { bump: true } });
    const seenRules = await request((sim) => {
      const before = effects.takenRule(sim, 'bump');
      const value = effects.takeEffect(sim, 'bump');
      return { before, value, after: effects.takenRule(sim, 'bump'), busy: effects.takenRule(sim, 'busy') };
    });
    expect(seenRules).toEqual({ before: undefined, value: true, after: 'writer', busy: undefined });
    const next = await request((sim) => [effects.takeEffect(sim, 'bump'), effects.takenRule(sim, 'bump')]);
    expect(next).toEqual([undefined, undefined]);
  });

  it('keeps takeEffect as it was, and gives no rule id from a source without a fired list', () => {
    const source = { takeEffect: (kind: string) => (kind === 'bump' ? true : undefined) };
    expect(effects.takeEffect(source, 'bump')).toBe(true);
    expect(effects.takenRule(source, 'bump')).toBeUndefined();
    expect(effects.takeEffectRule(source, 'bump')).toEqual({ value: true, ruleId: undefined });
    expect(effects.takeEffectRule(source, 'busy')).toBeUndefined();
  });
});
