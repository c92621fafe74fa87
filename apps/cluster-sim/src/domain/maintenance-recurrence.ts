/**
 * Maintenance window recurrences: RFC 5545 RRULEs (section 3.3.10), the subset a GKE maintenance window
 * can use, expanded to the windows they give, and the least maintenance time any 32-day span holds
 * (GKE's availability rule, maintenance-policy.ts).
 */

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** GKE's rolling window: "at least 48 hours of maintenance availability in a 32-day rolling window". */
const ROLLING = 32 * DAY;
/** "Only contiguous availability windows of at least four hours are considered." */
const MIN_BLOCK = 4 * HOUR;
/** Rolling windows starting within a year of the first window are checked (every month's pattern). */
const HORIZON = 366 * DAY;
/**
 * The most periods one check steps through: a rule with COUNT must be counted from its first window,
 * and one that began this many periods ago (a daily rule in the 2010s) is answered as not simulated
 * rather than stepped through for seconds.
 */
export const MAX_PERIODS = 5000;

type Freq = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

interface Rule {
  freq: Freq;
  interval: number;
  count?: number;
  until?: number;
  byDay?: { n: number; weekday: number }[];
  byMonthDay?: number[];
  byMonth?: number[];
  bySetPos?: number[];
  wkst: number;
}

type RuleResult =
  | { ok: true; rule: Rule }
  | { ok: false; reason: string }
  | { ok: false; notSimulated: string };

/** RFC 5545 parts a GKE window may carry that the simulator does not expand. */
const NOT_EXPANDED = ['BYHOUR', 'BYMINUTE', 'BYSECOND', 'BYWEEKNO', 'BYYEARDAY'];

function intList(value: string, min: number, max: number, nonZero = true): number[] | undefined {
  const out: number[] = [];
  for (const part of value.split(',')) {
    if (!/^[+-]?\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if ((nonZero && n === 0) || Math.abs(n) < min || Math.abs(n) > max) return undefined;
    out.push(n);
  }
  return out;
}

function untilOf(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h = '23', mi = '59', s = '59'] = m.slice(1);
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(ms);
  return back.getUTCDate() === Number(d) && back.getUTCMonth() === Number(mo) - 1 ? ms : undefined;
}

