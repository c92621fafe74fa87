/**
 * Labels as CVAT 2.x has them: created with a project or task, changed through their PATCH and through
 * `/api/labels`, with CVAT's colours, shapes, texts and permissions. Assertions ported from CVAT's
 * `tests/python/rest_api/test_labels.py` (`TestLabelsListFilters`, `TestGetLabels`, `TestPatchLabels`,
 * `TestDeleteLabels`, `TestLabelUpdates`), `test_tasks.py`'s `TestPatchTaskLabel` and `test_projects.py`'s
 * `TestPatchProjectLabel`, shapes from `tests/python/shared/assets/labels.json`.
 * They run against the built CLI (support/cli-harness.ts): one process for the file, a namespace a test.
 */
import { Label } from '@sims/annotation-schema';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { TEAM } from './support/harness';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

const SVG =
  '<circle r="1.5" data-type="element node" data-element-id="1" data-node-id="1" data-label-name="1"></circle>' +
  '<circle r="1.5" data-type="element node" data-element-id="2" data-node-id="2" data-label-name="2"></circle>';

const LABELS = [
  {
    name: 'car',
    attributes: [
      {
        name: 'model',
        input_type: 'select',
        mutable: false,
        values: ['mazda', 'volvo', 'bmw'],
        default_value: 'mazda',
      },
    ],
  },
  { name: 'person' },
  {
    name: 's1',
    type: 'skeleton',
    sublabels: [
      { name: '1', type: 'points' },
      { name: '2', type: 'points' },
    ],
    svg: SVG,
  },
];

async function projectWithLabels() {
  await h.seed(TEAM);
  const p = await h.post('/api/projects', { name: 'P', labels: LABELS }, { as: 'alice' });
  expect(p.status).toBe(201);
  return p.body;
}

