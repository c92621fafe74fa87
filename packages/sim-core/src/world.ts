import { type ClockMode, createClock } from './clock';
import { collectGarbage } from './collect-garbage';
import type { SimulatorDefinition } from './definition';
import { createFaultEngine } from './faults/engine';
import { createJournal } from './journal';
import type { JournalBudget } from './journal-budget';
import { createMemoryBudget, type MemoryBudget } from './memory-budget';
import { createRandom } from './random';
import { createWorldTimers, type WorldTimers } from './timers';
import type { Namespaces, World, WorldCore } from './world-types';

export interface WorldOptions {
  /** Base seed; each namespace derives its own from it. Default `0`. */
  seed?: string | number;
  clock?: { mode?: ClockMode; speed?: number; start?: number | string };
  /** Entries the journal keeps (a ring). Default 10,000. */
  journalCapacity?: number;
  /** A byte budget the world's journal shares with others (default the `journal` pool of `memoryBudget`). */
  journalBudget?: JournalBudget;
  /**
   * The process's memory budget the world's stores draw on (`createNamespaces` gives every world the
   * same one); without it, a budget of the world's own with the default shares.
   */
  memoryBudget?: MemoryBudget;
}

/** How many namespaces a simulator keeps unless told otherwise. */
export const DEFAULT_MAX_NAMESPACES = 1000;

/** The options of {@link createNamespaces}: those of every world, and the limits of them all. */
export interface NamespacesOptions extends WorldOptions {
  /**
   * Bytes the journals of all namespaces may hold together (estimated); past it the oldest entries of
   * any namespace are dropped. Default 64 MiB. Ignored when `journalBudget` is given; the same as
   * `budgets.journal`.
   */
  journalMaxBytes?: number;
  /**
   * Bytes each kind of store of all namespaces may hold together, by kind (`journal` and those of the
   * simulator's `budgetKinds`: `events`, `deliveries`, `requests`, `operations`); past it the oldest
   * finished items of any namespace are evicted. Defaults: each kind's own. Ignored when `memoryBudget`
   * is given.
   */
  budgets?: Record<string, number | undefined>;
  /**
   * Most namespaces kept at once (default 1,000). Using one more (through the API or the control plane)
   * throws {@link NamespaceLimitError}, which the kernel answers with a 507 in the control plane's
   * envelope, until a namespace is deleted.
   */
  maxNamespaces?: number;
  /**
   * After a bulk delete, collect garbage at once: when at least this many namespaces (default 256),
   * and at least as many as remain, were deleted in one burst (no pause over 100 ms between two). A deleted world is garbage
   * the heap holds until V8's next full GC; without the collection, namespaces created right after a
   * bulk delete grow the heap on top of it. 0 turns it off.
   */
  collectAfterDeletes?: number;
}

/** How many deleted namespaces trigger a collection unless told otherwise. */
export const DEFAULT_COLLECT_AFTER_DELETES = 256;
/** The longest pause between two deletes of one burst (wall ms). */
const BURST_GAP_MS = 100;

/**
 * Creates a world for one namespace from a simulator definition.
 *
 * @example const world = createWorld(clusterDefinition, 'default', { seed: 42, clock: { mode: 'manual' } });
 */
export function createWorld<S>(
  def: SimulatorDefinition<S>,
  namespace: string,
  options: WorldOptions = {},
): World<S> {
  const seed = `${options.seed ?? 0}/${namespace}`;
  const clock = createClock(options.clock ?? {});
  const random = createRandom(`${seed}/faults`);
  const core: WorldCore = {
    namespace,
    seed,
    clock,
    ids: createRandom(`${seed}/ids`),
    random,
    faults: createFaultEngine({
      clock,
      random,
      errorEffect: def.errorEffect,
      domainEffects: def.domainEffects,
    }),
    journal: createJournal({
      capacity: options.journalCapacity,
      budget: options.journalBudget ?? options.memoryBudget?.pool('journal'),
    }),
    budget: (options.memoryBudget ?? createMemoryBudget(def.budgetKinds)).forWorld(),
  };
  const world = core as World<S> & { timers: WorldTimers<S> };
  world.timers = createWorldTimers(clock, world);
  world.state = def.createState(core);
  return world;
}

/**
 * Drops a world's timers and journal entries and lets the simulator release what its state holds; what
 * its stores counted in the memory budget goes back to it.
 */
