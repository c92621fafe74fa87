import type * as core from '@sims/sim-core';
import { describe, expectTypeOf, it } from 'vitest';
import type * as client from '../src/types';

// The client keeps its own copies of the kernel's wire types so that it does not pull the kernel (and
// its server dependencies) into its users' installs. These checks make a drift fail `typecheck`.
describe('the client’s wire types', () => {
  it('match the kernel’s journal types', () => {
    expectTypeOf<client.JournalEntry>().toEqualTypeOf<core.JournalEntry>();
    expectTypeOf<client.JournalStats>().toEqualTypeOf<core.JournalStats>();
    expectTypeOf<client.JournalFilter>().toEqualTypeOf<core.JournalFilter>();
  });

  it('match the kernel’s clock types', () => {
    expectTypeOf<client.ClockMode>().toEqualTypeOf<core.ClockMode>();
    expectTypeOf<client.ClockState>().toEqualTypeOf<core.ClockState>();
  });

  it('accept every rule the kernel accepts, and the kernel returns what the client reads', () => {
    expectTypeOf<core.FaultRule['id']>().toEqualTypeOf<client.FaultRule['id']>();
    expectTypeOf<core.FaultRule['matched']>().toEqualTypeOf<client.FaultRule['matched']>();
    expectTypeOf<core.FaultRule['fired']>().toEqualTypeOf<client.FaultRule['fired']>();
    expectTypeOf<core.FaultRule['exhausted']>().toEqualTypeOf<client.FaultRule['exhausted']>();
    expectTypeOf<core.FaultRule['phase']>().toEqualTypeOf<client.FaultRule['phase']>();
  });
});