describe('labels of a new project', () => {
  it('lists them as labels.json has them: CVAT colours, attributes, a skeleton with its points and drawing', async () => {
    const project = await projectWithLabels();
    expect(project.labels).toEqual({ url: `${h.url}/api/labels?project_id=1` });
    const res = await h.get('/api/labels?project_id=1', { as: 'alice' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      count: 3,
      next: null,
      previous: null,
      results: [
        {
          id: 1,
          name: 'car',
          color: '#2080c0',
          attributes: [
            {
              id: 1,
              name: 'model',
              mutable: false,
              input_type: 'select',
              default_value: 'mazda',
              values: ['mazda', 'volvo', 'bmw'],
            },
          ],
          type: 'any',
          sublabels: [],
          project_id: 1,
          parent_id: null,
          has_parent: false,
        },
        {
          id: 2,
          name: 'person',
          color: '#c06060',
          attributes: [],
          type: 'any',
          sublabels: [],
          project_id: 1,
          parent_id: null,
          has_parent: false,
        },
        {
          id: 3,
          name: 's1',
          color: '#5c5eba',
          attributes: [],
          type: 'skeleton',
          svg: SVG.replace('data-label-name="1"', 'data-label-id="4"').replace(
            'data-label-name="2"',
            'data-label-id="5"',
          ),
          sublabels: [
            { id: 4, name: '1', color: '#d12345', attributes: [], type: 'points', has_parent: true },
            { id: 5, name: '2', color: '#350dea', attributes: [], type: 'points', has_parent: true },
          ],
          project_id: 1,
          parent_id: null,
          has_parent: false,
        },
      ],
    });
  });

  it('retrieves a point as a label of its own, with its parent', async () => {
    await projectWithLabels();
    const res = await h.get('/api/labels/4', { as: 'alice' });
    expect(Label.parse(res.body)).toBeTruthy();
    for (const l of (await h.get('/api/labels', { as: 'alice' })).body.results)
      expect(Label.parse(l)).toBeTruthy();
    expect(res.body).toEqual({
      id: 4,
      name: '1',
      color: '#d12345',
      attributes: [],
      type: 'points',
      sublabels: [],
      project_id: 1,
      parent_id: 3,
      has_parent: true,
    });
  });

  it('answers 400 "All label names must be unique for the project" for a name sent twice', async () => {
    await h.seed(TEAM);
    const res = await h.post(
      '/api/projects',
      { name: 'P', labels: [{ name: 'a' }, { name: 'a' }] },
      { as: 'alice' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ labels: ['All label names must be unique for the project'] });
    expect((await h.get('/api/projects', { as: 'alice' })).body.count).toBe(0);
  });

  it("answers DRF's nested errors, one entry per label, for bad labels", async () => {
    await h.seed(TEAM);
    const res = await h.post(
      '/api/tasks',
      {
        name: 'T',
        labels: [{ name: 'ok' }, { name: '' }, { name: 'x', attributes: [{ name: 'a' }] }, 'car'],
      },
      { as: 'alice' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      labels: [
        {},
        { name: ['This field may not be blank.'] },
        {
          attributes: [
            {
              mutable: ['This field is required.'],
              input_type: ['This field is required.'],
              values: ['This field is required.'],
            },
          ],
        },
        { non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] },
      ],
    });
    const notList = await h.post('/api/tasks', { name: 'T', labels: { name: 'car' } }, { as: 'alice' });
    expect(notList.body).toEqual({
      labels: { non_field_errors: ['Expected a list of items but got type "dict".'] },
    });
  });

  it('refuses a task with neither labels nor a project, as TaskWriteSerializer.create does', async () => {
    for (const body of [{ name: 'T' }, { name: 'T', labels: [] }]) {
      const r = await h.post('/api/tasks', body, { as: 'admin' });
      expect(r.status).toBe(400);
      expect(r.body).toEqual(['Label set or project_id must be present']);
    }
    expect((await h.get('/api/tasks', { as: 'admin' })).body.count).toBe(0);
  });

  it('gives a task in a project no labels of its own: it lists the project labels, for its jobs too', async () => {
    await projectWithLabels();
    const both = await h.post(
      '/api/tasks',
      { name: 'T', project_id: 1, labels: [{ name: 'x' }] },
      { as: 'alice' },
    );
    expect(both.status).toBe(400);
    expect(both.body).toEqual(['Project must have only one of Label set or project_id']);
    const t = await h.post('/api/tasks', { name: 'T', project_id: 1 }, { as: 'alice' });
    expect(t.body.labels).toEqual({ url: `${h.url}/api/labels?task_id=1` });
    await h.post(
      '/api/tasks/1/data',
      { image_quality: 70, server_files: ['a.jpg', 'b.jpg'] },
      { as: 'alice' },
    );
    const project = (await h.get('/api/labels?project_id=1', { as: 'alice' })).body.results;
    expect((await h.get('/api/labels?task_id=1', { as: 'alice' })).body.results).toEqual(project);
    const job = (await h.get('/api/jobs?task_id=1', { as: 'alice' })).body.results[0].id;
    expect((await h.get(`/api/labels?job_id=${job}`, { as: 'alice' })).body.results).toEqual(project);
  });
});

