import { afterEach, describe, expect, it } from 'vitest';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';

let h: Harness;
let receivers: Receiver[] = [];
afterEach(async () => {
  h?.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

/** Org acme, project 1 owned by alice, a project webhook on task events to a real receiver. */
async function world() {
  h = createHarness();
  h.seed({ ...TEAM, projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }] });
  const r = await startReceiver();
  receivers.push(r);
  const hook = await h.post(
    '/api/webhooks?org=acme',
    aWebhook().forProject(1).to(r.url).withEvents('update:task').build(),
    { as: 'alice' },
  );
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  return r;
}

async function newTask(): Promise<number> {
  const task = await h.post(
    '/api/tasks?org=acme',
    { name: 't', project_id: 1, segment_size: 2 },
    { as: 'alice' },
  );
  expect(task.status, JSON.stringify(task.body)).toBe(201);
  return task.body.id as number;
}

/** A task of 5 frames in jobs 0-1, 2-3, 4; returns the task's and the jobs' ids. */
async function taskWithJobs() {
  const id = await newTask();
  const files = Array.from({ length: 5 }, (_, i) => `http://example.com/${i}.jpg`);
  const data = await h.post(
    `/api/tasks/${id}/data/?org=acme`,
    { image_quality: 70, remote_files: files },
    { as: 'alice' },
  );
  expect(data.status, JSON.stringify(data.body)).toBe(202);
  const jobs = await h.get(`/api/jobs?task_id=${id}&sort=id&org=acme`, { as: 'alice' });
  expect(jobs.body.count).toBe(3);
  return { id, jobs: jobs.body.results.map((j: { id: number }) => j.id) as number[] };
}

const taskOf = async (id: number) => (await h.get(`/api/tasks/${id}?org=acme`, { as: 'alice' })).body;
const stage = (job: number, s: string) => h.patch(`/api/jobs/${job}?org=acme`, { stage: s }, { as: 'alice' });
const statusUpdates = (r: Receiver) =>
  r.requests
    .map((q) => q.json)
    .filter((p) => p?.event === 'update:task' && 'status' in (p.before_update ?? {}));

describe('task status follows its jobs (CVAT post_save of Job)', () => {
  it('stays annotation while any job is in annotation, then validation, then completed', async () => {
    const r = await world();
    const { id, jobs } = await taskWithJobs();
    const [a, b, c] = jobs as [number, number, number];
    expect((await taskOf(id)).status).toBe('annotation');

    h.advance('1s');
    await stage(a, 'acceptance');
    await stage(b, 'validation');
    expect((await taskOf(id)).status).toBe('annotation');

    h.advance('1s');
    const before = await taskOf(id);
    expect((await stage(c, 'acceptance')).status).toBe(200);
    const validating = await taskOf(id);
    expect(validating.status).toBe('validation');
    expect(validating.updated_date).not.toBe(before.updated_date);

    h.advance('1s');
    await stage(b, 'acceptance');
    const done = await taskOf(id);
    expect(done.status).toBe('completed');
    expect(done.jobs.completed).toBe(0); // `completed` counts acceptance + state completed, not status.

    await h.idle();
    const updates = statusUpdates(r);
    expect(updates.map((p) => [p.before_update.status, p.task.status])).toEqual([
      ['annotation', 'validation'],
      ['validation', 'completed'],
    ]);
    expect(updates[1].task).toEqual(done);
  });

  it('goes back to annotation when a completed job is reopened', async () => {
    await world();
    const { id, jobs } = await taskWithJobs();
    for (const j of jobs) await stage(j, 'acceptance');
    expect((await taskOf(id)).status).toBe('completed');
    await stage(jobs[0] as number, 'annotation');
    expect((await taskOf(id)).status).toBe('annotation');
  });

  it('does not save the task when a job change leaves its status as it was', async () => {
    const r = await world();
    const { id, jobs } = await taskWithJobs();
    const before = await taskOf(id);
    h.advance('1s');
    await h.patch(`/api/jobs/${jobs[0]}?org=acme`, { state: 'in progress' }, { as: 'alice' });
    expect(await taskOf(id)).toEqual(before);
    await h.idle();
    expect(statusUpdates(r)).toEqual([]);
  });
});

describe('task data is set when an upload starts', () => {
  it('sets task.data at Upload-Start, with update:task, before any file arrives', async () => {
    const r = await world();
    const id = await newTask();
    h.advance('1s');
    const start = await h.request('POST', `/api/tasks/${id}/data/?org=acme`, {
      as: 'alice',
      headers: { 'Upload-Start': 'true' },
    });
    expect(start.status).toBe(202);
    const task = await taskOf(id);
    expect(task.data).toEqual(expect.any(Number));
    expect(task.size).toBe(0);
    await h.idle();
    const updates = r.requests.map((q) => q.json).filter((p) => p?.event === 'update:task');
    expect(updates).toHaveLength(1);
    expect(updates[0].before_update).toEqual({ data_id: null, updated_date: expect.any(String) });
    expect(updates[0].task.data).toBe(task.data);

    // The upload then finishes into the same Data object.
    const finish = await h.request('POST', `/api/tasks/${id}/data/?org=acme`, {
      as: 'alice',
      headers: { 'Upload-Finish': 'true' },
      body: { image_quality: 70, remote_files: ['http://example.com/a.jpg'] },
    });
    expect(finish.status, finish.text).toBe(202);
    const after = await taskOf(id);
    expect(after.data).toBe(task.data);
    expect(after.size).toBe(1);
    const again = await h.request('POST', `/api/tasks/${id}/data/?org=acme`, {
      as: 'alice',
      headers: { 'Upload-Start': 'true' },
    });
    expect(again.status).toBe(400);
    expect(again.body).toBe('Adding more data is not supported');
  });

  it('keeps the Data object of a single data request its serializer refuses', async () => {
    await world();
    const id = await newTask();
    const bad = await h.post(`/api/tasks/${id}/data/?org=acme`, { image_quality: 70 }, { as: 'alice' });
    expect(bad.status).toBe(400);
    const task = await taskOf(id);
    expect(task.data).toEqual(expect.any(Number));
    // An upload may still follow: the Data object has no frames yet.
    const data = await h.post(
      `/api/tasks/${id}/data/?org=acme`,
      { image_quality: 70, remote_files: ['http://example.com/a.jpg'] },
      { as: 'alice' },
    );
    expect(data.status, data.text).toBe(202);
    expect((await taskOf(id)).data).toBe(task.data);
  });
});
