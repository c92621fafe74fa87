import type { Clock } from './clock';
import type { FaultEngine } from './faults/engine';
import type { Journal } from './journal';
import type { MemoryBudget, WorldBudget } from './memory-budget';
import type { Random } from './random';
import type { WorldTimers } from './timers';

// The shapes of a world and of a process's namespaces, apart from the functions that make them
// (world.ts): the simulator definition, the request context and the control plane describe what they
// are given in these terms, while world.ts builds worlds from a definition; with the types there, the
// definition and the world could not be read (or loaded) one without the other.

/** Everything a world holds except the simulator's own state. */
export interface WorldCore {
  readonly namespace: string;
  readonly seed: string;
  readonly clock: Clock;
  /** Ids of created things (uuids, hex suffixes). A stream of its own, so faults do not shift ids. */
  readonly ids: Random;
  /** Fault decisions (probability triggers, delay ranges). */
  readonly random: Random;
  readonly faults: FaultEngine;
  readonly journal: Journal;
  /**
   * The world's side of the process's memory budget: where the simulator's stores (event log, delivery
   * history, finished requests, operations) count what they keep, and are told what to evict.
   */
  readonly budget: WorldBudget;
}

/** One simulated service instance: its state plus its faults, clock and journal. */
export interface World<S> extends WorldCore {
  state: S;
  /**
   * The timers of the world's long-running work (operations, background requests, exports) on its
   * clock, by kind and key (`timers.ts`): the records stay in `state`, nothing outside the world keeps
   * a timer.
   */
  readonly timers: WorldTimers<S>;
}

export interface Namespaces<S> {
  /** The world of `name`, created on first use; throws `NamespaceLimitError` (world.ts) past the limit. */
  get(name: string): World<S>;
  has(name: string): boolean;
  /**
   * A world as `name` would start, not kept (not listed, not counted against the limit): what a read of
   * a namespace that does not exist answers from. Give it back with {@link release}.
   */
  detached(name: string): World<S>;
  /** Disposes a world {@link detached} made. */
  release(world: World<S>): void;
  /** Deletes a namespace in O(1): its world is dropped whole. */
  delete(name: string): boolean;
  /** Replaces a namespace's world with a fresh one (same options), keeping its clock mode/speed. */
  reset(name: string): World<S>;
  names(): string[];
  /** The process's memory budget every world draws on (its pools' stats for the control plane). */
  readonly budget: MemoryBudget;
  /** Disposes every world. */
  close(): void;
}
