/**
 * A job's and a task's annotations as CVAT 2.73 keeps them: `GET`, `PUT`, `PATCH ?action=` and `DELETE`
 * of `/api/jobs/{id}/annotations` and `/api/tasks/{id}/annotations`, with CVAT's ids, its checks and
 * texts (dataset_manager's `JobAnnotation`, engine's `LabeledDataSerializer`), and nothing it does not
 * check. Assertions ported from the annotation tests of CVAT's `tests/python/rest_api/test_jobs.py` and
 * `test_tasks.py`; shapes from `tests/python/shared/assets/annotations.json`. They run against the built
 * CLI (support/cli-harness.ts): one process for the file, a namespace a test.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { box, taskWithJobs as seedTask, stored } from './support/annotations';
import { type CliHarness, cliHarness } from './support/cli-harness';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

/** The shared task (support/annotations.ts) in the test's namespace. */
const taskWithJobs = (overlap: number | null = null) => seedTask(h, overlap);

describe('GET /api/jobs/{id}/annotations', () => {
  it('answers an empty LabeledData for a job nobody annotated', async () => {
    const { jobs } = await taskWithJobs();
    const res = await h.get(`/api/jobs/${jobs[0]}/annotations`, { as: 'alice' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.cvat+json');
    expect(res.body).toEqual({ version: 0, tags: [], shapes: [], tracks: [], intervals: [] });
  });

  it('answers 403 to a user with no part in the job, and 404 for a job that does not exist', async () => {
    const { jobs } = await taskWithJobs();
    expect((await h.get(`/api/jobs/${jobs[0]}/annotations`, { as: 'outsider' })).status).toBe(403);
    const missing = await h.get('/api/jobs/999/annotations', { as: 'alice' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'No Job matches the given query.' });
  });

  it("answers the old file flows (GET ?format=, PUT ?format=) with CVAT 2.73's 410 pages", async () => {
    const { jobs } = await taskWithJobs();
    const res = await h.get(`/api/jobs/${jobs[0]}/annotations?format=CVAT%20for%20images%201.1`, {
      as: 'alice',
    });
    expect(res.status).toBe(410);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toBe(
      'This endpoint is no longer supported.\n' +
        'To initiate the export process, use POST /api/jobs/id/dataset/export?save_images=False.\n' +
        'To check the process status, use GET /api/requests/rq_id,\n' +
        'where rq_id is obtained from the response of the previous request.\n' +
        'To download the prepared file, use the result_url obtained from the response of the previous request.\n',
    );
    const task = await h.get('/api/tasks/1/annotations?cloud_storage_id=1', { as: 'alice' });
    expect(task.status).toBe(410);
    expect(task.text).toContain('use POST /api/tasks/id/dataset/export?save_images=False.');
    const put = await h.put(`/api/jobs/${jobs[0]}/annotations?rq_id=x`, { shapes: [] }, { as: 'alice' });
    expect(put.status).toBe(410);
    expect(put.text).toBe(
      'This endpoint no longer supports checking the status of the import process.\n' +
        'The common requests API should be used instead: GET /api/requests/rq_id,\n' +
        'where rq_id is obtained from the response of the initializing request.\n',
    );
  });
});

describe('PUT /api/jobs/{id}/annotations', () => {
  it('stores the shapes with ids of their own sequence and answers them; GET gives them in frame order with the label defaults', async () => {
    const { jobs, label } = await taskWithJobs();
    const car = label('car');
    const person = label('person');
    const put = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      {
        shapes: [
          box(person.id, 3),
          box(car.id, 1, { attributes: [{ spec_id: car.attributes[0]?.id, value: 'volvo' }] }),
        ],
        tags: [{ frame: 2, label_id: person.id }],
      },
      { as: 'alice' },
    );
    expect(put.status).toBe(200);
    expect(put.body.shapes.map((s: { id: number }) => s.id)).toEqual([1, 2]);
    expect(put.body.tags).toEqual([
      { id: 1, label_id: person.id, group: 0, source: 'manual', frame: 2, attributes: [] },
    ]);
    const got = await h.get(`/api/jobs/${jobs[0]}/annotations`, { as: 'alice' });
    expect(got.body.shapes).toEqual([
      stored(2, car.id, 1, [
        { spec_id: car.attributes[0]?.id, value: 'volvo' },
        { spec_id: car.attributes[1]?.id, value: 'false' },
      ]),
      stored(1, person.id, 3),
    ]);
    // A second PUT replaces: the old shapes go, the new ones take the next ids.
    const again = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      { shapes: [box(person.id, 0)] },
      { as: 'alice' },
    );
    expect(again.body.shapes[0].id).toBe(3);
    const after = await h.get(`/api/jobs/${jobs[0]}/annotations`, { as: 'alice' });
    expect(after.body).toEqual({
      version: 0,
      tags: [],
      shapes: [stored(3, person.id, 0)],
      tracks: [],
      intervals: [],
    });
  });

  it("touches the job's, the task's updated_date when something changed", async () => {
    const { task, jobs, label } = await taskWithJobs();
    const before = (await h.get(`/api/jobs/${jobs[0]}`, { as: 'alice' })).body.updated_date;
    await h.advance('1h');
    await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      { shapes: [box(label('person').id, 0)] },
      { as: 'alice' },
    );
    const job = (await h.get(`/api/jobs/${jobs[0]}`, { as: 'alice' })).body;
    const t = (await h.get(`/api/tasks/${task.id}`, { as: 'alice' })).body;
    expect(job.updated_date).not.toBe(before);
    expect(job.updated_date).toBe('2026-01-01T01:00:00Z');
    expect(t.updated_date).toBe('2026-01-01T01:00:00Z');
  });

  it('answers 400 ["label_id `N` is invalid"] for a label the task does not have, and stores nothing', async () => {
    const { jobs, label } = await taskWithJobs();
    const res = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      { shapes: [box(label('person').id, 0), box(999, 1)] },
      { as: 'alice' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual(['label_id `999` is invalid']);
    expect((await h.get(`/api/jobs/${jobs[0]}/annotations`, { as: 'alice' })).body.shapes).toEqual([]);
    // The sequence did not move: the next shape is still 1.
    const ok = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      { shapes: [box(label('person').id, 0)] },
      { as: 'alice' },
    );
    expect(ok.body.shapes[0].id).toBe(1);
  });

  it('answers 400 ["spec_id `N` is invalid"] for an attribute of another label, or a mutable one on a track', async () => {
    const { jobs, label } = await taskWithJobs();
    const spec = label('car').attributes[0]?.id as number;
    const res = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      { shapes: [box(label('person').id, 0, { attributes: [{ spec_id: spec, value: 'x' }] })] },
      { as: 'alice' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual([`spec_id \`${spec}\` is invalid`]);
    const mutable = label('car').attributes[1]?.id as number;
    const track = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      {
        tracks: [
          {
            frame: 0,
            label_id: label('car').id,
            attributes: [{ spec_id: mutable, value: 'true' }],
            shapes: [{ type: 'rectangle', frame: 0, points: [1, 2, 3, 4] }],
          },
        ],
      },
      { as: 'alice' },
    );
    expect(track.body).toEqual([`spec_id \`${mutable}\` is invalid`]);
  });

  it("answers DRF's nested errors: a required field, points that are not numbers, a bad type", async () => {
    const { jobs, label } = await taskWithJobs();
    const res = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      {
        shapes: [
          box(label('person').id, 0),
          { type: 'circle', frame: -1, points: [1, '2', 3] },
          box(label('person').id, 0, { points: [1, 2, null, 4], rotation: 400 }),
        ],
        tags: 'none',
      },
      { as: 'alice' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      tags: { non_field_errors: ['Expected a list of items but got type "str".'] },
      shapes: [
        {},
        {
          type: ['"circle" is not a valid choice.'],
          points: { 1: "[ErrorDetail(string='Value must be a float or an integer', code='invalid')]" },
          label_id: ['This field is required.'],
          frame: ['Ensure this value is greater than or equal to 0.'],
        },
        {
          rotation: ['Ensure this value is less than or equal to 360.'],
          points: { 2: "[ErrorDetail(string='Value must be a float or an integer', code='invalid')]" },
        },
      ],
    });
  });

  it("stores no frame check: a shape past the job's frames is kept as CVAT keeps it", async () => {
    const { jobs, label } = await taskWithJobs();
    const res = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      { shapes: [box(label('person').id, 15)] },
      { as: 'alice' },
    );
    expect(res.status).toBe(200);
    expect(res.body.shapes[0].frame).toBe(15);
  });

  it('gives a skeleton its id first, then its elements theirs, and reads its own points back empty', async () => {
    const { jobs, label } = await taskWithJobs();
    const s1 = label('s1');
    const res = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      {
        shapes: [
          {
            type: 'skeleton',
            frame: 0,
            label_id: s1.id,
            points: [],
            elements: s1.sublabels.map((sub, i) => ({
              type: 'points',
              frame: 0,
              label_id: sub.id,
              points: [i, i],
            })),
          },
          box(label('person').id, 0),
        ],
      },
      { as: 'alice' },
    );
    expect(res.status).toBe(200);
    const got = (await h.get(`/api/jobs/${jobs[0]}/annotations`, { as: 'alice' })).body.shapes;
    expect(got.map((s: { id: number }) => s.id)).toEqual([1, 2]);
    expect(got[0].points).toEqual([]);
    expect(got[0].elements.map((e: { id: number }) => e.id)).toEqual([3, 4]);
    expect(got[0].elements[0]).not.toHaveProperty('elements');
  });

  it('starts a track at its first keyframe, adding a hidden keyframe where the track says it starts', async () => {
    const { jobs, label } = await taskWithJobs();
    const res = await h.put(
      `/api/jobs/${jobs[0]}/annotations`,
      {
        tracks: [
          {
            frame: 1,
            label_id: label('person').id,
            shapes: [{ type: 'rectangle', frame: 4, points: [1, 2, 3, 4] }],
          },
          { frame: 0, label_id: label('person').id, shapes: [] },
        ],
      },
      { as: 'alice' },
    );
    expect(res.status).toBe(200);
    const tracks = (await h.get(`/api/jobs/${jobs[0]}/annotations`, { as: 'alice' })).body.tracks;
    expect(tracks).toHaveLength(1);
    expect(tracks[0]).toMatchObject({ id: 1, frame: 1, elements: [] });
    expect(
      tracks[0].shapes.map((s: { frame: number; outside: boolean; id: number }) => [
        s.frame,
        s.outside,
        s.id,
      ]),
    ).toEqual([
      [1, true, 2],
      [4, false, 1],
    ]);
  });
});

