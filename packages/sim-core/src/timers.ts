/**
 * Long-running work on a world's clock (operations, background requests, exports): each piece of work
 * is a key of its kind, whose clock events ("steps") the world keeps; its record in the world's state
 * says where it stands, so a snapshot needs nothing from here and an import puts it back on the clock.
 * docs/decisions/0021-long-running-work.md says why it is one primitive.
 */
import type { Clock } from './clock';
import { parseDuration } from './duration';

/** One clock event of a piece of work: what happens (`event`) and when (`at`, epoch ms). */
export interface WorkStep<E> {
  readonly at: number;
  readonly event: E;
}

/**
 * One kind of long-running work a simulator runs, declared once (a constant, or made from the accessor
 * of the state part that holds it): how its records are found, keyed and put on the clock, and what
 * each clock event does. The records stay in the world's state; the world keeps only their timers.
 */
export interface WorkKind<S, T, E> {
  /** Names the kind's keys apart from other kinds' in a world (`request`, `operation`): its identity. */
  readonly name: string;
  /** Every record of this kind in a world's state (after a state import, those with steps are armed). */
  items(state: S): Iterable<T>;
  key(item: T): string;
  /**
   * The clock events still ahead of `item`, in time order; none when it ended or ends in another way
   * (after N polls, by the control plane, never).
   */
  steps(item: T): Iterable<WorkStep<E>>;
  /**
   * Applies `event` to the work `key` at `at`, its own time (also when it was due before it was armed),
   * in the world's state as it is when the step fires. Finds the record by its key: a key whose record
   * is gone does nothing.
   */
  fire(state: S, key: string, event: E, at: number): void;
}

/** The identity of a kind where only its name is needed (cancelling, counting). */
type KindName = { readonly name: string } | string;

const nameOf = (kind: KindName) => (typeof kind === 'string' ? kind : kind.name);

/**
 * A world's timers of long-running work, by kind and key. Arming a key replaces what it had on the
 * clock, so no caller keeps a timer id; a state import re-arms a kind from the new state's records.
 */
export interface WorldTimers<S> {
  /**
   * Puts the steps of `item` on the world's clock, dropping those its key had. A step already due
   * fires now, at its own time, in order (a record imported or seeded after its time).
   */
  arm<T, E>(kind: WorkKind<S, T, E>, item: T): void;
  /** Drops the steps of `key` still on the clock (the work was cancelled, replaced or removed). */
  cancel(kind: KindName, key: string): void;
  /**
   * Ends the work `key` now (the control plane's "complete", a poll that ends it): its steps still on
   * the clock are dropped, then `event` fires at `at` (default now).
   */
  settle<T, E>(kind: WorkKind<S, T, E>, key: string, event: E, at?: number): void;
  /**
   * After the world's state was replaced (a snapshot import): drops every step of `kind`, which the
   * replaced records armed, then arms every record of the new state.
   */
  rearm<T, E>(kind: WorkKind<S, T, E>): void;
  /** How many keys of `kind` (default: of every kind) have steps on the clock. */
  pending(kind?: KindName): number;
  /** Whether the work `key` has steps on the clock. */
  has(kind: KindName, key: string): boolean;
}

/**
 * A world's timers on its clock. Its table is made by the first timer (a namespace that runs no work
 * costs this object alone) and its methods are on the prototype.
 */
class KeyedTimers<S> implements WorldTimers<S> {
  /** Kind name → key → ids of the clock timers still pending. */
  private byKind: Map<string, Map<string, number[]>> | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly world: { state: S },
  ) {}

  arm<T, E>(kind: WorkKind<S, T, E>, item: T): void {
    const key = kind.key(item);
    this.cancel(kind, key);
    // Read whole first: a step fired now may change the record its later steps were read from.
    for (const step of [...kind.steps(item)]) {
      if (step.at <= this.clock.now()) kind.fire(this.world.state, key, step.event, step.at);
      else this.schedule(kind, key, step);
    }
  }

  private schedule<T, E>(kind: WorkKind<S, T, E>, key: string, step: WorkStep<E>): void {
    this.byKind ??= new Map();
    let keys = this.byKind.get(kind.name);
    if (!keys) {
      keys = new Map();
      this.byKind.set(kind.name, keys);
    }
    const id = this.clock.at(step.at, () => {
      this.forgetTimer(kind.name, key, id);
      kind.fire(this.world.state, key, step.event, step.at);
    });
    const ids = keys.get(key);
    if (ids) ids.push(id);
    else keys.set(key, [id]);
  }

  /** A timer fired: its key keeps the others, and goes when none is left. */
  private forgetTimer(kind: string, key: string, id: number): void {
    const keys = this.byKind?.get(kind);
    const ids = keys?.get(key);
    if (!keys || !ids) return;
    const i = ids.indexOf(id);
    if (i >= 0) ids.splice(i, 1);
    if (ids.length === 0) keys.delete(key);
  }

  cancel(kind: KindName, key: string): void {
    const keys = this.byKind?.get(nameOf(kind));
    const ids = keys?.get(key);
    if (!keys || !ids) return;
    for (const id of ids) this.clock.cancel(id);
    keys.delete(key);
  }

  settle<T, E>(kind: WorkKind<S, T, E>, key: string, event: E, at: number = this.clock.now()): void {
    this.cancel(kind, key);
    kind.fire(this.world.state, key, event, at);
  }

  rearm<T, E>(kind: WorkKind<S, T, E>): void {
    const keys = this.byKind?.get(kind.name);
    if (keys) {
      for (const ids of keys.values()) for (const id of ids) this.clock.cancel(id);
      keys.clear();
    }
    for (const item of kind.items(this.world.state)) this.arm(kind, item);
  }

  pending(kind?: KindName): number {
    if (!this.byKind) return 0;
    if (kind !== undefined) return this.byKind.get(nameOf(kind))?.size ?? 0;
    let n = 0;
    for (const keys of this.byKind.values()) n += keys.size;
    return n;
  }

  has(kind: KindName, key: string): boolean {
    return this.byKind?.get(nameOf(kind))?.has(key) ?? false;
  }
}

