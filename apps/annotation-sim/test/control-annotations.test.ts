/**
 * `GET /_sim/annotations`: each job's annotations counted by label and type, and the newest annotation
 * events of the event log, of the request's namespace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recordAnnotationChange } from '../src/domain/events/annotation-events';
import { eventsOf } from '../src/domain/events/state';
import type { AnnotationsControlView } from '../src/index';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

/** Task "T" of 20 frames in two jobs (0-9, 10-19) with labels car, person and a skeleton s1. */
async function world() {
  h = createHarness();
  const seeded = h.seed({
    ...TEAM,
    tasks: [
      {
        name: 'T',
        owner: 'alice',
        size: 20,
        segment_size: 10,
        labels: [
          { name: 'car' },
          { name: 'person' },
          { name: 's1', type: 'skeleton', sublabels: [{ name: '1', type: 'points' }] },
        ],
      },
    ],
  });
  const task = seeded.tasks.T as { id: number; jobs: number[] };
  const labels = await h.get(`/api/labels?task_id=${task.id}`, { as: 'alice' });
  expect(labels.status, labels.text).toBe(200);
  const ids = new Map<string, number>(
    labels.body.results.map((l: { name: string; id: number }) => [l.name, l.id]),
  );
  return { task, jobs: task.jobs, label: (name: string) => ids.get(name) as number };
}

const shape = (label_id: number, frame: number, type = 'rectangle') => ({
  type,
  occluded: false,
  points: type === 'polygon' ? [0, 0, 10, 0, 10, 10] : [1, 2, 30, 40],
  frame,
  label_id,
});

async function put(jobId: number, body: Record<string, unknown>, prefix = '') {
  const res = await h.put(
    `${prefix}/api/jobs/${jobId}/annotations`,
    { version: 0, tags: [], shapes: [], tracks: [], ...body },
    { as: 'alice' },
  );
  expect(res.status, res.text).toBe(200);
}