describe("an attribute's value and an id in use on PUT (CVAT's own code paths)", () => {
  it("stores Python's str() of a value (null is None), and answers Django's 500 for an attribute without value or an id in use", async () => {
    const { jobs, label } = await taskWithJobs();
    const car = label('car');
    const spec = car.attributes[0]?.id as number;
    const url = `/api/jobs/${jobs[0]}/annotations`;
    const put = await h.put(
      url,
      { tags: [{ frame: 0, label_id: car.id, attributes: [{ spec_id: spec, value: null }] }] },
      { as: 'alice' },
    );
    expect(put.status).toBe(200);
    expect(put.body.tags[0].attributes).toEqual([{ spec_id: spec, value: 'None' }]);
    const noValue = await h.put(
      url,
      { tags: [{ frame: 0, label_id: car.id, attributes: [{ spec_id: spec }] }] },
      { as: 'alice' },
    );
    expect(noValue.status).toBe(500);
    await h.put(`/api/jobs/${jobs[1]}/annotations`, { shapes: [box(car.id, 12)] }, { as: 'alice' });
    const taken = await h.put(url, { shapes: [box(car.id, 0, { id: 1 })] }, { as: 'alice' });
    expect(taken.status).toBe(500);
    // Nothing changed: the tag of the first PUT is still there.
    expect((await h.get(url, { as: 'alice' })).body.tags).toHaveLength(1);
  });
});

