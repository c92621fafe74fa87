import { isPlainObject, type Loose } from './defaults';
import { fail, ok, type Result } from './errors';
import { canonical, fingerprint } from './etag';
import { DAY, HOUR, leastAvailability, MAX_PERIODS, parseRecurrence } from './maintenance-recurrence';

/**
 * GKE's rules on a cluster's maintenance policy (setMaintenancePolicy, clusters.create's
 * `maintenancePolicy`) and what GKE derives from it on reads (the daily window's `duration`, the
 * policy's `resourceVersion`). Sources, and which texts are GKE's and which the simulator's, are in
 * FIDELITY.md ("Cluster setters").
 */

/**
 * The output-only `duration` of a daily window as GKE answers it: `PT4H0M0S` in public
 * `gcloud container clusters describe` outputs and Terraform states of daily windows.
 */
const DAILY_WINDOW_DURATION = 'PT4H0M0S';

/** GKE's refusal when the windows leave too little time (quoted by several public Terraform runbooks). */
export const AVAILABILITY_MESSAGE =
  'maintenance policy would go longer than 32d without 48h maintenance availability';

/** At most 20 maintenance exclusions per cluster (GKE's "Limitations for maintenance exclusions"). */
const MAX_EXCLUSIONS = 20;

/** "You must allow at least 48 hours of maintenance availability in a 32-day rolling window." */
const REQUIRED = 48 * HOUR;

const isObject = isPlainObject;
const sub = (v: unknown, key: string): Loose | undefined => {
  const x = isObject(v) ? v[key] : undefined;
  return isObject(x) ? x : undefined;
};

/** The longest part of a value an error quotes. */
const MAX_ECHO = 200;
const quoted = (value: string): string =>
  JSON.stringify(value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value);

const invalid = (message: string): Result<never> => fail({ code: 'INVALID_REQUEST', message });
const invalidValue = (field: string, value: string, rule: string): Result<never> =>
  invalid(`Invalid value for field "${field}": ${quoted(value)}. ${rule}`);

/** RFC 3339 text to milliseconds (digits past the millisecond dropped); NaN if it is none. */
export function millis(text: unknown): number {
  if (typeof text !== 'string' || text === '') return Number.NaN;
  return Date.parse(text.replace(/(\.\d{3})\d+/, '$1'));
}

/** "HH:MM", where HH : [00-23] and MM : [00-59] (the proto's DailyMaintenanceWindow.start_time). */
const DAILY_START = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

/** A recurrence, then the time it leaves for maintenance. */
function checkRecurring(
  field: string,
  recurrence: unknown,
  start: number,
  length: number,
  now: number,
): Result<void> {
  const text = typeof recurrence === 'string' ? recurrence : '';
  if (text === '')
    return invalidValue(
      field,
      text,
      'A recurrence (an RFC 5545 RRULE such as "FREQ=WEEKLY;BYDAY=SA,SU") must be specified.',
    );
  const parsed = parseRecurrence(text);
  if (!parsed.ok) {
    if ('notSimulated' in parsed)
      return fail({
        code: 'NOT_SIMULATED',
        what: `A maintenance window recurrence with ${parsed.notSimulated} (${field})`,
      });
    return invalidValue(field, text, `Not a valid RFC 5545 RRULE: ${parsed.reason}.`);
  }
  const least = leastAvailability(parsed.rule, start, length, Math.max(now, start));
  if (least === undefined)
    return fail({
      code: 'NOT_SIMULATED',
      what: `A maintenance window recurrence whose check would step through more than ${MAX_PERIODS} of its periods (a COUNT counted from a first window long before now, or a window years long) (${field})`,
    });
  if (least < REQUIRED) return invalid(AVAILABILITY_MESSAGE);
  return ok(undefined);
}

function checkTimeWindow(
  field: string,
  window: Loose | undefined,
  endOptional: boolean,
): Result<{ start: number; end: number }> {
  const startText = window?.startTime;
  const endText = window?.endTime;
  const start = millis(startText);
  const end = millis(endText);
  if (!endOptional && (typeof startText !== 'string' || Number.isNaN(start)))
    return invalidValue(`${field}.start_time`, String(startText ?? ''), 'A start time must be specified.');
  if (typeof endText !== 'string' || Number.isNaN(end)) {
    if (endOptional) return ok({ start, end: Number.POSITIVE_INFINITY });
    return invalidValue(`${field}.end_time`, String(endText ?? ''), 'An end time must be specified.');
  }
  if (!Number.isNaN(start) && end <= start)
    return invalidValue(
      `${field}.end_time`,
      endText,
      `The end time must be after the start time ${quoted(String(startText))}.`,
    );
  return ok({ start, end });
}

/** `google.type.Date` and `TimeOfDay` to a UTC instant; `fallback` (a UTC midnight) when no date is given. */
export function dateAndTime(date: Loose | undefined, time: Loose | undefined, fallback: number): number {
  const day =
    date && typeof date.year === 'number' && typeof date.month === 'number' && typeof date.day === 'number'
      ? Date.UTC(date.year, date.month - 1, date.day)
      : fallback;
  const n = (k: string) => (time && typeof time[k] === 'number' ? (time[k] as number) : 0);
  return day + n('hours') * HOUR + n('minutes') * 60_000 + n('seconds') * 1000 + Math.floor(n('nanos') / 1e6);
}

/** A `google.protobuf.Duration` text ("14400s") in milliseconds. */
export function durationMillis(text: unknown): number {
  const m = typeof text === 'string' ? /^(-?\d+)(?:\.(\d{1,9}))?s$/.exec(text) : null;
  if (!m) return Number.NaN;
  return Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(3, '0').slice(0, 3));
}