async function view(query = '', prefix = ''): Promise<AnnotationsControlView> {
  const res = await h.get(`${prefix}/_sim/annotations${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as AnnotationsControlView;
}

/** Rows written straight into the event log, as CVAT's handlers or a client would log them. */
async function logEvents(events: Record<string, unknown>[], prefix = '') {
  const res = await h.post(`${prefix}/_sim/events/records`, { events });
  expect(res.status, res.text).toBe(201);
}

describe('GET /_sim/annotations', () => {
  it("counts a job's tags, shapes and tracks by label and type, tracks by their first keyframe's type", async () => {
    const { task, jobs, label } = await world();
    await put(jobs[0] as number, {
      tags: [
        { frame: 0, label_id: label('person') },
        { frame: 3, label_id: label('person') },
      ],
      shapes: [
        shape(label('car'), 0),
        shape(label('car'), 1),
        shape(label('car'), 2, 'polygon'),
        shape(label('person'), 4),
      ],
      tracks: [
        {
          frame: 0,
          label_id: label('person'),
          shapes: [
            { type: 'polygon', frame: 0, points: [0, 0, 10, 0, 10, 10] },
            { type: 'polygon', frame: 5, points: [0, 0, 10, 0, 10, 10], outside: true },
          ],
        },
      ],
    });

    const v = await view();
    expect(v.job_count).toBe(1);
    expect(v.jobs).toEqual([
      {
        job_id: jobs[0],
        task_id: task.id,
        task_name: 'T',
        tags: 2,
        shapes: 4,
        tracks: 1,
        by_label: [
          { label_id: label('car'), label: 'car', type: 'rectangle', count: 2 },
          { label_id: label('car'), label: 'car', type: 'polygon', count: 1 },
          { label_id: label('person'), label: 'person', type: 'tag', count: 2 },
          { label_id: label('person'), label: 'person', type: 'rectangle', count: 1 },
          { label_id: label('person'), label: 'person', type: 'polygon', count: 1 },
        ],
      },
    ]);
  });

  it('lists only jobs that hold annotations, by id, cut to ?limit= with job_count saying how many', async () => {
    const { jobs, label } = await world();
    const [first, second] = jobs as [number, number];
    expect((await view()).jobs).toEqual([]);
    await put(second, { shapes: [shape(label('car'), 12)] });
    await put(first, { shapes: [shape(label('car'), 1)] });
    expect((await view()).jobs.map((j) => j.job_id)).toEqual([first, second]);
    const cut = await view('?limit=1');
    expect(cut.jobs.map((j) => j.job_id)).toEqual([first]);
    expect(cut.job_count).toBe(2);
    // A job emptied again is no longer listed.
    await put(first, {});
    expect((await view()).jobs.map((j) => j.job_id)).toEqual([second]);
  });

  it('shows the job ?job_id= names even when it holds nothing, and answers 404 for an unknown job', async () => {
    const { task, jobs } = await world();
    const v = await view(`?job_id=${jobs[1]}`);
    expect(v.jobs).toEqual([
      { job_id: jobs[1], task_id: task.id, task_name: 'T', tags: 0, shapes: 0, tracks: 0, by_label: [] },
    ]);
    expect(v.job_count).toBe(1);

    const missing = await h.get('/_sim/annotations?job_id=999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { status: 404, reason: 'NOT_FOUND', message: 'no job 999' } });
    for (const bad of ['job_id=x', 'job_id=0', 'limit=0', 'limit=-1', 'events_limit=1.5']) {
      const res = await h.get(`/_sim/annotations?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ reason: 'INVALID_INPUT', path: bad.split('=')[0] });
    }
  });

  it('lists the newest annotation events first, and no event of another scope', async () => {
    const { jobs } = await world();
    const at = (s: number) => `2026-01-01T00:00:0${s}Z`;
    await logEvents([
      {
        scope: 'create:shapes',
        obj_name: 'rectangle',
        count: 3,
        job_id: jobs[0],
        task_id: 1,
        user_name: 'alice',
        timestamp: at(1),
      },
      { scope: 'update:job', job_id: jobs[0], timestamp: at(2) },
      { scope: 'create:shapes2', job_id: jobs[0], timestamp: at(2) },
      { scope: 'create:tags', count: 1, job_id: jobs[1], task_id: 1, user_name: 'bob', timestamp: at(3) },
      {
        scope: 'delete:tracks',
        obj_name: 'polygon',
        count: 2,
        job_id: jobs[0],
        task_id: 1,
        user_name: 'alice',
        timestamp: at(4),
      },
      {
        scope: 'update:shapes',
        obj_name: 'points',
        count: 1,
        job_id: jobs[0],
        timestamp: at(5),
        source: 'client',
      },
    ]);

    const v = await view();
    expect(v.event_count).toBe(4);
    expect(v.events).toEqual([
      {
        timestamp: '2026-01-01T00:00:05.000Z',
        scope: 'update:shapes',
        obj_name: 'points',
        count: 1,
        job_id: jobs[0],
        task_id: null,
        user: null,
      },
      {
        timestamp: '2026-01-01T00:00:04.000Z',
        scope: 'delete:tracks',
        obj_name: 'polygon',
        count: 2,
        job_id: jobs[0],
        task_id: 1,
        user: 'alice',
      },
      {
        timestamp: '2026-01-01T00:00:03.000Z',
        scope: 'create:tags',
        obj_name: null,
        count: 1,
        job_id: jobs[1],
        task_id: 1,
        user: 'bob',
      },
      {
        timestamp: '2026-01-01T00:00:01.000Z',
        scope: 'create:shapes',
        obj_name: 'rectangle',
        count: 3,
        job_id: jobs[0],
        task_id: 1,
        user: 'alice',
      },
    ]);
    expect((await view('?events_limit=2')).events.map((e) => e.scope)).toEqual([
      'update:shapes',
      'delete:tracks',
    ]);
    const none = await view('?events_limit=0');
    expect([none.events, none.event_count]).toEqual([[], 4]);
    const ofJob = await view(`?job_id=${jobs[1]}`);
    expect([ofJob.events.map((e) => e.scope), ofJob.event_count]).toEqual([['create:tags'], 1]);
  });

  it("lists the rows CVAT's handler logs for an annotation change, one per kind and shape type", async () => {
    const { jobs } = await world();
    const jobId = jobs[0] as number;
    // What the annotation routes hand the event log once they are wired to it (annotation-events.ts).
    recordAnnotationChange(
      eventsOf(h.state()),
      {
        action: 'create',
        annotations: {
          tags: [{ id: 1 }],
          shapes: [
            { id: 1, type: 'rectangle' },
            { id: 2, type: 'polygon' },
            { id: 3, type: 'rectangle' },
          ],
          tracks: [{ id: 1, shapes: [{ id: 1, type: 'points', frame: 0, outside: false }] }],
        },
        jobId,
        taskId: 1,
        projectId: null,
        actor: { id: 2, username: 'alice' },
      },
      h.sim.world().clock.now(),
    );
    const v = await view();
    expect(v.events.map((e) => [e.scope, e.obj_name, e.count, e.job_id, e.user])).toEqual([
      ['create:tracks', 'points', 1, jobId, 'alice'],
      ['create:shapes', 'polygon', 1, jobId, 'alice'],
      ['create:shapes', 'rectangle', 2, jobId, 'alice'],
      ['create:tags', null, 1, jobId, 'alice'],
    ]);
    expect(v.events[0]?.timestamp).toBe('2026-01-01T00:00:00.000Z');
  });

  it('shows only the namespace of the request', async () => {
    const { jobs, label } = await world();
    const other = '/_ns/other';
    const seeded = await h.post(`${other}/_sim/seed`, {
      users: [{ username: 'alice' }],
      tasks: [{ name: 'O', owner: 'alice', size: 4, labels: [{ name: 'car' }] }],
    });
    expect(seeded.status, seeded.text).toBe(201);
    const otherJob = seeded.body.seeded.tasks.O.jobs[0] as number;
    expect(otherJob).toBe(jobs[0]);
    await put(jobs[0] as number, { shapes: [shape(label('car'), 0)] });
    await logEvents([{ scope: 'create:shapes', obj_name: 'rectangle', count: 1, job_id: jobs[0] }]);

    const there = await view('', other);
    expect([there.jobs, there.job_count, there.events, there.event_count]).toEqual([[], 0, [], 0]);
    // The same job id there is that namespace's own job, empty, with none of this one's events.
    const same = await view(`?job_id=${otherJob}`, other);
    expect(same.jobs).toMatchObject([{ task_name: 'O', shapes: 0, by_label: [] }]);
    expect(same.events).toEqual([]);
    expect((await view()).jobs.map((j) => j.job_id)).toEqual([jobs[0]]);
  });

  it('counts a job of 100,000 shapes in one pass over its stored rows, calling no array method on them', async () => {
    const { jobs, label } = await world();
    const jobId = jobs[0] as number;
    const row = Object.freeze({
      ...shape(label('car'), 0),
      id: 1,
      outside: false,
      z_order: 0,
      rotation: 0,
      group: 0,
      source: 'manual',
      attributes: [],
      score: 1,
    });
    let reads = 0;
    const others = new Set<string | symbol>();
    // The stored rows behind a proxy that counts each element read and notes every other key taken (a
    // copy by slice, map or filter would take its method's name).
    const shapes = new Proxy(new Array(100_000).fill(row), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        else others.add(key);
        return Reflect.get(target, key, receiver);
      },
    });
    h.state().annotations.set(jobId, { job_id: jobId, tags: [], shapes, tracks: [] });

    const v = await view();
    expect(v.jobs[0]).toMatchObject({
      shapes: 100_000,
      by_label: [{ label: 'car', type: 'rectangle', count: 100_000 }],
    });
    expect(reads).toBe(100_000);
    expect([...others].filter((k) => k !== Symbol.iterator && k !== 'length')).toEqual([]);
  });
});