describe('PATCH /api/jobs/{id}/annotations', () => {
  it('answers 400 ["Please specify a correct \'action\' for the request"] before reading the body', async () => {
    const { jobs } = await taskWithJobs();
    for (const q of ['', '?action=replace']) {
      const res = await h.patch(`/api/jobs/${jobs[0]}/annotations${q}`, { shapes: 'bad' }, { as: 'alice' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(["Please specify a correct 'action' for the request"]);
    }
  });

  it('creates, updates in place (same id) and deletes by id; an id no longer there is ignored', async () => {
    const { jobs, label } = await taskWithJobs();
    const url = `/api/jobs/${jobs[0]}/annotations`;
    const person = label('person').id;
    const created = await h.patch(
      `${url}?action=create`,
      { shapes: [box(person, 0), box(person, 1)] },
      { as: 'alice' },
    );
    expect(created.status).toBe(200);
    expect(created.body.shapes.map((s: { id: number }) => s.id)).toEqual([1, 2]);
    const updated = await h.patch(
      `${url}?action=update`,
      { shapes: [box(person, 5, { id: 2, occluded: true })] },
      { as: 'alice' },
    );
    expect(updated.status).toBe(200);
    expect(updated.body.shapes[0]).toMatchObject({ id: 2, frame: 5, occluded: true });
    const deleted = await h.patch(
      `${url}?action=delete`,
      { shapes: [box(person, 0, { id: 1 }), box(person, 0, { id: 77 })] },
      { as: 'alice' },
    );
    expect(deleted.status).toBe(200);
    const got = await h.get(url, { as: 'alice' });
    expect(got.body.shapes).toEqual([stored(2, person, 5, [], { occluded: true })]);
  });

  it("answers PostgreSQL's unique violation (400) when an update names an id of another job's shape", async () => {
    const { jobs, label } = await taskWithJobs();
    const person = label('person').id;
    await h.put(`/api/jobs/${jobs[1]}/annotations`, { shapes: [box(person, 12)] }, { as: 'alice' });
    const res = await h.patch(
      `/api/jobs/${jobs[0]}/annotations?action=update`,
      { shapes: [box(person, 0, { id: 1 })] },
      { as: 'alice' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toBe(
      'duplicate key value violates unique constraint "engine_labeledshape_pkey"\nDETAIL:  Key (id)=(1) already exists.\n',
    );
  });
});

describe('DELETE /api/jobs/{id}/annotations', () => {
  it('removes everything and answers 204', async () => {
    const { jobs, label } = await taskWithJobs();
    const url = `/api/jobs/${jobs[0]}/annotations`;
    await h.put(
      url,
      { shapes: [box(label('person').id, 0)], tags: [{ frame: 0, label_id: label('car').id }] },
      { as: 'alice' },
    );
    const res = await h.del(url, { as: 'alice' });
    expect(res.status).toBe(204);
    expect((await h.get(url, { as: 'alice' })).body).toEqual({
      version: 0,
      tags: [],
      shapes: [],
      tracks: [],
      intervals: [],
    });
  });
});