/**
 * GKE's rules on a maintenance policy sent in a request. `prefix` is the request's path to the policy
 * (`maintenance_policy` for setMaintenancePolicy, `cluster.maintenance_policy` for clusters.create);
 * `now` dates a recurring maintenance window without `delayUntil`.
 */
export function checkMaintenancePolicy(policy: unknown, prefix: string, now: number): Result<void> {
  const window = sub(policy, 'window');
  if (!window) return ok(undefined);
  const w = `${prefix}.window`;
  const daily = sub(window, 'dailyMaintenanceWindow');
  if (daily) {
    const startTime = typeof daily.startTime === 'string' ? daily.startTime : '';
    if (!DAILY_START.test(startTime))
      return invalidValue(
        `${w}.daily_maintenance_window.start_time`,
        startTime,
        'It must be in format "HH:MM", where HH : [00-23] and MM : [00-59] GMT.',
      );
  }
  const recurring = sub(window, 'recurringWindow');
  if (recurring) {
    const field = `${w}.recurring_window`;
    const times = checkTimeWindow(`${field}.window`, sub(recurring, 'window'), false);
    if (!times.ok) return times;
    const checked = checkRecurring(
      `${field}.recurrence`,
      recurring.recurrence,
      times.value.start,
      times.value.end - times.value.start,
      now,
    );
    if (!checked.ok) return checked;
  }
  const maintenanceWindow = sub(window, 'recurringMaintenanceWindow');
  if (maintenanceWindow) {
    const field = `${w}.recurring_maintenance_window`;
    const length = durationMillis(maintenanceWindow.windowDuration);
    if (!(length > 0))
      return invalidValue(
        `${field}.window_duration`,
        String(maintenanceWindow.windowDuration ?? ''),
        'A positive window duration must be specified.',
      );
    const start = dateAndTime(
      sub(maintenanceWindow, 'delayUntil'),
      sub(maintenanceWindow, 'windowStartTime'),
      Math.floor(now / DAY) * DAY,
    );
    const checked = checkRecurring(`${field}.recurrence`, maintenanceWindow.recurrence, start, length, now);
    if (!checked.ok) return checked;
  }
  const exclusions = isObject(window.maintenanceExclusions)
    ? Object.entries(window.maintenanceExclusions)
    : [];
  if (exclusions.length > MAX_EXCLUSIONS)
    return invalid(
      `Too many maintenance exclusions: ${exclusions.length} given, a cluster can have at most ${MAX_EXCLUSIONS}.`,
    );
  for (const [name, exclusion] of exclusions) {
    const options = sub(exclusion, 'maintenanceExclusionOptions');
    const untilEndOfSupport = options?.endTimeBehavior === 'UNTIL_END_OF_SUPPORT';
    const field = `${w}.maintenance_exclusions[${quoted(name).slice(1, -1)}]`;
    const endText = isObject(exclusion) ? exclusion.endTime : undefined;
    if ((endText === undefined || endText === '') && !untilEndOfSupport)
      return invalidValue(
        `${field}.end_time`,
        '',
        'A maintenance exclusion must have an end time, unless its maintenance_exclusion_options.end_time_behavior is UNTIL_END_OF_SUPPORT.',
      );
    const startText = isObject(exclusion) ? exclusion.startTime : undefined;
    if (startText === undefined || startText === '')
      return invalidValue(`${field}.start_time`, '', 'A maintenance exclusion must have a start time.');
    const times = checkTimeWindow(field, isObject(exclusion) ? exclusion : undefined, true);
    if (!times.ok) return times;
  }
  return ok(undefined);
}

/**
 * The policy as the cluster keeps it: without its `resourceVersion` (recomputed on reads) and the daily
 * window's output-only `duration` (a client may echo what it read).
 */
export function storedPolicy(policy: unknown): Loose {
  const { resourceVersion: _rv, ...rest } = isObject(policy) ? policy : {};
  const window = sub(rest, 'window');
  // An empty window is not kept (recorded: `window: {}` sent to clusters.create, not returned).
  if (window && Object.keys(window).length === 0) {
    const { window: _w, ...withoutWindow } = rest;
    return structuredClone(withoutWindow);
  }
  const daily = sub(window, 'dailyMaintenanceWindow');
  if (!window || !daily || !('duration' in daily)) return structuredClone(rest);
  const { duration: _d, ...start } = daily;
  return { ...structuredClone(rest), window: { ...structuredClone(window), dailyMaintenanceWindow: start } };
}

/**
 * The policy's `resourceVersion`: 8 hex digits of a SHA-256 of the policy as kept (`e3b0c442` for an
 * empty one, as recorded). The derived `duration` is not part of it, so versions stay what they were.
 */
export function policyVersion(policy: unknown): string {
  return versionOfKept(storedPolicy(policy));
}

function versionOfKept(kept: Loose): string {
  return fingerprint(Object.keys(kept).length > 0 ? canonical(kept) : '');
}

/**
 * The policy as clusters.get answers it: the daily window's `duration` and the `resourceVersion`. What a
 * cluster keeps is already {@link storedPolicy}'s (create, seeds, setMaintenancePolicy), so a read copies
 * only the objects it adds to.
 */
export function renderPolicy(stored: unknown): Loose {
  const { resourceVersion: _rv, ...kept } = isObject(stored) ? stored : {};
  const window = sub(kept, 'window');
  const daily = sub(window, 'dailyMaintenanceWindow');
  const out: Loose = daily
    ? {
        ...kept,
        window: { ...window, dailyMaintenanceWindow: { ...daily, duration: DAILY_WINDOW_DURATION } },
      }
    : kept;
  return { ...out, resourceVersion: versionOfKept(kept) };
}
