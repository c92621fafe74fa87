import type { World } from '@sims/sim-core';
import { OPERATION_CHANGES } from './domain/operation-changes';
import { operationTimeline } from './domain/operation-schedule';
import { fireOperationEvent } from './domain/operations';
import type { ClusterState, OperationRecord } from './domain/state';

/**
 * Puts operation events on a world's clock, so operations progress when simulated time moves (and
 * instantly under `POST /_sim/clock/advance`), never because someone read them.
 */
export interface OperationScheduler {
  schedule(world: World<ClusterState>, op: OperationRecord): void;
  /** Drops an operation's pending timers and schedules what its current status calls for. */
  reschedule(world: World<ClusterState>, op: OperationRecord): void;
  /** After a snapshot import: drops every timer of the world and schedules every live operation. */
  rescheduleAll(world: World<ClusterState>): void;
}

export function createOperationScheduler(): OperationScheduler {
  const timers = new WeakMap<World<ClusterState>, Map<string, number[]>>();
  const of = (world: World<ClusterState>) => {
    let map = timers.get(world);
    if (!map) {
      map = new Map();
      timers.set(world, map);
    }
    return map;
  };
  const drop = (world: World<ClusterState>, id: string) => {
    const map = of(world);
    for (const t of map.get(id) ?? []) world.clock.cancel(t);
    map.delete(id);
  };
  const scheduler: OperationScheduler = {
    schedule(world, op) {
      const ids: number[] = [];
      for (const { at, event } of operationTimeline(op)) {
        // Events already due (a snapshot imported from the past) happen now, in order.
        if (at <= world.clock.now()) {
          fireOperationEvent(world.state, op.id, event, at, OPERATION_CHANGES);
          continue;
        }
        ids.push(
          world.clock.at(at, () => {
            fireOperationEvent(world.state, op.id, event, at, OPERATION_CHANGES);
            if (world.state.operations.get(op.id)?.status === 'DONE') of(world).delete(op.id);
          }),
        );
      }
      of(world).set(op.id, [...(of(world).get(op.id) ?? []), ...ids]);
    },
    reschedule(world, op) {
      drop(world, op.id);
      scheduler.schedule(world, op);
    },
    rescheduleAll(world) {
      for (const id of [...of(world).keys()]) drop(world, id);
      for (const op of world.state.operations.values())
        if (op.status !== 'DONE') scheduler.schedule(world, op);
    },
  };
  return scheduler;
}
