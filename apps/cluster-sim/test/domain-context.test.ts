import { describe, expect, it } from 'vitest';
import { withEffects } from '../src/domain/context';
import type { Rollout } from '../src/domain/state';

/** The operation fields an operation starts with, from fault effects and its node rollout. */
describe('withEffects', () => {
  const rollout = (): Rollout =>
    ({
      strategy: 'SURGE',
      kind: 'upgrade',
      steps: [{ offset: 0, nodesDone: 1, extraNodes: 1 }],
      total: 1000,
      reached: -1,
      from: {},
      startedAt: 0,
    }) as unknown as Rollout;

  it('keeps the rollout when no fault effects apply (work GKE starts on its own)', () => {
    const r = rollout();
    expect(withEffects(undefined, r)).toEqual({ rollout: r });
  });
});
