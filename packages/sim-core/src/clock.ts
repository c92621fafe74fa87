import { parseDuration, SimInputError } from './duration';

export type ClockMode = 'real' | 'manual';

export interface ClockOptions {
  /** `real` follows wall time (times `speed`); `manual` is frozen until advanced. Default `real`. */
  mode?: ClockMode;
  /** Speed factor of the real clock: 10 makes a 2 s operation take 200 ms. Default 1. */
  speed?: number;
  /** Simulated start time (epoch ms or ISO string). Default: the wall time at creation. */
  start?: number | string;
  /** Wall clock source, injectable for tests of the clock itself. */
  wallNow?: () => number;
}

export interface ClockState {
  mode: ClockMode;
  speed: number;
  now: string;
  pendingTimers: number;
}

/**
 * The world's time. Everything time-based in a simulator reads it and schedules on it, so a manual
 * clock makes operations, exports and retries progress exactly when a test advances time.
 */
export interface Clock {
  readonly mode: ClockMode;
  readonly speed: number;
  /** Simulated time, epoch milliseconds. */
  now(): number;
  /** Simulated time as an ISO-8601 string with milliseconds. */
  iso(): string;
  /** Runs `fn` when simulated time reaches `time` (epoch ms). Timers fire in time order, FIFO on ties. */
  at(time: number, fn: () => void): number;
  /** Runs `fn` after `delay` (ms or a duration string) of simulated time. */
  after(delay: number | string, fn: () => void): number;
  /** Resolves after `delay` of simulated time (never, under a manual clock that is not advanced). */
  sleep(delay: number | string): Promise<void>;
  cancel(timer: number): void;
  /** Moves simulated time forward, firing every timer that falls due, in order, each at its own time. */
  advance(delay: number | string): void;
  /** Jumps to `time` (forward fires due timers; backward fires nothing). */
  set(time: number | string): void;
  /** Switches mode and/or speed without a jump in simulated time. */
  configure(options: { mode?: ClockMode; speed?: number }): void;
  pending(): number;
  state(): ClockState;
  /** Drops every timer; used when a namespace is deleted. */
  dispose(): void;
}

interface Timer {
  id: number;
  time: number;
  seq: number;
  fn: () => void;
}

/**
 * The earliest and latest instants a simulated API can write: a protobuf `Timestamp` (GKE) and a Python
 * `datetime` (CVAT) both span the years 1 to 9999, so a clock outside that range would answer with times
 * no real server could send.
 */
const EARLIEST_TIME_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
const LATEST_TIME_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
const TIME_RANGE_TEXT = '0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

/** True when `ms` (epoch milliseconds) is a time the simulated APIs can write. */
export function inTimeRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= EARLIEST_TIME_MS && ms <= LATEST_TIME_MS;
}

/** Parses an absolute time given as epoch ms or an ISO string, within the range the APIs can write. */
export function parseTime(value: number | string): number {
  const t = typeof value === 'number' ? value : Date.parse(value);
  if (Number.isNaN(t)) throw new SimInputError(`invalid time "${value}": expected an ISO-8601 timestamp`);
  if (!inTimeRange(t)) {
    const shown = typeof value === 'number' ? String(value) : JSON.stringify(value);
    throw new SimInputError(`invalid time ${shown}: outside ${TIME_RANGE_TEXT}, the range the API can write`);
  }
  return t;
}

/**
 * Creates a clock.
 *
 * @example
 * const clock = createClock({ mode: 'manual', start: '2026-01-01T00:00:00Z' });
 * clock.after('2s', () => console.log('done'));
 * clock.advance('2s'); // logs "done"
 */