/** Parses a recurrence: RFC 5545 RRULE parts, FREQ of DAILY to YEARLY ("HOURLY, MINUTELY, and SECONDLY are not supported"). */
export function parseRecurrence(text: string): RuleResult {
  const parts = new Map<string, string>();
  // Names and values are case-insensitive (RFC 5545 section 3.1); an empty part (a trailing ';') is none.
  for (const part of text.toUpperCase().split(';')) {
    if (part === '') continue;
    const m = /^([A-Z]+)=(.+)$/.exec(part);
    if (!m) return { ok: false, reason: `"${part}" is not a NAME=VALUE part of an RFC 5545 RRULE` };
    const [, name = '', value = ''] = m;
    if (parts.has(name)) return { ok: false, reason: `${name} is given more than once` };
    parts.set(name, value);
  }
  const freq = parts.get('FREQ');
  if (freq === undefined) return { ok: false, reason: 'FREQ must be specified' };
  if (freq === 'HOURLY' || freq === 'MINUTELY' || freq === 'SECONDLY')
    return { ok: false, reason: `FREQ=${freq} is not supported; use DAILY, WEEKLY, MONTHLY or YEARLY` };
  if (freq !== 'DAILY' && freq !== 'WEEKLY' && freq !== 'MONTHLY' && freq !== 'YEARLY')
    return { ok: false, reason: `FREQ=${freq} is not a frequency of RFC 5545` };
  const rule: Rule = { freq, interval: 1, wkst: 1 };
  for (const [name, value] of parts) {
    switch (name) {
      case 'FREQ':
        break;
      case 'INTERVAL':
      case 'COUNT': {
        if (!/^\d{1,6}$/.test(value) || Number(value) < 1)
          return { ok: false, reason: `${name} must be a positive integer` };
        if (name === 'INTERVAL') rule.interval = Number(value);
        else rule.count = Number(value);
        break;
      }
      case 'UNTIL': {
        const until = untilOf(value);
        if (until === undefined) return { ok: false, reason: 'UNTIL must be a date or a UTC date-time' };
        rule.until = until;
        break;
      }
      case 'BYDAY': {
        const days: Rule['byDay'] = [];
        for (const d of value.split(',')) {
          const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(d);
          const n = m?.[1] === undefined ? 0 : Number(m[1]);
          if (!m || (m[1] !== undefined && (n === 0 || Math.abs(n) > 53)))
            return { ok: false, reason: `BYDAY value "${d}" is not a weekday` };
          if (n !== 0 && freq !== 'MONTHLY' && freq !== 'YEARLY')
            return { ok: false, reason: 'BYDAY takes a numeric value only with FREQ=MONTHLY or FREQ=YEARLY' };
          days.push({ n, weekday: WEEKDAYS.indexOf(m[2] ?? '') });
        }
        rule.byDay = days;
        break;
      }
      case 'BYMONTHDAY': {
        if (freq === 'WEEKLY') return { ok: false, reason: 'BYMONTHDAY cannot be used with FREQ=WEEKLY' };
        const days = intList(value, 1, 31);
        if (!days) return { ok: false, reason: 'BYMONTHDAY values must be 1 to 31 or -31 to -1' };
        rule.byMonthDay = days;
        break;
      }
      case 'BYMONTH': {
        const months = intList(value, 1, 12);
        if (!months || months.some((m) => m < 0))
          return { ok: false, reason: 'BYMONTH values must be 1 to 12' };
        rule.byMonth = months;
        break;
      }
      case 'BYSETPOS': {
        const pos = intList(value, 1, 366);
        if (!pos) return { ok: false, reason: 'BYSETPOS values must be 1 to 366 or -366 to -1' };
        rule.bySetPos = pos;
        break;
      }
      case 'WKST': {
        const w = WEEKDAYS.indexOf(value);
        if (w < 0) return { ok: false, reason: 'WKST must be a weekday' };
        rule.wkst = w;
        break;
      }
      default:
        if (NOT_EXPANDED.includes(name)) return { ok: false, notSimulated: name };
        return { ok: false, reason: `${name} is not a part of an RFC 5545 RRULE` };
    }
  }
  if (rule.count !== undefined && rule.until !== undefined)
    return { ok: false, reason: 'COUNT and UNTIL cannot both be given' };
  if (rule.bySetPos && !rule.byDay && !rule.byMonthDay && !rule.byMonth)
    return { ok: false, reason: 'BYSETPOS must be used with another BYxxx part' };
  return { ok: true, rule };
}

/** Days (UTC midnights) of a month, or of a year when `month` is undefined. */
function daysOf(year: number, month?: number): number[] {
  const first = Date.UTC(year, month ?? 0, 1);
  const last = month === undefined ? Date.UTC(year + 1, 0, 1) : Date.UTC(year, month + 1, 1);
  const out: number[] = [];
  for (let d = first; d < last; d += DAY) out.push(d);
  return out;
}

const weekdayOf = (day: number) => new Date(day).getUTCDay();

/** The days of `days` (one month or year, in order) that BYDAY names, ordinals counted within them. */
function byDayIn(days: number[], byDay: NonNullable<Rule['byDay']>): Set<number> {
  const out = new Set<number>();
  for (const { n, weekday } of byDay) {
    const matching = days.filter((d) => weekdayOf(d) === weekday);
    if (n === 0) for (const d of matching) out.add(d);
    else {
      const pick = n > 0 ? matching[n - 1] : matching[matching.length + n];
      if (pick !== undefined) out.add(pick);
    }
  }
  return out;
}

function byMonthDayIn(monthDays: number[], byMonthDay: number[]): Set<number> {
  const out = new Set<number>();
  for (const n of byMonthDay) {
    const pick = n > 0 ? monthDays[n - 1] : monthDays[monthDays.length + n];
    if (pick !== undefined) out.add(pick);
  }
  return out;
}