function disposeWorld<S>(def: SimulatorDefinition<S>, world: World<S>): void {
  world.clock.dispose();
  world.journal.clear();
  def.disposeState?.(world.state, world);
  world.budget.dispose();
}

/** A namespace would be created beyond `maxNamespaces`. */
export class NamespaceLimitError extends Error {
  override readonly name = 'NamespaceLimitError';
  constructor(
    readonly namespace: string,
    readonly limit: number,
  ) {
    super(
      `cannot create namespace "${namespace}": the simulator holds ${limit} namespaces, its limit ` +
        '(maxNamespaces; --max-namespaces or SIM_MAX_NAMESPACES for the CLI). Delete namespaces you no ' +
        'longer need with DELETE /_sim/namespaces/<name> (GET /_sim/namespaces lists them), then retry.',
    );
  }
}

export const DEFAULT_NAMESPACE = 'default';
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export function isValidNamespace(name: string): boolean {
  return NAME_RE.test(name);
}

/** What is wrong with a namespace name `isValidNamespace` refuses. */
export const invalidNamespaceMessage = (name: string): string =>
  `invalid namespace "${name}": 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit`;

/**
 * Holds the worlds of one simulator process, one per namespace.
 *
 * @example const ns = createNamespaces(def, { seed: 42 }); ns.get('test-1').state
 */
export function createNamespaces<S>(
  def: SimulatorDefinition<S>,
  options: NamespacesOptions & { onCreate?: (world: World<S>) => void } = {},
): Namespaces<S> {
  const worlds = new Map<string, World<S>>();
  const maxNamespaces = options.maxNamespaces ?? DEFAULT_MAX_NAMESPACES;
  if (!(maxNamespaces >= 1)) throw new RangeError(`maxNamespaces must be >= 1, got ${maxNamespaces}`);
  const memoryBudget =
    options.memoryBudget ??
    createMemoryBudget(def.budgetKinds, {
      ...options.budgets,
      journal: options.budgets?.journal ?? options.journalMaxBytes,
    });
  const journalBudget = options.journalBudget ?? memoryBudget.pool('journal');
  const collectAfter = options.collectAfterDeletes ?? DEFAULT_COLLECT_AFTER_DELETES;
  let deletedSinceCollection = 0;
  let lastDeleteAt = Number.NEGATIVE_INFINITY;
  let collecting = false;
  /**
   * Counts a deleted world; collects once at least `collectAfter` worlds, and at least as many as remain,
   * were deleted in one burst (each delete within {@link BURST_GAP_MS} of the one before): a bulk
   * delete, not namespaces deleted one test at a time, whose garbage V8 collects as it goes without a
   * forced full collection stalling the requests in flight.
   */
  function deleted(): void {
    const now = performance.now();
    if (now - lastDeleteAt > BURST_GAP_MS) deletedSinceCollection = 0;
    lastDeleteAt = now;
    deletedSinceCollection++;
    if (collectAfter <= 0 || collecting) return;
    if (deletedSinceCollection < Math.max(collectAfter, worlds.size)) return;
    deletedSinceCollection = 0;
    collecting = true;
    void collectGarbage().finally(() => {
      collecting = false;
    });
  }
  function make(name: string, clock?: WorldOptions['clock']): World<S> {
    if (!worlds.has(name) && worlds.size >= maxNamespaces) throw new NamespaceLimitError(name, maxNamespaces);
    const world = createWorld(def, name, {
      ...options,
      journalBudget,
      memoryBudget,
      clock: clock ?? options.clock,
    });
    worlds.set(name, world);
    options.onCreate?.(world);
    return world;
  }
  return {
    get(name) {
      return worlds.get(name) ?? make(name);
    },
    has: (name) => worlds.has(name),
    detached: (name) =>
      createWorld(def, name, { ...options, journalBudget, memoryBudget, clock: options.clock }),
    release: (world) => disposeWorld(def, world),
    delete(name) {
      const world = worlds.get(name);
      if (!world) return false;
      worlds.delete(name);
      disposeWorld(def, world);
      deleted();
      return true;
    },
    reset(name) {
      const old = worlds.get(name);
      if (old) disposeWorld(def, old);
      const clock = old ? { ...options.clock, mode: old.clock.mode, speed: old.clock.speed } : undefined;
      return make(name, clock);
    },
    names: () => [...worlds.keys()],
    budget: memoryBudget,
    close() {
      for (const world of worlds.values()) disposeWorld(def, world);
      worlds.clear();
    },
  };
}
