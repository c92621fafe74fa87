/**
 * A task's annotations over its jobs, who may read and write them, and CVAT's own test of a whole job's
 * update (`test_jobs.py`, `test_tasks.py`; shapes from `tests/python/shared/assets/annotations.json`).
 * They run against the built CLI (support/cli-harness.ts): one process for the file, a namespace a test.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { box, taskWithJobs as seedTask } from './support/annotations';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { TEAM } from './support/harness';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

/** The shared task (support/annotations.ts) in the test's namespace. */
const taskWithJobs = (overlap: number | null = null) => seedTask(h, overlap);

describe('/api/tasks/{id}/annotations', () => {
  it("splits a PUT by the jobs' frames and answers the merge; each job holds its part", async () => {
    const { task, jobs, label } = await taskWithJobs();
    const person = label('person').id;
    const put = await h.put(
      `/api/tasks/${task.id}/annotations`,
      { shapes: [box(person, 15), box(person, 2), box(person, 40)] },
      { as: 'alice' },
    );
    expect(put.status).toBe(200);
    expect(put.body.shapes.map((s: { frame: number }) => s.frame)).toEqual([2, 15]);
    const j1 = await h.get(`/api/jobs/${jobs[0]}/annotations`, { as: 'alice' });
    const j2 = await h.get(`/api/jobs/${jobs[1]}/annotations`, { as: 'alice' });
    expect(j1.body.shapes.map((s: { frame: number }) => s.frame)).toEqual([2]);
    expect(j2.body.shapes.map((s: { frame: number }) => s.frame)).toEqual([15]);
    const got = await h.get(`/api/tasks/${task.id}/annotations`, { as: 'alice' });
    expect(got.body.shapes.map((s: { frame: number }) => s.frame)).toEqual([2, 15]);
    expect((await h.del(`/api/tasks/${task.id}/annotations`, { as: 'alice' })).status).toBe(204);
    expect((await h.get(`/api/jobs/${jobs[1]}/annotations`, { as: 'alice' })).body.shapes).toEqual([]);
  });

  it('answers the overlap of two jobs once in the merge, though each job keeps its copy', async () => {
    const { task, jobs, label } = await taskWithJobs(2);
    const person = label('person').id;
    const starts = await Promise.all(
      jobs.map(async (j) => (await h.get(`/api/jobs/${j}`, { as: 'alice' })).body),
    );
    const shared = starts[1].start_frame as number;
    await h.put(`/api/tasks/${task.id}/annotations`, { shapes: [box(person, shared)] }, { as: 'alice' });
    const inJobs = await Promise.all(
      jobs.map(async (j) => (await h.get(`/api/jobs/${j}/annotations`, { as: 'alice' })).body.shapes.length),
    );
    expect(inJobs.slice(0, 2)).toEqual([1, 1]);
    const got = await h.get(`/api/tasks/${task.id}/annotations`, { as: 'alice' });
    expect(got.body.shapes).toHaveLength(1);
  });

  it("answers Django's 400 page for a read of a task without data, and CVAT's AttributeError for a write", async () => {
    await h.seed({ ...TEAM, tasks: [{ name: 'Empty', owner: 'alice' }] });
    const res = await h.get('/api/tasks/1/annotations', { as: 'alice' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toBe('Exporting annotations from a task without data is not allowed');
    // Writes reach `task.data.validation_mode`: PATCH answers the AttributeError's text, PUT and DELETE 500.
    const patched = await h.patch('/api/tasks/1/annotations?action=create', { shapes: [] }, { as: 'alice' });
    expect(patched.status).toBe(400);
    expect(patched.body).toBe("'NoneType' object has no attribute 'validation_mode'");
    expect((await h.put('/api/tasks/1/annotations', {}, { as: 'alice' })).status).toBe(500);
    expect((await h.del('/api/tasks/1/annotations', { as: 'alice' })).status).toBe(500);
  });
});

describe("who may read and write annotations (CVAT's rules for jobs and tasks)", () => {
  it("lets an organization's supervisor read but not write, its maintainer both, a worker neither unless assigned", async () => {
    const seeded = await h.seed({
      ...TEAM,
      tasks: [{ name: 'T', owner: 'alice', org: 'acme', size: 4, labels: [{ name: 'car' }] }],
    });
    const job = (seeded.tasks.T as { jobs: number[] }).jobs[0] as number;
    const url = `/api/jobs/${job}/annotations`;
    const body = { shapes: [box(1, 0)] };
    const headers = { 'X-Organization': 'acme' };
    expect((await h.get(url, { as: 'carol', headers })).status).toBe(200);
    expect((await h.put(url, body, { as: 'carol', headers })).status).toBe(403);
    expect((await h.put(url, body, { as: 'bob', headers })).status).toBe(200);
    expect((await h.get(url, { as: 'dave', headers })).status).toBe(403);
    expect(
      (await h.patch(`/api/jobs/${job}`, { assignee: seeded.users.dave }, { as: 'alice', headers })).status,
    ).toBe(200);
    expect((await h.get(url, { as: 'dave', headers })).status).toBe(200);
    expect((await h.patch(`${url}?action=create`, body, { as: 'dave', headers })).status).toBe(200);
  });
});

describe('PATCH ?action=update of a whole job (test_jobs.py: test_member_update_job_annotations)', () => {
  it("answers the data sent, ids kept, for a skeleton and a skeleton track as annotations.json's job 18 has them", async () => {
    const seeded = await h.seed({
      ...TEAM,
      tasks: [
        {
          name: 'T',
          owner: 'alice',
          size: 5,
          labels: [
            {
              name: 'skele',
              type: 'skeleton',
              attributes: [
                { name: 'color', input_type: 'select', values: ['white', 'black'], default_value: 'white' },
              ],
              sublabels: [
                { name: '1', type: 'points' },
                { name: '2', type: 'points' },
                {
                  name: '3',
                  type: 'points',
                  attributes: [{ name: 'a', input_type: 'text', default_value: 'val1' }],
                },
              ],
            },
          ],
        },
      ],
    });
    const job = (seeded.tasks.T as { jobs: number[] }).jobs[0] as number;
    const labels = (await h.get('/api/labels?task_id=1', { as: 'alice' })).body.results[0];
    const [skele, p1, p2, p3] = [labels.id, ...labels.sublabels.map((l: { id: number }) => l.id)];
    const [color, a] = [labels.attributes[0].id, labels.sublabels[2].attributes[0].id];
    const point = (id: number, label_id: number, x: number, attributes: unknown[] = []) => ({
      type: 'points',
      occluded: false,
      outside: false,
      z_order: 0,
      rotation: 0,
      points: [x, x + 1],
      id,
      label_id,
      group: 0,
      source: 'manual',
      frame: 0,
      attributes,
      score: 1,
    });
    const keyframe = (id: number, frame: number, x: number) => ({
      type: 'points',
      occluded: false,
      outside: false,
      z_order: 0,
      rotation: 0,
      points: [x, x],
      attributes: [],
      id,
      frame,
    });
    const data = {
      version: 0,
      tags: [],
      shapes: [
        {
          type: 'skeleton',
          occluded: false,
          outside: false,
          z_order: 0,
          rotation: 0,
          points: [],
          id: 36,
          label_id: skele,
          group: 0,
          source: 'manual',
          frame: 0,
          attributes: [{ spec_id: color, value: 'white' }],
          score: 1,
          elements: [
            point(37, p1, 135.8),
            point(38, p2, 172.1),
            point(39, p3, 259.9, [{ spec_id: a, value: 'val1' }]),
          ],
        },
      ],
      tracks: [
        {
          id: 1,
          label_id: skele,
          group: 0,
          source: 'manual',
          frame: 0,
          attributes: [{ spec_id: color, value: 'white' }],
          shapes: [{ ...keyframe(1, 0, 0), type: 'skeleton', points: [] }],
          elements: [
            {
              id: 2,
              label_id: p1,
              group: 0,
              source: 'manual',
              frame: 0,
              attributes: [],
              shapes: [keyframe(2, 0, 381.9), keyframe(6, 3, 137.1)],
            },
            {
              id: 3,
              label_id: p2,
              group: 0,
              source: 'manual',
              frame: 0,
              attributes: [],
              shapes: [keyframe(3, 0, 461.9), keyframe(7, 3, 217.1)],
            },
          ],
        },
      ],
      intervals: [],
    };
    const url = `/api/jobs/${job}/annotations`;
    const put = await h.put(url, data, { as: 'alice' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual(data);
    const changed = structuredClone(data);
    changed.shapes[0]?.elements[0]?.points.splice(0, 2, 2, 3);
    changed.version += 1;
    const res = await h.patch(`${url}?action=update`, changed, { as: 'alice' });
    expect(res.status).toBe(200);
    expect({ ...res.body, version: changed.version }).toEqual(changed);
    // Read back: the same objects, the label defaults of what was not given added.
    const got = (await h.get(url, { as: 'alice' })).body;
    expect(got.shapes[0].elements.map((e: { id: number; points: number[] }) => [e.id, e.points])).toEqual([
      [37, [2, 3]],
      [38, [172.1, 173.1]],
      [39, [259.9, 260.9]],
    ]);
    expect(got.tracks[0].elements.map((e: { id: number }) => e.id)).toEqual([2, 3]);
    // The sequences moved past the ids given: the next shape is 40, the next track 4.
    const next = await h.patch(
      `${url}?action=create`,
      { shapes: [point(0, p1, 1)].map(({ id: _, ...s }) => s) },
      { as: 'alice' },
    );
    expect(next.body.shapes[0].id).toBe(40);
  });
});