/** The candidate days of a month under a MONTHLY (or YEARLY-with-months) rule. */
function monthCandidates(rule: Rule, year: number, month: number, startDay: number): number[] {
  const days = daysOf(year, month);
  if (!rule.byDay && !rule.byMonthDay) {
    const pick = days[new Date(startDay).getUTCDate() - 1];
    return pick === undefined ? [] : [pick];
  }
  let set = rule.byMonthDay ? byMonthDayIn(days, rule.byMonthDay) : undefined;
  if (rule.byDay) {
    // With BYMONTHDAY, BYDAY only limits (no ordinals then matter beyond the weekday).
    const byDay = set
      ? new Set([...set].filter((d) => rule.byDay?.some((b) => b.weekday === weekdayOf(d))))
      : byDayIn(days, rule.byDay);
    set = byDay;
  }
  return [...(set ?? [])].sort((a, b) => a - b);
}

/** The candidate days of one period of the rule, in order, before BYSETPOS. */
function periodCandidates(rule: Rule, periodStart: number, startDay: number): number[] {
  const date = new Date(periodStart);
  const year = date.getUTCFullYear();
  const inMonths = (d: number) => !rule.byMonth || rule.byMonth.includes(new Date(d).getUTCMonth() + 1);
  switch (rule.freq) {
    case 'DAILY': {
      const d = periodStart;
      const ok =
        inMonths(d) &&
        (!rule.byDay || rule.byDay.some((b) => b.weekday === weekdayOf(d))) &&
        (!rule.byMonthDay || byMonthDayIn(daysOf(year, date.getUTCMonth()), rule.byMonthDay).has(d));
      return ok ? [d] : [];
    }
    case 'WEEKLY': {
      const weekdays = rule.byDay ? rule.byDay.map((b) => b.weekday) : [weekdayOf(startDay)];
      const out: number[] = [];
      for (let i = 0; i < 7; i++) {
        const d = periodStart + i * DAY;
        if (weekdays.includes(weekdayOf(d)) && inMonths(d)) out.push(d);
      }
      return out;
    }
    case 'MONTHLY':
      return inMonths(periodStart) ? monthCandidates(rule, year, date.getUTCMonth(), startDay) : [];
    case 'YEARLY': {
      if (rule.byDay && !rule.byMonth && !rule.byMonthDay)
        return [...byDayIn(daysOf(year), rule.byDay)].sort((a, b) => a - b);
      // BYMONTHDAY without BYMONTH applies to every month (RFC 5545); with neither, the start's month.
      const months =
        rule.byMonth ??
        (rule.byMonthDay ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] : [new Date(startDay).getUTCMonth() + 1]);
      return months.sort((a, b) => a - b).flatMap((m) => monthCandidates(rule, year, m - 1, startDay));
    }
  }
}

/** The first day of the rule's period that holds `day`. */
function periodOf(rule: Rule, day: number): number {
  const d = new Date(day);
  switch (rule.freq) {
    case 'DAILY':
      return day;
    case 'WEEKLY':
      return day - ((((weekdayOf(day) - rule.wkst) % 7) + 7) % 7) * DAY;
    case 'MONTHLY':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'YEARLY':
      return Date.UTC(d.getUTCFullYear(), 0, 1);
  }
}

function nextPeriod(rule: Rule, period: number): number {
  const d = new Date(period);
  switch (rule.freq) {
    case 'DAILY':
      return period + rule.interval * DAY;
    case 'WEEKLY':
      return period + rule.interval * 7 * DAY;
    case 'MONTHLY':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + rule.interval, 1);
    case 'YEARLY':
      return Date.UTC(d.getUTCFullYear() + rule.interval, 0, 1);
  }
}

/**
 * The last period of the rule (every `interval`-th from `first`) that begins at or before `day`: a rule
 * that began long ago is not stepped through period by period.
 */
