// The domain side of sending ahead: the one module of the delivery machinery that knows the webhooks
// table watches its changes and that the fault engine announces new rules.
import type { WorldCore } from '@sims/sim-core';
import type { AnnotationState } from '../domain/state';
import type { AheadWorld } from './ahead';

/**
 * {@link AheadWorld} over a world and its state. The webhooks table freezes its records and tells its
 * watchers of every `set`, `delete` and `clear` (domain/state.ts), so a watched table cannot change
 * unseen; a table put in place of it (not by this app) is not watched, and nothing goes ahead for it.
 */
export function aheadWorldOf(world: WorldCore, state: () => AnnotationState): AheadWorld {
  const table = state().webhooks;
  return {
    webhook(id) {
      if (world.faults.size() > 0 || state().webhooks !== table) return undefined;
      const webhook = table.get(id);
      return webhook?.is_active ? webhook : undefined;
    },
    watch(listener) {
      const stops = [table.watch(listener), world.faults.onRuleAdded(listener)];
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
}
