/**
 * Labels beyond the API: seeded, kept in snapshots (their own table, checked on import), and logged as
 * CVAT's `create|update|delete:label` server events.
 */
import type { ChildProcess } from 'node:child_process';
import { killAll, startCli } from '@sims/test-support/cli-process';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf } from '../src/domain/events/state';
import { attributeSpec, jobLabels, labelsById } from '../src/domain/label-read';
import type { JobRec, LabelRec, TaskRec } from '../src/domain/model';
import { createHarness, type Harness, TEAM } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

const SEEDED = {
  ...TEAM,
  projects: [
    {
      name: 'P',
      owner: 'alice',
      labels: [
        {
          name: 'car',
          attributes: [{ name: 'parked', input_type: 'checkbox' as const, mutable: true, values: ['false'] }],
        },
        {
          name: 'body',
          type: 'skeleton',
          sublabels: [{ name: 'head' }],
          svg: '<circle data-label-name="head"/>',
        },
      ],
    },
  ],
  tasks: [{ name: 'T', owner: 'alice', labels: [{ name: 'dog', color: '#ff0000' }] }],
};

describe('labels in seeds', () => {
  it('seeds labels with attributes, a skeleton with its points, and a task of its own', async () => {
    h = createHarness();
    h.seed(SEEDED);
    const project = (await h.get('/api/labels?project_id=1', { as: 'alice' })).body.results;
    expect(project.map((l: { name: string; color: string }) => [l.name, l.color])).toEqual([
      ['car', '#2080c0'],
      ['body', expect.stringMatching(/^#[0-9a-f]{6}$/)],
    ]);
    expect(project[0].attributes).toEqual([
      { id: 1, name: 'parked', mutable: true, input_type: 'checkbox', default_value: '', values: ['false'] },
    ]);
    expect(project[1].svg).toBe('<circle data-label-id="3"/>');
    expect(project[1].sublabels).toMatchObject([{ id: 3, name: 'head', type: 'any', has_parent: true }]);
    const task = (await h.get('/api/labels?task_id=1', { as: 'alice' })).body.results;
    expect(task).toMatchObject([{ id: 4, name: 'dog', color: '#ff0000', task_id: 1 }]);
  });

  it("refuses a task in a project with labels of its own, and a name twice, at the seed's path", async () => {
    h = createHarness();
    const inProject = await h.post('/_sim/seed', {
      users: [{ username: 'u' }],
      projects: [{ name: 'P', owner: 'u' }],
      tasks: [{ name: 'T', owner: 'u', project: 'P', labels: [{ name: 'x' }] }],
    });
    expect(inProject.status).toBe(400);
    expect(inProject.text).toContain('seed.tasks.0.labels');
    const twice = await h.post('/_ns/other/_sim/seed', {
      users: [{ username: 'u' }],
      projects: [{ name: 'P', owner: 'u', labels: [{ name: 'x' }, { name: 'x' }] }],
    });
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('All label names must be unique');
  });
});

describe('what annotations read of labels', () => {
  it("answers a job's labels, a task's labels by id with the points, and an attribute spec by id", async () => {
    h = createHarness();
    h.seed({ ...SEEDED, tasks: [...SEEDED.tasks, { name: 'V', owner: 'alice', project: 'P', size: 2 }] });
    const s = h.state();
    const task = s.tasks.get(2) as TaskRec;
    const job = [...s.jobs.values()].find((j) => j.task_id === 2) as JobRec;
    expect(jobLabels(s, job).map((l) => l.name)).toEqual(['car', 'body']);
    const byId = labelsById(s, task);
    expect([...byId.keys()]).toEqual([1, 2, 3]);
    expect(attributeSpec(byId.get(1) as LabelRec, 1)?.name).toBe('parked');
    expect(attributeSpec(byId.get(2) as LabelRec, 1)).toBeUndefined();
    expect([...labelsById(s, s.tasks.get(1) as TaskRec).keys()]).toEqual([4]);
  });
});

describe('labels in snapshots', () => {
  it('exports them as a table of their own and imports them back', async () => {
    h = createHarness();
    h.seed(SEEDED);
    const before = (await h.get('/_sim/state')).body;
    expect(before.state.labels.map(([id]: [number]) => id)).toEqual([1, 2, 3, 4]);
    expect(before.state.labels[2][1]).toEqual({
      id: 3,
      name: 'head',
      color: expect.any(String),
      type: 'any',
      project_id: 1,
      task_id: null,
      parent_id: 2,
      svg: null,
      attributes: [],
    });
    expect(before.state.seq).toMatchObject({ labels: 4, attributes: 1 });
    expect((await h.put('/_ns/copy/_sim/state', before)).status).toBe(200);
    expect((await h.get('/_ns/copy/api/labels/3', { as: 'alice' })).body).toMatchObject({ parent_id: 2 });
  });

  it('refuses a label of both a project and a task, a point under another owner, and a counter behind', async () => {
    h = createHarness();
    h.seed(SEEDED);
    const before = (await h.get('/_sim/state')).body;
    const damaged = (edit: (s: typeof before.state) => void) => {
      const copy = structuredClone(before);
      edit(copy.state);
      return h.put('/_sim/state', copy);
    };
    const both = await damaged((s) => {
      s.labels[0][1].task_id = 1;
    });
    expect(both.status).toBe(400);
    expect(both.body.error.path).toBe('state.labels[0][1].project_id');
    const elsewhere = await damaged((s) => {
      s.labels[3][1].parent_id = 1;
    });
    expect(elsewhere.body.error.path).toBe('state.labels[3][1].parent_id');
    const behind = await damaged((s) => {
      s.seq.attributes = 0;
    });
    expect(behind.body.error.path).toBe('state.seq.attributes');
    expect((await h.get('/_sim/state')).body).toEqual(before);
  });
});

describe('label server events', () => {
  it('logs create:label, an update:label per changed field and delete:label, points first', async () => {
    h = createHarness();
    h.seed(TEAM);
    await h.post(
      '/api/projects',
      { name: 'P', labels: [{ name: 'car' }, { name: 's', type: 'skeleton', sublabels: [{ name: 'p1' }] }] },
      { as: 'alice' },
    );
    await h.patch('/api/labels/1', { name: 'auto', color: '#123456' }, { as: 'alice' });
    await h.del('/api/labels/2', { as: 'alice' });
    const rows = [...eventsOf(h.state()).store.rows()].filter((r) => r.scope.endsWith(':label'));
    expect(rows.map((r) => [r.scope, r.obj_id, r.obj_name, r.obj_val, r.project_id])).toEqual([
      ['create:label', 1, 'car', null, 1],
      ['create:label', 2, 's', null, 1],
      ['create:label', 3, 'p1', null, 1],
      ['update:label', null, 'name', 'auto', 1],
      ['update:label', null, 'color', '#123456', 1],
      ['delete:label', 3, 'p1', null, 1],
      ['delete:label', 2, 's', null, 1],
    ]);
  });
});

describe("CVAT's label tests against the CLI (test_tasks.py TestPatchTaskLabel, test_labels.py TestLabelUpdates)", () => {
  const started = new Set<ChildProcess>();
  afterEach(() => killAll(started));

  it('adds, renames, refuses and deletes task labels, and a project label change touches its tasks and jobs', async () => {
    const cli = await startCli('annotation-sim', ['--port', '0'], started);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${cli.url}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}`,
          'content-type': 'application/json',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
    };
    const count = async (q: string) => (await call('GET', `/api/labels?${q}`)).json.count;
    await call('POST', '/api/tasks', { name: 'T', labels: [{ name: 'car' }, { name: 'person' }] });
    await call('POST', '/api/tasks', { name: 'U', labels: [{ name: 'foreign' }] });
    // test_admin_can_add_skeleton
    const skeleton = {
      name: 'new skeleton',
      type: 'skeleton',
      sublabels: [{ name: '1', type: 'points' }],
      svg: '<circle r="1.5" data-type="element node" data-element-id="1" data-node-id="1" data-label-name="597501"></circle>',
    };
    expect((await call('PATCH', '/api/tasks/1', { labels: [skeleton] })).status).toBe(200);
    expect(await count('task_id=1')).toBe(3);
    // test_can_rename_label, test_cannot_rename_label_to_duplicate_name, test_cannot_add_foreign_label
    const labels = (await call('GET', '/api/labels?task_id=1')).json.results;
    const renamed = { ...labels[0], name: 'new name' };
    expect((await call('PATCH', '/api/tasks/1', { labels: [renamed] })).status).toBe(200);
    expect((await call('GET', '/api/labels?task_id=1')).json.results).toEqual([renamed, ...labels.slice(1)]);
    const dup = await call('PATCH', '/api/tasks/1', { labels: [{ id: labels[0].id, name: labels[1].name }] });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain('All label names must be unique');
    const foreign = await call('PATCH', '/api/tasks/1', { labels: [{ id: 3, name: 'x' }] });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toContain('Not found label with id #3 to change');
    // test_can_delete_skeleton_label
    const skel = labels.find((l: { type: string }) => l.type === 'skeleton');
    expect((await call('PATCH', '/api/tasks/1', { labels: [{ id: skel.id, deleted: true }] })).status).toBe(
      200,
    );
    expect(await count('task_id=1')).toBe(2);
    // TestLabelUpdates: a project's label added, changed or removed touches its tasks and jobs.
    const project = (await call('POST', '/api/projects', { name: 'P', labels: [{ name: 'dog' }] })).json;
    await call('POST', '/api/tasks', { name: 'V', project_id: project.id });
    await call('POST', '/api/tasks/3/data', { image_quality: 70, server_files: ['a.jpg', 'b.jpg'] });
    const dog = (await call('GET', `/api/labels?project_id=${project.id}`)).json.results[0].id;
    for (const change of [
      () => call('PATCH', `/api/projects/${project.id}`, { labels: [{ name: 'dog2' }] }),
      () => call('PATCH', `/api/labels/${dog}`, { name: 'dog-updated' }),
      () => call('DELETE', `/api/labels/${dog}`),
    ]) {
      const before = (await call('GET', `/api/projects/${project.id}`)).json.updated_date;
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await change()).status).toBeLessThan(300);
      const after = (await call('GET', `/api/projects/${project.id}`)).json.updated_date;
      expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
      const tasks = (await call('GET', `/api/tasks?project_id=${project.id}`)).json.results;
      const jobs = (await call('GET', '/api/jobs?task_id=3')).json.results;
      for (const entity of [...tasks, ...jobs]) expect(entity.updated_date).toBe(after);
    }
  }, 30_000);
});
