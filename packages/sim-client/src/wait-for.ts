import { toMilliseconds } from './duration';
import { SimWaitTimeoutError } from './errors';
import type { Duration } from './types';

export interface WaitForOptions {
  /** Wall-clock time to keep trying; default 3 s (below vitest's 5 s test timeout). */
  timeout?: Duration;
  /** Wall-clock pause between attempts; default 20 ms. */
  interval?: Duration;
  /** Names what is awaited in the timeout message. */
  message?: string;
  signal?: AbortSignal;
}

/**
 * Calls `check` until it returns a value other than `undefined`, `null` or `false` without throwing,
 * and resolves with that value. Throws a SimWaitTimeoutError (with the last error or value) after
 * `timeout`.
 *
 * This one POLLS. Use it only for what has no long-poll of its own: a journal entry is awaited with
 * `sim.journal.waitFor()`, a webhook delivery with `receiver.waitFor()`, both of which resolve the
 * moment the thing exists. Under a manual clock, advance the clock instead of waiting at all.
 *
 * @example
 * const pool = await waitFor(async () => {
 *   const p = await getNodePool();
 *   return p.status === 'RUNNING' ? p : undefined;
 * }, { timeout: '2s', message: 'node pool to be RUNNING' });
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, undefined | null | false>> {
  const timeout = toMilliseconds(options.timeout ?? '3s');
  const interval = toMilliseconds(options.interval ?? 20);
  const deadline = Date.now() + timeout;
  let attempts = 0;
  let last: { error: unknown } | { value: unknown } = { value: undefined };
  for (;;) {
    options.signal?.throwIfAborted();
    attempts++;
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) {
        return value as Exclude<T, undefined | null | false>;
      }
      last = { value };
    } catch (error) {
      last = { error };
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)));
  }
  const what = options.message ?? 'condition';
  const outcome =
    'error' in last
      ? `the last attempt threw: ${last.error instanceof Error ? last.error.message : String(last.error)}`
      : `the last attempt returned ${String(last.value)}`;
  throw new SimWaitTimeoutError(
    `waitFor: ${what} not met within ${String(options.timeout ?? '3s')} (${attempts} attempts); ${outcome}`,
    'error' in last ? { cause: last.error } : undefined,
  );
}