describe('labels changed through a task PATCH', () => {
  async function taskWithLabels() {
    await h.seed(TEAM);
    await h.post('/api/tasks', { name: 'T', labels: [{ name: 'cat' }, { name: 'dog' }] }, { as: 'alice' });
  }
  const count = async () => (await h.get('/api/labels?task_id=1', { as: 'alice' })).body.count;

  it('adds a label without id, renames one with id (a new colour), deletes one with deleted: true', async () => {
    await taskWithLabels();
    const added = await h.patch('/api/tasks/1', { labels: [{ name: 'new name' }] }, { as: 'alice' });
    expect(added.status).toBe(200);
    expect(await count()).toBe(3);
    await h.patch('/api/tasks/1', { labels: [{ id: 1, name: 'car' }] }, { as: 'alice' });
    expect((await h.get('/api/labels/1', { as: 'alice' })).body).toMatchObject({
      name: 'car',
      color: '#2080c0',
    });
    const deleted = await h.patch('/api/tasks/1', { labels: [{ id: 2, deleted: true }] }, { as: 'alice' });
    expect(deleted.status).toBe(200);
    expect(await count()).toBe(2);
    expect((await h.get('/api/labels/2', { as: 'alice' })).status).toBe(404);
  });

  it('answers CVAT texts for a duplicate rename, a foreign label id and a deletion without id, changing nothing', async () => {
    await taskWithLabels();
    const dup = await h.patch(
      '/api/tasks/1',
      { labels: [{ name: 'fox' }, { id: 1, name: 'dog' }] },
      { as: 'alice' },
    );
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual(['All label names must be unique']);
    expect(await count()).toBe(2);
    await h.post('/api/tasks', { name: 'U', labels: [{ name: 'other' }] }, { as: 'alice' });
    const foreign = await h.patch('/api/tasks/1', { labels: [{ id: 3, name: 'x' }] }, { as: 'alice' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Not found label with id #3 to change' });
    const noId = await h.patch('/api/tasks/1', { labels: [{ name: 'cat', deleted: true }] }, { as: 'alice' });
    expect(noId.status).toBe(400);
    expect(noId.body).toEqual({ labels: [{ non_field_errors: ['Deleted label must have an ID'] }] });
  });

  it('touches the task and its jobs: their updated_date is the time of the change', async () => {
    await taskWithLabels();
    await h.post(
      '/api/tasks/1/data',
      { image_quality: 70, server_files: ['a.jpg', 'b.jpg'] },
      { as: 'alice' },
    );
    await h.advance('1h');
    const t = await h.patch('/api/tasks/1', { labels: [{ name: 'dog2' }] }, { as: 'alice' });
    expect(t.body.updated_date).toBe('2026-01-01T01:00:00Z');
    for (const j of (await h.get('/api/jobs?task_id=1', { as: 'alice' })).body.results)
      expect(j.updated_date).toBe(t.body.updated_date);
    await h.advance('1h');
    await h.del('/api/labels/1', { as: 'alice' });
    expect((await h.get('/api/tasks/1', { as: 'alice' })).body.updated_date).toBe('2026-01-01T02:00:00Z');
  });
});

describe('labels changed through a project PATCH (test_projects.py TestPatchProjectLabel)', () => {
  it('adds, renames and deletes project labels; its task lists them as they are', async () => {
    await projectWithLabels();
    await h.post('/api/tasks', { name: 'T', project_id: 1 }, { as: 'alice' });
    const count = async () => (await h.get('/api/labels?task_id=1', { as: 'alice' })).body.count;
    expect(
      (await h.patch('/api/projects/1', { labels: [{ name: 'new name' }] }, { as: 'alice' })).status,
    ).toBe(200);
    expect(await count()).toBe(4);
    expect(
      (await h.patch('/api/projects/1', { labels: [{ id: 2, name: 'car' }] }, { as: 'alice' })).body,
    ).toEqual(['All label names must be unique']);
    expect(
      (await h.patch('/api/projects/1', { labels: [{ id: 1, deleted: true }] }, { as: 'alice' })).status,
    ).toBe(200);
    expect(await count()).toBe(3);
    const twice = await h.patch(
      '/api/projects/1',
      { labels: [{ name: 'x' }, { name: 'x' }] },
      { as: 'alice' },
    );
    expect(twice.body).toEqual({ labels: ['All label names must be unique for the project'] });
  });

  it("moves a task into a project only when the project has each of its labels, then drops the task's own", async () => {
    await projectWithLabels();
    await h.post('/api/tasks', { name: 'T', labels: [{ name: 'zebra' }] }, { as: 'alice' });
    const refused = await h.patch('/api/tasks/1', { project_id: 1 }, { as: 'alice' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(['Target project does not have label with name "zebra"']);
    await h.patch('/api/tasks/1', { labels: [{ id: 6, name: 'car' }] }, { as: 'alice' });
    expect((await h.patch('/api/tasks/1', { project_id: 1 }, { as: 'alice' })).status).toBe(200);
    expect((await h.get('/api/labels/6', { as: 'alice' })).status).toBe(404);
    const listed = (await h.get('/api/labels?task_id=1', { as: 'alice' })).body.results;
    expect(listed.map((l: { id: number }) => l.id)).toEqual([1, 2, 3]);
  });
});

describe('/api/labels', () => {
  it('answers 400 when job_id, task_id and project_id are mixed', async () => {
    await projectWithLabels();
    const res = await h.get('/api/labels?project_id=1&task_id=1', { as: 'alice' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(["'job_id', 'task_id' and 'project_id' parameters cannot be used together"]);
  });

  it('patches a field: a name (with its colour), a colour, an appended attribute, a free-text type', async () => {
    await projectWithLabels();
    const renamed = await h.patch('/api/labels/2', { name: 'modified' }, { as: 'alice' });
    expect(renamed.body).toMatchObject({ name: 'modified', color: '#8e593d' });
    const colored = await h.patch('/api/labels/2', { color: '#2000c0' }, { as: 'alice' });
    expect(colored.body.color).toBe('#2000c0');
    const attr = {
      name: 'model_new',
      input_type: 'select',
      mutable: true,
      values: ['mazda_new', 'bmw'],
      default_value: 'mazda_new',
    };
    const withAttr = await h.patch('/api/labels/1', { attributes: [attr] }, { as: 'alice' });
    expect(withAttr.body.attributes.map((a: { name: string }) => a.name)).toEqual(['model', 'model_new']);
    expect(withAttr.body.attributes[1]).toEqual({ id: 2, ...attr });
    expect((await h.patch('/api/labels/2', { type: 'bbox' }, { as: 'alice' })).body.type).toBe('bbox');
    // Changing skeletons is not supported: the type stays.
    expect((await h.patch('/api/labels/2', { type: 'skeleton' }, { as: 'alice' })).body.type).toBe('bbox');
  });

  it('answers 400 for a duplicate name, a point changed or deleted directly, and deleted: true', async () => {
    await projectWithLabels();
    const dup = await h.patch('/api/labels/1', { name: 'person' }, { as: 'alice' });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual(['All label names must be unique']);
    const point = await h.patch('/api/labels/4', { name: 'x' }, { as: 'alice' });
    expect(point.body).toEqual([
      'Sublabels cannot be modified this way. Please send a PATCH request with updated parent label data instead.',
    ]);
    const gone = await h.del('/api/labels/4', { as: 'alice' });
    expect(gone.status).toBe(400);
    expect(gone.body).toEqual([
      'Sublabels cannot be deleted this way. Please send a PATCH request with updated parent label data instead.',
    ]);
    const local = await h.patch('/api/labels/1', { deleted: true }, { as: 'alice' });
    expect(local.body).toEqual({
      non_field_errors: [
        'Labels cannot be deleted by updating in this endpoint. Please use the DELETE method instead.',
      ],
    });
  });

  it('deletes a skeleton with its points: 204, then 404', async () => {
    await projectWithLabels();
    expect((await h.del('/api/labels/3', { as: 'alice' })).status).toBe(204);
    expect((await h.get('/api/labels/3', { as: 'alice' })).status).toBe(404);
    expect((await h.get('/api/labels/4', { as: 'alice' })).body).toEqual({
      detail: 'No Label matches the given query.',
    });
    // The points went with their skeleton: two labels are left of five (the world's own table).
    expect((await h.state()).labels).toHaveLength(2);
  });

  it("follows the project's rules: outsiders get 403, org workers see no labels of others' projects", async () => {
    await projectWithLabels();
    expect((await h.get('/api/labels/1', { as: 'outsider' })).status).toBe(403);
    expect((await h.patch('/api/labels/1', { name: 'x' }, { as: 'outsider' })).status).toBe(403);
    expect((await h.get('/api/labels?project_id=1', { as: 'outsider' })).status).toBe(403);
    expect((await h.get('/api/labels', { as: 'outsider' })).body.count).toBe(0);
    expect((await h.get('/api/labels', { as: 'alice' })).body.count).toBe(3);
    await h.post(
      '/api/projects',
      { name: 'Q', labels: [{ name: 'a' }] },
      { as: 'alice', headers: { 'x-organization': 'acme' } },
    );
    const q = { headers: { 'x-organization': 'acme' } };
    expect((await h.get('/api/labels?project_id=2', { as: 'dave', ...q })).status).toBe(403);
    expect((await h.get('/api/labels?project_id=2', { as: 'carol', ...q })).body.count).toBe(1);
    expect((await h.patch('/api/labels/6', { name: 'b' }, { as: 'carol', ...q })).status).toBe(403);
    expect((await h.patch('/api/labels/6', { name: 'b' }, { as: 'bob', ...q })).status).toBe(200);
  });

  it('filters by name and type, as simple filters', async () => {
    await projectWithLabels();
    const byName = await h.get('/api/labels?name=person', { as: 'alice' });
    expect(byName.body.results.map((l: { id: number }) => l.id)).toEqual([2]);
    const byType = await h.get('/api/labels?type=skeleton', { as: 'alice' });
    expect(byType.body.results.map((l: { id: number }) => l.id)).toEqual([3]);
  });
});