function periodAtOrBefore(rule: Rule, first: number, day: number): number {
  const target = periodOf(rule, day);
  if (target <= first) return first;
  const a = new Date(first);
  const b = new Date(target);
  switch (rule.freq) {
    case 'DAILY':
    case 'WEEKLY': {
      const step = rule.interval * (rule.freq === 'DAILY' ? 1 : 7) * DAY;
      return first + Math.floor((target - first) / step) * step;
    }
    case 'MONTHLY': {
      const months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth();
      const k = Math.floor(months / rule.interval) * rule.interval;
      return Date.UTC(a.getUTCFullYear(), a.getUTCMonth() + k, 1);
    }
    case 'YEARLY': {
      const k = Math.floor((b.getUTCFullYear() - a.getUTCFullYear()) / rule.interval) * rule.interval;
      return Date.UTC(a.getUTCFullYear() + k, 0, 1);
    }
  }
}

/**
 * Start times of the windows until `end` (the first window is the one given); those that end before
 * `from` may be left out when the rule has no COUNT (which needs every earlier occurrence counted).
 */
function occurrences(
  rule: Rule,
  start: number,
  end: number,
  from: number,
  length: number,
): number[] | undefined {
  const startDay = Math.floor(start / DAY) * DAY;
  const timeOfDay = start - startDay;
  const out = [start];
  const first = periodOf(rule, startDay);
  // A window overlapping `from` began at most its length (and a period's spread, a year) before it.
  const skipTo = from - length - 366 * DAY;
  let period =
    rule.count === undefined && skipTo > start
      ? periodAtOrBefore(rule, first, Math.floor(skipTo / DAY) * DAY)
      : first;
  for (let stepped = 0; period <= end; period = nextPeriod(rule, period)) {
    if (++stepped > MAX_PERIODS) return undefined;
    let days = periodCandidates(rule, period, startDay);
    if (rule.bySetPos) {
      const all = days;
      days = [...new Set(rule.bySetPos.map((p) => (p > 0 ? all[p - 1] : all[all.length + p])))]
        .filter((d): d is number => d !== undefined)
        .sort((a, b) => a - b);
    }
    for (const day of days) {
      const at = day + timeOfDay;
      if (at <= start || at > end) continue;
      if (rule.until !== undefined && at > rule.until) return out;
      if (rule.count !== undefined && out.length >= rule.count) return out;
      out.push(at);
    }
  }
  return out;
}

/**
 * The least maintenance time any 32-day window starting within a year of `from` holds (`from`: now, or
 * the first window's start if later): the windows (each `length` long) merged where they touch, blocks
 * under four hours not counted. A rule that has ended, or ends within the year, leaves a span without.
 * Undefined past MAX_PERIODS periods.
 */
export function leastAvailability(
  rule: Rule,
  start: number,
  length: number,
  from: number,
): number | undefined {
  const last = from + HORIZON + ROLLING;
  const blocks: [number, number][] = [];
  const all = occurrences(rule, start, last, from, length);
  if (all === undefined) return undefined;
  for (const at of all) {
    const prev = blocks[blocks.length - 1];
    if (prev && at <= prev[1]) prev[1] = Math.max(prev[1], at + length);
    else blocks.push([at, at + length]);
  }
  const counted = blocks.filter(([a, b]) => b - a >= MIN_BLOCK);
  const covered = (t: number) =>
    counted.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, t + ROLLING) - Math.max(a, t)), 0);
  const to = from + HORIZON;
  const candidates = new Set([from, to]);
  for (const [a, b] of counted)
    for (const t of [a, b, a - ROLLING, b - ROLLING]) if (t >= from && t <= to) candidates.add(t);
  let least = Number.POSITIVE_INFINITY;
  for (const t of candidates) least = Math.min(least, covered(t));
  return least;
}

/**
 * The first instant at or after `at` inside one of the rule's windows (each `length` long, the first
 * starting at `start`), looking a year ahead: `at` itself inside a window. Undefined when no window
 * opens within the year (the rule has ended) or past MAX_PERIODS periods.
 */
export function nextWindowTime(rule: Rule, start: number, length: number, at: number): number | undefined {
  const all = occurrences(rule, start, at + HORIZON, at, length);
  for (const opens of all ?? []) if (opens + length > at) return Math.max(opens, at);
  return undefined;
}
