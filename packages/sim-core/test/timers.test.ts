import { describe, expect, it } from 'vitest';
import { createClock } from '../src/clock';
import { createWorldTimers, endStep, planWork, pollEnds, type WorkKind, workTimes } from '../src/timers';
import { createWorld } from '../src/world';
import type { World } from '../src/world-types';
import { type ToyState, toyDefinition } from './support/toy-simulator';

const START = Date.parse('2026-01-01T00:00:00.000Z');

/** A toy piece of work: it runs, then ends (or waits for polls) as its record says. */
interface Job {
  id: string;
  runAt: number;
  endAt: number | null;
  pollsLeft: number | null;
  status: 'queued' | 'running' | 'done';
  endedAt?: number;
}

interface JobsState extends ToyState {
  jobs: Map<string, Job>;
  /** What fired, in order: `<id>:<event>@<ms after START>`. */
  log: string[];
}

const JOBS: WorkKind<JobsState, Job, 'run' | 'end'> = {
  name: 'job',
  items: (state) => state.jobs.values(),
  key: (job) => job.id,
  steps(job) {
    if (job.status === 'done') return [];
    const steps = job.status === 'queued' ? [{ at: job.runAt, event: 'run' as const }] : [];
    return [...steps, ...endStep(job.endAt, 'end' as const)];
  },
  fire(state, key, event, at) {
    const job = state.jobs.get(key);
    if (!job) return;
    state.log.push(`${key}:${event}@${at - START}`);
    if (event === 'run') job.status = 'running';
    else {
      job.status = 'done';
      job.endedAt = at;
    }
  },
};

function jobsWorld(): World<JobsState> {
  const world = createWorld(toyDefinition, 'jobs', {
    clock: { mode: 'manual', start: START },
  }) as unknown as World<JobsState>;
  world.state = { ...world.state, jobs: new Map(), log: [] };
  return world;
}

function add(world: World<JobsState>, id: string, runIn: number, endIn: number | null): Job {
  const now = world.clock.now();
  const job: Job = {
    id,
    runAt: now + runIn,
    endAt: endIn === null ? null : now + endIn,
    pollsLeft: null,
    status: 'queued',
  };
  world.state.jobs.set(id, job);
  world.timers.arm(JOBS, job);
  return job;
}

describe('keyed timers on a manual clock', () => {
  it('fires nothing until the clock is advanced, then each step at its own time in time order', () => {
    const world = jobsWorld();
    add(world, 'b', 300, 900);
    add(world, 'a', 100, 500);
    expect(world.state.log).toEqual([]);
    expect(world.timers.pending(JOBS)).toBe(2);
    expect(world.clock.pending()).toBe(4);
    world.clock.advance('1s');
    expect(world.state.log).toEqual(['a:run@100', 'b:run@300', 'a:end@500', 'b:end@900']);
    expect(world.state.jobs.get('a')?.endedAt).toBe(START + 500);
    // Every step fired: no key keeps a timer, the clock has none left.
    expect(world.timers.pending()).toBe(0);
    expect(world.clock.pending()).toBe(0);
  });

  it('fires steps due at the same time in the order they were armed', () => {
    const world = jobsWorld();
    for (const id of ['c', 'a', 'b']) add(world, id, 50, 50);
    world.clock.advance(50);
    expect(world.state.log).toEqual(['c:run@50', 'c:end@50', 'a:run@50', 'a:end@50', 'b:run@50', 'b:end@50']);
  });

  it('fires a step already due at once when it is armed, at its own time', () => {
    const world = jobsWorld();
    world.clock.advance(1000);
    const job: Job = {
      id: 'late',
      runAt: START + 200,
      endAt: START + 600,
      pollsLeft: null,
      status: 'queued',
    };
    world.state.jobs.set(job.id, job);
    world.timers.arm(JOBS, job);
    expect(world.state.log).toEqual(['late:run@200', 'late:end@600']);
    expect(world.timers.has(JOBS, 'late')).toBe(false);
  });

  it('drops what a key had on the clock when it is armed again (nothing fires twice)', () => {
    const world = jobsWorld();
    const job = add(world, 'x', 100, 500);
    job.endAt = START + 2000;
    world.timers.arm(JOBS, job);
    expect(world.clock.pending()).toBe(2);
    world.clock.advance('3s');
    expect(world.state.log).toEqual(['x:run@100', 'x:end@2000']);
  });

  it('cancels a key: its steps never fire, other keys keep theirs', () => {
    const world = jobsWorld();
    add(world, 'gone', 100, 500);
    add(world, 'kept', 100, 500);
    world.timers.cancel(JOBS, 'gone');
    expect(world.timers.has('job', 'gone')).toBe(false);
    expect(world.clock.pending()).toBe(2);
    world.clock.advance('1s');
    expect(world.state.log).toEqual(['kept:run@100', 'kept:end@500']);
  });

  it('settles a key now: its pending steps are dropped and the event fires at the current time', () => {
    const world = jobsWorld();
    add(world, 'x', 100, 5000);
    world.clock.advance(200);
    world.timers.settle(JOBS, 'x', 'end');
    expect(world.state.log).toEqual(['x:run@100', 'x:end@200']);
    expect(world.clock.pending()).toBe(0);
    world.clock.advance('10s');
    expect(world.state.log).toHaveLength(2);
  });

  it('re-arms a kind from a replaced state: the old records fire nothing, the new ones fire on time', () => {
    const world = jobsWorld();
    add(world, 'old', 100, 500);
    add(world, 'same-id', 100, 500);
    // A snapshot import: a new state whose records are other objects, one under a key the old had.
    const imported: Job[] = [
      { id: 'same-id', runAt: START + 1000, endAt: START + 3000, pollsLeft: null, status: 'queued' },
      { id: 'new', runAt: START, endAt: START + 2000, pollsLeft: null, status: 'running' },
      { id: 'ended', runAt: START, endAt: START + 50, pollsLeft: null, status: 'done' },
    ];
    world.state = { ...world.state, jobs: new Map(imported.map((j) => [j.id, j])), log: [] };
    world.timers.rearm(JOBS);
    expect(world.timers.pending(JOBS)).toBe(2);
    expect(world.clock.pending()).toBe(3);
    world.clock.advance('5s');
    expect(world.state.log).toEqual(['same-id:run@1000', 'new:end@2000', 'same-id:end@3000']);
  });

  it('re-arms records imported past their time at once, in order', () => {
    const world = jobsWorld();
    world.clock.advance('10s');
    world.state.jobs.set('j', {
      id: 'j',
      runAt: START + 1,
      endAt: START + 2,
      pollsLeft: null,
      status: 'queued',
    });
    world.timers.rearm(JOBS);
    expect(world.state.log).toEqual(['j:run@1', 'j:end@2']);
    expect(world.timers.pending()).toBe(0);
  });

  it('keeps keys of different kinds apart', () => {
    const world = jobsWorld();
    const other: WorkKind<JobsState, Job, 'run' | 'end'> = { ...JOBS, name: 'other' };
    add(world, 'x', 100, 500);
    const twin: Job = { id: 'x', runAt: START + 100, endAt: START + 500, pollsLeft: null, status: 'queued' };
    world.timers.arm(other, twin);
    world.timers.cancel(other, 'x');
    expect(world.timers.pending(JOBS)).toBe(1);
    expect(world.timers.pending(other)).toBe(0);
  });
});

