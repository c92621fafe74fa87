import { isPlainObject, type Loose } from './defaults';
import { dateAndTime, durationMillis, millis } from './maintenance-policy';
import { DAY, HOUR, nextWindowTime, parseRecurrence } from './maintenance-recurrence';

/**
 * When a cluster's maintenance policy lets GKE's own work start: "GKE makes automatic changes that
 * respect your cluster's maintenance policies when there is an open maintenance window and no active
 * maintenance exclusion" (GKE's "Maintenance windows and exclusions"). Without a window, maintenance
 * may happen at any time. The policy has already passed GKE's rules (maintenance-policy.ts).
 */

/** A daily window lasts four hours (the `duration` GKE answers, `PT4H0M0S`). */
const DAILY_LENGTH = 4 * HOUR;

/**
 * Exclusion scopes that hold back a node recreation: "No upgrades" (the default scope) and "No minor
 * or node upgrades"; "No minor upgrades" lets node changes through.
 */
const HOLDS_NODES: ReadonlySet<unknown> = new Set([undefined, 'NO_UPGRADES', 'NO_MINOR_OR_NODE_UPGRADES']);

/** How many exclusions one answer may step past before giving up (a policy has at most 20). */
const MAX_STEPS = 50;

const sub = (v: unknown, key: string): Loose | undefined => {
  const x = isPlainObject(v) ? v[key] : undefined;
  return isPlainObject(x) ? x : undefined;
};

/** The first instant at or after `at` inside the policy's window; `at` when there is no window. */
function windowOpening(window: Loose | undefined, at: number): number | undefined {
  const daily = sub(window, 'dailyMaintenanceWindow');
  if (daily && typeof daily.startTime === 'string') {
    const [h, m] = daily.startTime.split(':').map(Number);
    const today = Math.floor(at / DAY) * DAY + (h ?? 0) * HOUR + (m ?? 0) * 60_000;
    for (const opens of [today - DAY, today, today + DAY])
      if (opens + DAILY_LENGTH > at) return Math.max(opens, at);
  }
  const recurring = sub(window, 'recurringWindow');
  if (recurring) {
    const times = sub(recurring, 'window');
    const start = millis(times?.startTime);
    const end = millis(times?.endTime);
    const parsed = parseRecurrence(String(recurring.recurrence ?? ''));
    return parsed.ok ? nextWindowTime(parsed.rule, start, end - start, at) : undefined;
  }
  const beta = sub(window, 'recurringMaintenanceWindow');
  if (beta) {
    const start = dateAndTime(
      sub(beta, 'delayUntil'),
      sub(beta, 'windowStartTime'),
      Math.floor(at / DAY) * DAY,
    );
    const parsed = parseRecurrence(String(beta.recurrence ?? ''));
    return parsed.ok
      ? nextWindowTime(parsed.rule, start, durationMillis(beta.windowDuration), at)
      : undefined;
  }
  return at;
}

/** The end of an exclusion holding node changes at `at`: +Infinity for one until end of support. */
function excludedUntil(window: Loose | undefined, at: number): number | undefined {
  const exclusions = sub(window, 'maintenanceExclusions') ?? {};
  let until: number | undefined;
  for (const exclusion of Object.values(exclusions)) {
    const options = sub(exclusion, 'maintenanceExclusionOptions');
    if (!isPlainObject(exclusion) || !HOLDS_NODES.has(options?.scope)) continue;
    const start = millis(exclusion.startTime);
    const endText = exclusion.endTime;
    const end = typeof endText === 'string' && endText !== '' ? millis(endText) : Number.POSITIVE_INFINITY;
    if (start <= at && at < end) until = Math.max(until ?? end, end);
  }
  return until;
}

/**
 * The first instant at or after `at` when the policy lets GKE start automatic maintenance on the
 * cluster (an open window, no exclusion holding node changes); undefined when none comes within a year.
 */
export function maintenanceOpening(policy: unknown, at: number): number | undefined {
  const window = sub(policy, 'window');
  let t = at;
  for (let step = 0; step < MAX_STEPS; step++) {
    const opens = windowOpening(window, t);
    if (opens === undefined || opens > at + 366 * DAY) return undefined;
    const until = excludedUntil(window, opens);
    if (until === undefined) return opens;
    if (!Number.isFinite(until)) return undefined;
    t = until;
  }
  return undefined;
}
