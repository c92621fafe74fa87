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
  return new SimClock(options);
}

const lessThan = (a: Timer, b: Timer) => a.time < b.time || (a.time === b.time && a.seq < b.seq);

function checkSpeed(s: number): number {
  if (!Number.isFinite(s) || s <= 0) throw new SimInputError(`invalid clock speed ${s}: must be > 0`);
  return s;
}

/**
 * A world's clock: its methods are on the prototype and its timer tables are made by the first timer,
 * so a namespace that schedules nothing costs this object alone.
 */
class SimClock implements Clock {
  private readonly wallNow: () => number;
  private _mode: ClockMode;
  private _speed: number;
  // Simulated time = base + (wall - wallBase) * speed in real mode; = base in manual mode.
  private base: number;
  private wallBase: number;
  /** A binary min-heap on (time, seq); made by the first timer, as `live`. */
  private timers: Timer[] | undefined;
  private live: Map<number, Timer> | undefined;
  private nextId = 1;
  private seq = 0;
  private realTimer: ReturnType<typeof setTimeout> | undefined;
  private firing = false;

  constructor(options: ClockOptions) {
    this.wallNow = options.wallNow ?? Date.now;
    this._mode = options.mode ?? 'real';
    this._speed = checkSpeed(options.speed ?? 1);
    this.base = options.start === undefined ? this.wallNow() : parseTime(options.start);
    this.wallBase = this.wallNow();
  }

  get mode(): ClockMode {
    return this._mode;
  }
  get speed(): number {
    return this._speed;
  }

  now(): number {
    return this._mode === 'manual' ? this.base : this.base + (this.wallNow() - this.wallBase) * this._speed;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  private rebase(): void {
    this.base = this.now();
    this.wallBase = this.wallNow();
  }

  private push(timers: Timer[], t: Timer): void {
    timers.push(t);
    let i = timers.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!lessThan(timers[i] as Timer, timers[p] as Timer)) break;
      [timers[i], timers[p]] = [timers[p] as Timer, timers[i] as Timer];
      i = p;
    }
  }
  private pop(timers: Timer[]): Timer | undefined {
    const top = timers[0];
    const last = timers.pop();
    if (timers.length > 0 && last) {
      timers[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < timers.length && lessThan(timers[l] as Timer, timers[m] as Timer)) m = l;
        if (r < timers.length && lessThan(timers[r] as Timer, timers[m] as Timer)) m = r;
        if (m === i) break;
        [timers[i], timers[m]] = [timers[m] as Timer, timers[i] as Timer];
        i = m;
      }
    }
    return top;
  }
  private peekLive(): Timer | undefined {
    const { timers, live } = this;
    if (timers === undefined || live === undefined) return undefined;
    while (timers.length > 0 && !live.has((timers[0] as Timer).id)) this.pop(timers);
    return timers[0];
  }

  /** Fires due timers up to `target`; in manual mode time steps to each timer's own time first. */
  private fireUntil(target: number): void {
    if (this.firing) return;
    this.firing = true;
    try {
      for (;;) {
        const t = this.peekLive();
        if (!t || t.time > target) break;
        this.pop(this.timers as Timer[]);
        this.live?.delete(t.id);
        if (this._mode === 'manual' && t.time > this.base) this.base = t.time;
        t.fn();
      }
    } finally {
      this.firing = false;
    }
  }

  private armReal(): void {
    if (this.realTimer) {
      clearTimeout(this.realTimer);
      this.realTimer = undefined;
    }
    if (this._mode !== 'real') return;
    const t = this.peekLive();
    if (!t) return;
    const wait = Math.max(0, (t.time - this.now()) / this._speed);
    this.realTimer = setTimeout(
      () => {
        this.realTimer = undefined;
        this.fireUntil(this.now());
        this.armReal();
      },
      Math.min(wait, 2 ** 31 - 1),
    );
    // A pending simulated timer must not keep a process alive on its own.
    this.realTimer.unref?.();
  }

  at(time: number, fn: () => void): number {
    const id = this.nextId++;
    const t: Timer = { id, time, seq: this.seq++, fn };
    this.live ??= new Map();
    this.timers ??= [];
    this.live.set(id, t);
    this.push(this.timers, t);
    if (time <= this.now() && this._mode === 'real') queueMicrotask(() => this.fireUntil(this.now()));
    else if (this._mode === 'real' && this.peekLive() === t) this.armReal();
    return id;
  }
  after(delay: number | string, fn: () => void): number {
    return this.at(this.now() + parseDuration(delay), fn);
  }
  sleep(delay: number | string): Promise<void> {
    return new Promise((resolve) => this.after(delay, resolve));
  }
  cancel(id: number): void {
    this.live?.delete(id);
  }
  advance(delay: number | string): void {
    const ms = parseDuration(delay);
    if (this.now() + ms > LATEST_TIME_MS)
      throw new SimInputError(
        `advancing by ${ms} ms would pass 9999-12-31T23:59:59.999Z, the latest time the API can write`,
      );
    if (this._mode === 'manual') {
      const target = this.base + ms;
      this.fireUntil(target);
      this.base = Math.max(this.base, target);
    } else {
      this.base += ms;
      this.fireUntil(this.now());
      this.armReal();
    }
  }
  set(time: number | string): void {
    const target = parseTime(time);
    if (this._mode === 'manual') {
      if (target > this.base) this.fireUntil(target);
      this.base = target;
    } else {
      this.base = target;
      this.wallBase = this.wallNow();
      this.fireUntil(this.now());
      this.armReal();
    }
  }
  configure(opts: { mode?: ClockMode; speed?: number }): void {
    this.rebase();
    if (opts.speed !== undefined) this._speed = checkSpeed(opts.speed);
    if (opts.mode !== undefined) this._mode = opts.mode;
    this.armReal();
  }
  pending(): number {
    return this.live?.size ?? 0;
  }
  state(): ClockState {
    return {
      mode: this._mode,
      speed: this._speed,
      now: new Date(this.now()).toISOString(),
      pendingTimers: this.pending(),
    };
  }
  dispose(): void {
    this.live?.clear();
    if (this.timers) this.timers.length = 0;
    if (this.realTimer) clearTimeout(this.realTimer);
    this.realTimer = undefined;
  }
}
