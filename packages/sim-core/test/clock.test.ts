import { describe, expect, it } from 'vitest';
import { createClock } from '../src/clock';

const START = '2026-01-01T00:00:00.000Z';

describe('manual clock', () => {
  it('stays frozen until advanced', () => {
    const clock = createClock({ mode: 'manual', start: START });
    expect(clock.iso()).toBe(START);
    expect(clock.iso()).toBe(START);
    clock.advance('1.5s');
    expect(clock.iso()).toBe('2026-01-01T00:00:01.500Z');
  });

  it('fires due timers in time order, each seeing its own time', () => {
    const clock = createClock({ mode: 'manual', start: START });
    const seen: string[] = [];
    clock.after('3s', () => seen.push(`c@${clock.iso()}`));
    clock.after('1s', () => seen.push(`a@${clock.iso()}`));
    clock.after('2s', () => seen.push(`b@${clock.iso()}`));
    clock.after('10s', () => seen.push('late'));
    clock.advance('5s');
    expect(seen).toEqual([
      'a@2026-01-01T00:00:01.000Z',
      'b@2026-01-01T00:00:02.000Z',
      'c@2026-01-01T00:00:03.000Z',
    ]);
    expect(clock.iso()).toBe('2026-01-01T00:00:05.000Z');
    expect(clock.pending()).toBe(1);
  });

  it('fires timers scheduled at the same time in the order they were scheduled', () => {
    const clock = createClock({ mode: 'manual', start: START });
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) clock.after('1s', () => seen.push(i));
    clock.advance('1s');
    expect(seen).toEqual([...Array(20).keys()]);
  });

  it('fires timers that other timers schedule inside the advanced window', () => {
    const clock = createClock({ mode: 'manual', start: START });
    const seen: string[] = [];
    clock.after('1s', () => {
      seen.push('first');
      clock.after('1s', () => seen.push(`second@${clock.iso()}`));
    });
    clock.advance('3s');
    expect(seen).toEqual(['first', 'second@2026-01-01T00:00:02.000Z']);
  });

  it('does not fire a cancelled timer', () => {
    const clock = createClock({ mode: 'manual', start: START });
    let fired = false;
    const id = clock.after('1s', () => {
      fired = true;
    });
    clock.cancel(id);
    clock.advance('2s');
    expect(fired).toBe(false);
    expect(clock.pending()).toBe(0);
  });

  it('resolves sleep only when time is advanced past it', async () => {
    const clock = createClock({ mode: 'manual', start: START });
    let done = false;
    const sleeping = clock.sleep('2s').then(() => {
      done = true;
    });
    clock.advance('1999ms');
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance('1ms');
    await sleeping;
    expect(done).toBe(true);
  });

  it('set moves forward firing due timers, and backward firing nothing', () => {
    const clock = createClock({ mode: 'manual', start: START });
    const seen: string[] = [];
    clock.at(Date.parse('2026-01-01T01:00:00Z'), () => seen.push('hour'));
    clock.set('2025-12-31T00:00:00Z');
    expect(seen).toEqual([]);
    clock.set('2026-01-01T02:00:00Z');
    expect(seen).toEqual(['hour']);
    expect(clock.iso()).toBe('2026-01-01T02:00:00.000Z');
  });

  it('rejects invalid durations and times with a precise message', () => {
    const clock = createClock({ mode: 'manual', start: START });
    expect(() => clock.advance('soon')).toThrow(/invalid duration "soon"/);
    expect(() => clock.set('yesterday')).toThrow(/invalid time "yesterday"/);
    expect(() => clock.configure({ speed: 0 })).toThrow(/invalid clock speed 0/);
  });
});

describe('real clock', () => {
  it('follows wall time scaled by its speed', () => {
    let wall = 1_000_000;
    const clock = createClock({ mode: 'real', speed: 10, start: START, wallNow: () => wall });
    wall += 200;
    expect(clock.iso()).toBe('2026-01-01T00:00:02.000Z');
  });

  it('keeps simulated time continuous when the mode or speed changes', () => {
    let wall = 0;
    const clock = createClock({ mode: 'real', start: START, wallNow: () => wall });
    wall += 1000;
    clock.configure({ mode: 'manual' });
    wall += 5000;
    expect(clock.iso()).toBe('2026-01-01T00:00:01.000Z');
    clock.configure({ mode: 'real', speed: 2 });
    wall += 1000;
    expect(clock.iso()).toBe('2026-01-01T00:00:03.000Z');
  });

  it('fires timers on wall time (scaled)', async () => {
    const clock = createClock({ mode: 'real', speed: 1000 });
    const fired = await new Promise<boolean>((resolve) => {
      clock.after('2s', () => resolve(true)); // 2 ms of wall time at speed 1000
    });
    expect(fired).toBe(true);
    clock.dispose();
  });

  it('advance jumps a real clock forward and fires what fell due', () => {
    const wall = 0;
    const clock = createClock({ mode: 'real', start: START, wallNow: () => wall });
    const seen: string[] = [];
    clock.after('1m', () => seen.push('minute'));
    clock.advance('2m');
    expect(seen).toEqual(['minute']);
    expect(clock.iso()).toBe('2026-01-01T00:02:00.000Z');
    clock.dispose();
  });
});
