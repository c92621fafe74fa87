/**
 * Annotations beyond the API: seeded (a job can start with a thousand boxes), kept in snapshots (their
 * own table, checked on import), and CVAT's `test_jobs.py` `test_can_update_annotations`. They run against
 * the built CLI (support/cli-harness.ts): one process for the file, a namespace a test, seeds and
 * snapshots through the control plane.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { TEAM } from './support/harness';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

const boxes = (n: number, size: number) =>
  Array.from({ length: n }, (_, i) => ({ label: 'car', frame: i % size, points: [i, i, i + 10, i + 10] }));

const SEED = {
  ...TEAM,
  tasks: [
    {
      name: 'T',
      owner: 'alice',
      size: 10,
      segment_size: 5,
      labels: [
        { name: 'car', attributes: [{ name: 'model', input_type: 'text' as const, default_value: 'x' }] },
        { name: 'person' },
      ],
      annotations: {
        shapes: boxes(1000, 10),
        tags: [{ label: 'person', frame: 7, attributes: {} }],
      },
    },
  ],
};

describe('annotations in seeds', () => {
  it("stores a seeded task's thousand boxes in the jobs whose frames hold them, with CVAT's ids", async () => {
    const seeded = await h.seed(SEED);
    const [j1, j2] = (seeded.tasks.T as { jobs: number[] }).jobs;
    const first = (await h.get(`/api/jobs/${j1}/annotations`, { as: 'alice' })).body;
    const second = (await h.get(`/api/jobs/${j2}/annotations`, { as: 'alice' })).body;
    expect(first.shapes).toHaveLength(500);
    expect(second.shapes).toHaveLength(500);
    expect(second.tags).toMatchObject([{ id: 1, frame: 7, label_id: 2 }]);
    expect(first.shapes.every((s: { frame: number }) => s.frame < 5)).toBe(true);
    // The job's shapes took their ids first (1..500), the second job's after; a read fills the defaults.
    expect(first.shapes.map((s: { id: number }) => s.id).sort((a: number, b: number) => a - b)[499]).toBe(
      500,
    );
    expect(first.shapes[0].attributes).toEqual([{ spec_id: 1, value: 'x' }]);
    const task = (await h.get('/api/tasks/1/annotations', { as: 'alice' })).body;
    expect(task.shapes).toHaveLength(1000);
  });

  it("refuses a label the task does not have and a frame past the task's at their seed paths", async () => {
    const bad = await h.post('/_sim/seed', {
      ...SEED,
      tasks: [{ ...SEED.tasks[0], annotations: { shapes: [{ label: 'bus', frame: 0 }] } }],
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('no label \\"bus\\" in the task\'s labels');
    expect(JSON.stringify(bad.body)).toContain('tasks[0].annotations.shapes[0].label');
    const past = await h.post('/_sim/seed', {
      users: [{ username: 'zed' }],
      tasks: [
        { ...SEED.tasks[0], name: 'U', owner: 'zed', annotations: { tags: [{ label: 'car', frame: 10 }] } },
      ],
    });
    expect(past.status).toBe(400);
    expect(JSON.stringify(past.body)).toContain('tasks[0].annotations.tags[0].frame');
  });
});

describe('annotations in snapshots', () => {
  it('round-trips them: a copy answers the same annotations and takes the next ids after them', async () => {
    await h.seed(SEED);
    await h.put(
      '/api/jobs/1/annotations',
      {
        shapes: [{ type: 'rectangle', frame: 0, label_id: 1, points: [1, 2, 3, 4] }],
        tracks: [{ frame: 1, label_id: 2, shapes: [{ type: 'rectangle', frame: 1, points: [1, 2, 3, 4] }] }],
      },
      { as: 'alice' },
    );
    const before = (await h.get('/_sim/state')).body;
    expect((await h.put('/_ns/copy/_sim/state', before)).status).toBe(200);
    for (const path of ['/api/jobs/1/annotations', '/api/jobs/2/annotations'])
      expect((await h.get(`/_ns/copy${path}`, { as: 'alice' })).body).toEqual(
        (await h.get(path, { as: 'alice' })).body,
      );
    const next = await h.patch(
      '/_ns/copy/api/jobs/1/annotations?action=create',
      { shapes: [{ type: 'points', frame: 2, label_id: 2, points: [5, 5] }] },
      { as: 'alice' },
    );
    expect(next.body.shapes[0].id).toBe(1002);
  });

  it('refuses a row under another job, an id twice, and a counter below the ids, changing nothing', async () => {
    await h.seed(SEED);
    const before = (await h.get('/_sim/state')).body;
    const refusal = async (
      damage: (s: {
        state: Record<string, unknown> & {
          seq: Record<string, number>;
          annotations: [number, { job_id: number; shapes: { id: number }[] }][];
        };
      }) => void,
    ) => {
      const copy = structuredClone(before);
      damage(copy);
      const res = await h.put('/_sim/state', copy);
      expect(res.status).toBe(400);
      return res.body.error.message as string;
    };
    expect(
      await refusal((s) => {
        (s.state.annotations[0] as [number, { job_id: number }])[1].job_id = 2;
      }),
    ).toMatch(/^state\.annotations\[0\]\[1\]\.job_id: 2 is not its row's key 1/);
    expect(
      await refusal((s) => {
        const shapes = (s.state.annotations[1] as [number, { shapes: { id: number }[] }])[1].shapes;
        (shapes[0] as { id: number }).id = 1;
      }),
    ).toMatch(/labeledshape 1 is there twice/);
    expect(
      await refusal((s) => {
        s.state.seq.labeledshape = 10;
      }),
    ).toMatch(/^state\.seq\.labeledshape: 10, below 1000/);
    expect((await h.get('/_sim/state')).body).toEqual(before);
  });
});

describe('annotations written and read back', () => {
  it("PUTs, PATCHes and GETs a job's annotations as CVAT does (test_jobs.py: test_can_update_annotations)", async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await h.request(method, path, { as: 'admin', body });
      return { status: res.status, json: res.body };
    };
    const seeded = await call('POST', '/_sim/seed', {
      tasks: [{ name: 'T', owner: 'admin', size: 4, labels: [{ name: 'car' }] }],
    });
    expect(seeded.status).toBe(201);
    const shape = { type: 'rectangle', frame: 0, label_id: 1, points: [1, 2, 3, 4], occluded: false };
    const put = await call('PUT', '/api/jobs/1/annotations', { version: 0, shapes: [shape] });
    expect(put.status).toBe(200);
    const update = await call('PATCH', '/api/jobs/1/annotations?action=update', {
      shapes: [{ ...shape, id: put.json.shapes[0].id, occluded: true }],
    });
    expect(update.status).toBe(200);
    const got = await call('GET', '/api/jobs/1/annotations');
    expect(got.json).toEqual({
      version: 0,
      tags: [],
      shapes: [
        {
          type: 'rectangle',
          occluded: true,
          outside: false,
          z_order: 0,
          rotation: 0,
          points: [1, 2, 3, 4],
          id: 1,
          label_id: 1,
          group: 0,
          source: 'manual',
          frame: 0,
          attributes: [],
          score: 1,
          elements: [],
        },
      ],
      tracks: [],
      intervals: [],
    });
    expect((await call('PATCH', '/api/jobs/1/annotations', {})).json).toEqual([
      "Please specify a correct 'action' for the request",
    ]);
  });
});