describe('"N polls" mode', () => {
  it('answers running for N polls and ends on the next, with no timer on the clock', () => {
    const world = jobsWorld();
    const job = add(world, 'p', 0, null);
    job.pollsLeft = 2;
    world.clock.advance('1h');
    expect(world.clock.pending()).toBe(0);
    const ends = [pollEnds(job), pollEnds(job), pollEnds(job)];
    expect(ends).toEqual([false, false, true]);
    expect(job.pollsLeft).toBe(0);
  });

  it('counts nothing for work that ends on the clock', () => {
    const work = { pollsLeft: null };
    expect(pollEnds(work)).toBe(false);
    expect(work.pollsLeft).toBeNull();
  });
});

describe('a plan built from fault effects', () => {
  const usual = { durationMs: 2000, queuedMs: 500 };

  it('keeps the usual timing without a delay', () => {
    expect(planWork(usual)).toEqual({ durationMs: 2000, queuedMs: 500 });
    expect(workTimes(planWork(usual), 0)).toEqual({ startAt: 500, finishAt: 2000, pollsLeft: null });
  });

  it('replaces the duration and the queued time a delay gives', () => {
    expect(planWork(usual, { duration: '30s' })).toEqual({ durationMs: 30_000, queuedMs: 500 });
    expect(planWork(usual, { queued: '1h', duration: '1h' })).toEqual({
      durationMs: 3_600_000,
      queuedMs: 3_600_000,
    });
  });

  it('keeps the work its own running time after a longer queue when `queued` comes alone', () => {
    const plan = planWork(usual, { queued: '10m' });
    expect(plan).toEqual({ durationMs: 600_000 + 1500, queuedMs: 600_000 });
    // No usual queue: the whole usual duration follows the wait.
    expect(planWork({ durationMs: 3000 }, { queued: 1000 }).durationMs).toBe(4000);
  });

  it('caps the queued time at the duration', () => {
    expect(workTimes(planWork(usual, { queued: '5s', duration: '1s' }), 100)).toEqual({
      startAt: 1100,
      finishAt: 1100,
      pollsLeft: null,
    });
  });

  it('plans N polls instead of a duration, starting at once', () => {
    const plan = planWork(usual, { polls: 3 });
    expect(plan.polls).toBe(3);
    expect(workTimes(plan, 100)).toEqual({ startAt: 100, finishAt: null, pollsLeft: 3 });
    // The world's own polls setting yields to a duration a rule gives.
    expect(planWork({ durationMs: 2000, polls: 4 }, { duration: '1s' })).toEqual({
      durationMs: 1000,
      queuedMs: 0,
    });
    expect(planWork({ durationMs: 2000, polls: 4 }).polls).toBe(4);
  });

  it('ends a planned failure `after` its time, but a polls plan still on its poll', () => {
    expect(planWork(usual, { duration: '1m' }, '5s').durationMs).toBe(5000);
    expect(workTimes(planWork(usual, { polls: 1 }, '5s'), 0).finishAt).toBeNull();
  });
});

describe('keyed timers on a real clock', () => {
  it('fires a step when simulated time reaches it', async () => {
    const clock = createClock({ mode: 'real', speed: 10_000 });
    const timers = createWorldTimers(clock, { state: jobsWorld().state });
    const ended = new Promise<string>((resolve) => {
      const kind: WorkKind<JobsState, Job, 'end'> = {
        ...JOBS,
        steps: (job) => endStep(job.endAt, 'end' as const),
        fire: (_state, key) => resolve(key),
      };
      const job: Job = { id: 'r', runAt: 0, endAt: clock.now() + 1000, pollsLeft: null, status: 'running' };
      timers.arm(kind, job);
    });
    await expect(ended).resolves.toBe('r');
    clock.dispose();
  });
});