export function createClock(options: ClockOptions = {}): Clock {
  const wallNow = options.wallNow ?? Date.now;
  let mode: ClockMode = options.mode ?? 'real';
  let speed = checkSpeed(options.speed ?? 1);
  // Simulated time = base + (wall - wallBase) * speed in real mode; = base in manual mode.
  let base = options.start === undefined ? wallNow() : parseTime(options.start);
  let wallBase = wallNow();
  const timers: Timer[] = []; // binary min-heap on (time, seq)
  const live = new Map<number, Timer>();
  let nextId = 1;
  let seq = 0;
  let realTimer: ReturnType<typeof setTimeout> | undefined;
  let firing = false;

  function checkSpeed(s: number): number {
    if (!Number.isFinite(s) || s <= 0) throw new SimInputError(`invalid clock speed ${s}: must be > 0`);
    return s;
  }

  function now(): number {
    return mode === 'manual' ? base : base + (wallNow() - wallBase) * speed;
  }

  function rebase(): void {
    base = now();
    wallBase = wallNow();
  }

  const less = (a: Timer, b: Timer) => a.time < b.time || (a.time === b.time && a.seq < b.seq);
  function push(t: Timer): void {
    timers.push(t);
    let i = timers.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(timers[i] as Timer, timers[p] as Timer)) break;
      [timers[i], timers[p]] = [timers[p] as Timer, timers[i] as Timer];
      i = p;
    }
  }
  function pop(): Timer | undefined {
    const top = timers[0];
    const last = timers.pop();
    if (timers.length > 0 && last) {
      timers[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < timers.length && less(timers[l] as Timer, timers[m] as Timer)) m = l;
        if (r < timers.length && less(timers[r] as Timer, timers[m] as Timer)) m = r;
        if (m === i) break;
        [timers[i], timers[m]] = [timers[m] as Timer, timers[i] as Timer];
        i = m;
      }
    }
    return top;
  }
  function peekLive(): Timer | undefined {
    while (timers.length > 0 && !live.has((timers[0] as Timer).id)) pop();
    return timers[0];
  }

  /** Fires due timers up to `target`; in manual mode time steps to each timer's own time first. */
  function fireUntil(target: number): void {
    if (firing) return;
    firing = true;
    try {
      for (;;) {
        const t = peekLive();
        if (!t || t.time > target) break;
        pop();
        live.delete(t.id);
        if (mode === 'manual' && t.time > base) base = t.time;
        t.fn();
      }
    } finally {
      firing = false;
    }
  }

  function armReal(): void {
    if (realTimer) {
      clearTimeout(realTimer);
      realTimer = undefined;
    }
    if (mode !== 'real') return;
    const t = peekLive();
    if (!t) return;
    const wait = Math.max(0, (t.time - now()) / speed);
    realTimer = setTimeout(
      () => {
        realTimer = undefined;
        fireUntil(now());
        armReal();
      },
      Math.min(wait, 2 ** 31 - 1),
    );
    // A pending simulated timer must not keep a process alive on its own.
    realTimer.unref?.();
  }

  const clock: Clock = {
    get mode() {
      return mode;
    },
    get speed() {
      return speed;
    },
    now,
    iso: () => new Date(now()).toISOString(),
    at(time, fn) {
      const id = nextId++;
      const t: Timer = { id, time, seq: seq++, fn };
      live.set(id, t);
      push(t);
      if (time <= now() && mode === 'real') queueMicrotask(() => fireUntil(now()));
      else if (mode === 'real' && peekLive() === t) armReal();
      return id;
    },
    after(delay, fn) {
      return clock.at(now() + parseDuration(delay), fn);
    },
    sleep(delay) {
      return new Promise((resolve) => clock.after(delay, resolve));
    },
    cancel(id) {
      live.delete(id);
    },
    advance(delay) {
      const ms = parseDuration(delay);
      if (now() + ms > LATEST_TIME_MS)
        throw new SimInputError(
          `advancing by ${ms} ms would pass 9999-12-31T23:59:59.999Z, the latest time the API can write`,
        );
      if (mode === 'manual') {
        const target = base + ms;
        fireUntil(target);
        base = Math.max(base, target);
      } else {
        base += ms;
        fireUntil(now());
        armReal();
      }
    },
    set(time) {
      const target = parseTime(time);
      if (mode === 'manual') {
        if (target > base) fireUntil(target);
        base = target;
      } else {
        base = target;
        wallBase = wallNow();
        fireUntil(now());
        armReal();
      }
    },
    configure(opts) {
      rebase();
      if (opts.speed !== undefined) speed = checkSpeed(opts.speed);
      if (opts.mode !== undefined) mode = opts.mode;
      armReal();
    },
    pending: () => live.size,
    state: () => ({ mode, speed, now: new Date(now()).toISOString(), pendingTimers: live.size }),
    dispose() {
      live.clear();
      timers.length = 0;
      if (realTimer) clearTimeout(realTimer);
      realTimer = undefined;
    },
  };
  return clock;
}
