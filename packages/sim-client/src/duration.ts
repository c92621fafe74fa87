import type { Duration } from './types';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Milliseconds of a duration, with the kernel's grammar (`500ms`, `1.5s`, `2m30s`; a number is ms).
 * Kept here so the client does not depend on `@sims/sim-core` at run time.
 *
 * @example toMilliseconds('1.5s') // 1500
 */
export function toMilliseconds(value: Duration): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`invalid duration ${value}: must be >= 0`);
    return value;
  }
  let rest = value.trim();
  let total = 0;
  if (rest === '') throw new RangeError(`invalid duration "${value}": expected e.g. "500ms", "1.5s", "2m"`);
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)/.exec(rest);
    if (!m) throw new RangeError(`invalid duration "${value}": expected e.g. "500ms", "1.5s", "2m"`);
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    rest = rest.slice(m[0].length);
  }
  return total;
}