/**
 * The timers of a world's long-running work on `clock`; `world` is read when a step fires (its state
 * may have been replaced since it was armed).
 *
 * @example const timers = createWorldTimers(world.clock, world); timers.arm(REQUESTS, request);
 */
export function createWorldTimers<S>(clock: Clock, world: { state: S }): WorldTimers<S> {
  return new KeyedTimers(clock, world);
}

/** A delay fault effect (`requestDelay`, `exportDelay`, `operationDuration`) as a rule gives it. */
export interface WorkDelay {
  /** Time from enqueue to the outcome. */
  duration?: number | string;
  /** Time spent queued before the work starts. */
  queued?: number | string;
  /** Status polls the work takes instead of a duration. */
  polls?: number;
}

/** How a new piece of work runs: the world's settings, changed by the fault rules that matched. */
export interface WorkPlan {
  /** Time from enqueue to the outcome, ms. */
  durationMs: number;
  /** Time spent queued before the work starts, ms (capped at the duration by {@link workTimes}). */
  queuedMs: number;
  /** "N polls" mode: the work ends on a status poll rather than on the clock. */
  polls?: number;
}

/**
 * A new piece of work's plan from the world's `usual` timing and a delay fault effect: `duration` (or
 * `polls`) replaces the usual, `queued` the usual queued time; `queued` alone keeps the work's own
 * running time (the usual duration less the usual queued time) after the longer wait. A failure
 * planned `failAfter` a while from enqueue ends the work then (a polls plan still ends on a poll).
 *
 * @example planWork({ durationMs: 2000, queuedMs: 500 }, { queued: '10m' }) // { durationMs: 601_500, queuedMs: 600_000 }
 */
export function planWork(
  usual: { durationMs: number; queuedMs?: number; polls?: number },
  delay?: WorkDelay,
  failAfter?: number | string,
): WorkPlan {
  const usualQueued = usual.queuedMs ?? 0;
  const plan: WorkPlan = { durationMs: usual.durationMs, queuedMs: usualQueued };
  if (usual.polls !== undefined) plan.polls = usual.polls;
  if (delay?.queued !== undefined) plan.queuedMs = parseDuration(delay.queued);
  if (delay?.duration !== undefined) {
    plan.durationMs = parseDuration(delay.duration);
    delete plan.polls;
  } else if (delay?.queued !== undefined)
    plan.durationMs = plan.queuedMs + Math.max(0, usual.durationMs - usualQueued);
  if (delay?.polls !== undefined) plan.polls = delay.polls;
  if (failAfter !== undefined) plan.durationMs = parseDuration(failAfter);
  return plan;
}

/**
 * When planned work enqueued at `now` starts and ends: queued for `queuedMs` (at most the duration),
 * ended `durationMs` after enqueue; in "N polls" mode it starts at once and waits for its polls.
 */
export function workTimes(
  plan: WorkPlan,
  now: number,
): { startAt: number; finishAt: number | null; pollsLeft: number | null } {
  if (plan.polls !== undefined) return { startAt: now, finishAt: null, pollsLeft: plan.polls };
  return {
    startAt: now + Math.min(plan.queuedMs, plan.durationMs),
    finishAt: now + plan.durationMs,
    pollsLeft: null,
  };
}

/**
 * Counts one status poll of work in "N polls" mode (`pollsLeft` not null): the first N polls see it
 * running, the next one ends it. True when this poll ends it (the caller settles it then).
 */
export function pollEnds(work: { pollsLeft: number | null }): boolean {
  if (work.pollsLeft === null) return false;
  if (work.pollsLeft > 0) {
    work.pollsLeft--;
    return false;
  }
  return true;
}

/** The one step of work that ends at `finishAt` (none while it waits for polls or the control plane). */
export function endStep<E>(finishAt: number | null, event: E): WorkStep<E>[] {
  return finishAt === null ? [] : [{ at: finishAt, event }];
}
