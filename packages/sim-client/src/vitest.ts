/**
 * Vitest matchers for simulator tests. A module of its own (`@sims/sim-client/vitest`) so that
 * importing the client never imports vitest.
 *
 * ```ts
 * // vitest.setup.ts (or at the top of a test file)
 * import { setup } from '@sims/sim-client/vitest';
 * setup();
 * ```
 */
import { expect, type MatcherState } from 'vitest';
import { type FaultRuleHandle, isFaultRuleHandle, isSimClient, type SimClient } from './client';
import { describeFilter, formatEntries } from './format';
import type { FaultRule, JournalEntry, JournalFilter } from './types';

/** `toHaveReceived`'s argument: a journal filter, plus an exact count (at least once when absent). */
export interface ReceivedExpectation extends JournalFilter {
  /** Exactly this many matching requests; when absent, at least one. */
  times?: number;
}

/** The result shape vitest expects from a matcher (declared here: `@vitest/expect` is not a dependency). */
interface MatcherResult {
  pass: boolean;
  message: () => string;
  actual?: unknown;
  expected?: unknown;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function checkTimes(matcher: string, times: number | undefined): void {
  if (times !== undefined && (!Number.isInteger(times) || times < 0)) {
    throw new TypeError(`${matcher}(): times must be a non-negative integer, got ${String(times)}`);
  }
}

async function toHaveReceived(
  this: MatcherState,
  received: unknown,
  expectation: ReceivedExpectation = {},
): Promise<MatcherResult> {
  if (!isSimClient(received)) {
    throw new TypeError(
      `toHaveReceived() expects a client made by createSimClient(), got ${this.utils.printReceived(received)}`,
    );
  }
  const sim: SimClient = received;
  const { times, ...filter } = expectation;
  checkTimes('toHaveReceived', times);
  const matching = await sim.journal.list(filter);
  const count = matching.length;
  const pass = times === undefined ? count > 0 : count === times;
  // Only a failing assertion needs the context of everything else the simulator received.
  const failing = pass === Boolean(this.isNot);
  const recent: JournalEntry[] = failing ? await sim.journal.list({ limit: 20 }) : [];
  const wanted = times === undefined ? 'at least 1 request' : plural(times, 'request');
  const subject = `simulator at ${sim.baseUrl} (namespace "${sim.namespace}")`;
  return {
    pass,
    actual: count,
    expected: times ?? 'at least 1',
    message: () =>
      `expected ${subject} ${this.isNot ? 'not ' : ''}to have received ${wanted} matching ` +
      `${describeFilter(filter)}, but it received ${count}.\n` +
      `${formatEntries(matching, 'Matching requests')}\n` +
      formatEntries(recent, 'Most recent requests (any)'),
  };
}

function describeRule(rule: FaultRule): string {
  const match = JSON.stringify(rule.match);
  const trigger = JSON.stringify(rule.trigger);
  return `match ${match}, trigger ${trigger}, phase ${rule.phase}, effect ${JSON.stringify(rule.effect)}`;
}

async function toHaveFired(this: MatcherState, received: unknown, times?: number): Promise<MatcherResult> {
  if (!isFaultRuleHandle(received)) {
    throw new TypeError(
      `toHaveFired() expects a fault rule handle from sim.faults.add() or sim.faults.handle(id), got ${this.utils.printReceived(received)}`,
    );
  }
  const handle: FaultRuleHandle = received;
  checkTimes('toHaveFired', times);
  const rule = await handle.get();
  const pass = times === undefined ? rule.fired > 0 : rule.fired === times;
  const wanted = times === undefined ? 'at least once' : plural(times, 'time');
  const hint =
    rule.matched === 0
      ? ' No request matched it: check the operation name, resource glob and namespace.'
      : rule.fired === 0
        ? ' Requests matched it but its trigger never let it fire.'
        : '';
  return {
    pass,
    actual: rule.fired,
    expected: times ?? 'at least 1',
    message: () =>
      `expected fault rule "${rule.id}" (namespace "${handle.namespace}") ${this.isNot ? 'not ' : ''}to have fired ` +
      `${wanted}, but it fired ${plural(rule.fired, 'time')} and matched ${plural(rule.matched, 'request')}` +
      `${rule.exhausted ? ' (exhausted)' : ''}.${this.isNot ? '' : hint}\n  Rule: ${describeRule(rule)}`,
  };
}

/**
 * The matchers, for `expect.extend(simMatchers)` when you prefer to call it yourself.
 *
 * @example
 * import { expect } from 'vitest';
 * import { simMatchers } from '@sims/sim-client/vitest';
 * expect.extend(simMatchers);
 */
export const simMatchers = { toHaveReceived, toHaveFired };

/**
 * Registers the matchers with vitest's global `expect`. Call it once, in a setup file or at the top of
 * a test file. Both matchers read the simulator, so they are async: `await` them.
 *
 * @example
 * import { setup } from '@sims/sim-client/vitest';
 * setup();
 * await expect(sim).toHaveReceived({ operation: 'nodePools.update', times: 2 });
 * await expect(rule).toHaveFired();
 */
export function setup(): void {
  expect.extend(simMatchers);
}

declare module 'vitest' {
  // The type parameter must match vitest's declaration exactly for the interfaces to merge.
  // biome-ignore lint/suspicious/noExplicitAny: vitest declares Matchers<T = any>
  interface Matchers<T = any> {
    /**
     * Passes when the simulator's journal (this client's namespace) holds requests matching the filter:
     * exactly `times` of them, or at least one when `times` is absent. Async: `await` it.
     *
     * @example await expect(sim).toHaveReceived({ operation: 'nodePools.update', times: 2 });
     */
    toHaveReceived(expectation?: ReceivedExpectation): Promise<void>;
    /**
     * Passes when the fault rule fired exactly `times` times, or at least once when `times` is absent
     * (re-reads the rule). Async: `await` it.
     *
     * @example await expect(rule).toHaveFired(1);
     */
    toHaveFired(times?: number): Promise<void>;
  }
}
