import { TaskRead, TaskReadWithSegments } from '@sims/annotation-schema';
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

/** Org acme, project "acme-p" (id 1) owned by alice, a project webhook on task events to a real receiver. */
async function world(options: Parameters<typeof createHarness>[0] = {}) {
  h = createHarness(options);
  h.seed({ ...TEAM, projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }] });
  const r = await startReceiver();
  receivers.push(r);
  const hook = await h.post(
    '/api/webhooks?org=acme',
    aWebhook().forProject(1).to(r.url).withEvents('create:task', 'update:task', 'delete:task').build(),
    { as: 'alice' },
  );
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  return r;
}

/** Creates a task without data (segment_size 2) in the project, then attaches 5 frames: jobs 0-1, 2-3, 4. */
async function taskWithData() {
  const task = await h.post(
    '/api/tasks?org=acme',
    { name: 't', project_id: 1, segment_size: 2 },
    { as: 'alice' },
  );
  expect(task.status, JSON.stringify(task.body)).toBe(201);
  const files = Array.from({ length: 5 }, (_, i) => `http://example.com/${i}.jpg`);
  const data = await h.post(
    `/api/tasks/${task.body.id}/data/?org=acme`,
    { image_quality: 70, remote_files: files },
    { as: 'alice' },
  );
  expect(data.status, JSON.stringify(data.body)).toBe(202);
  return { created: task.body, id: task.body.id as number };
}

/** The segments seed 2.4 documents, built from the public jobs API (not from the serializer under test). */
async function segmentsFromJobsApi(taskId: number) {
  const jobs = await h.get(`/api/jobs?task_id=${taskId}&sort=id&org=acme`, { as: 'alice' });
  expect(jobs.status).toBe(200);
  return jobs.body.results.map((j: Record<string, unknown>) => ({
    start_frame: j.start_frame,
    stop_frame: j.stop_frame,
    jobs: [{ url: j.url, id: j.id, assignee: j.assignee, status: j.status, stage: j.stage, state: j.state }],
  }));
}

function payloads(r: Receiver, event: string) {
  return r.requests.filter((q) => q.json?.event === event).map((q) => q.json);
}

describe('compat.taskSegments (seed 2.4 task with segments and jobs)', () => {
  it('embeds segments matching the jobs in GET /api/tasks/{id}, right after status', async () => {
    await world({ compat: { taskSegments: true } });
    const { id } = await taskWithData();
    const jobs = await h.get(`/api/jobs?task_id=${id}&sort=id&org=acme`, { as: 'alice' });
    const assigned = await h.patch(
      `/api/jobs/${jobs.body.results[1].id}?org=acme`,
      { assignee: 3, stage: 'validation' },
      { as: 'alice' },
    );
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);

    const got = await h.get(`/api/tasks/${id}?org=acme`, { as: 'alice' });
    expect(got.status).toBe(200);
    expect(TaskReadWithSegments.parse(got.body)).toBeTruthy();
    expect(got.body.segments).toEqual(await segmentsFromJobsApi(id));
    expect(
      got.body.segments.map((s: { start_frame: number; stop_frame: number }) => [
        s.start_frame,
        s.stop_frame,
      ]),
    ).toEqual([
      [0, 1],
      [2, 3],
      [4, 4],
    ]);
    expect(got.body.segments[1].jobs[0]).toEqual({
      url: `http://localhost/api/jobs/${assigned.body.id}`,
      id: assigned.body.id,
      assignee: {
        url: 'http://localhost/api/users/3',
        id: 3,
        username: 'bob',
        first_name: '',
        last_name: '',
      },
      status: 'validation',
      stage: 'validation',
      state: 'new',
    });
    expect(got.body.segments[0].jobs[0].assignee).toBeNull();
    const keys = Object.keys(got.body);
    expect(keys.slice(keys.indexOf('status'), keys.indexOf('status') + 3)).toEqual([
      'status',
      'segments',
      'data_chunk_size',
    ]);
    // The list endpoint renders the same representation.
    const list = await h.get('/api/tasks?org=acme', { as: 'alice' });
    expect(list.body.results[0]).toEqual(got.body);
  });

  it('gives a task without data an empty segments list, in GET and in create:task', async () => {
    const r = await world({ compat: { taskSegments: true } });
    const task = await h.post('/api/tasks?org=acme', { name: 'empty', project_id: 1 }, { as: 'alice' });
    expect(task.status).toBe(201);
    expect(task.body.segments).toEqual([]);
    expect((await h.get(`/api/tasks/${task.body.id}?org=acme`, { as: 'alice' })).body.segments).toEqual([]);
    await h.idle();
    const [created] = payloads(r, 'create:task');
    expect(created.task).toEqual(task.body);
    expect(created.task.segments).toEqual([]);
    expect(TaskReadWithSegments.parse(created.task)).toBeTruthy();
  });

  it('carries the segments of the jobs in update:task payloads, equal to the task as GET returns it', async () => {
    const r = await world({ compat: { taskSegments: true } });
    const { id } = await taskWithData();
    await h.idle();
    // Attaching data saves the task (after the save that gave it its Data object, when the upload
    // started): its update:task already lists the new jobs' segments.
    const [dataStarted, afterData] = payloads(r, 'update:task');
    expect(dataStarted.task.segments).toEqual([]);
    expect(afterData.task.segments).toEqual(await segmentsFromJobsApi(id));
    expect(afterData.task.segments).toHaveLength(3);

    h.advance('1s');
    const job = (await h.get(`/api/jobs?task_id=${id}&sort=id&org=acme`, { as: 'alice' })).body.results[2];
    await h.patch(`/api/jobs/${job.id}?org=acme`, { assignee: 4, state: 'in progress' }, { as: 'alice' });
    const renamed = await h.patch(`/api/tasks/${id}?org=acme`, { name: 'renamed' }, { as: 'alice' });
    expect(renamed.status).toBe(200);
    await h.idle();
    const updates = payloads(r, 'update:task');
    expect(updates).toHaveLength(3);
    const last = updates[2];
    expect(last.task).toEqual(renamed.body);
    expect(last.task).toEqual((await h.get(`/api/tasks/${id}?org=acme`, { as: 'alice' })).body);
    expect(last.task.segments).toEqual(await segmentsFromJobsApi(id));
    expect(last.task.segments[2].jobs[0]).toMatchObject({
      id: job.id,
      state: 'in progress',
      assignee: { id: 4 },
    });
    // `segments` is a representation, not a model field: before_update/changes name only what changed.
    expect(Object.keys(last.before_update)).toEqual(['name', 'updated_date']);
    expect(TaskReadWithSegments.parse(last.task)).toBeTruthy();
  });

  it('keeps the pre-delete segments in delete:task', async () => {
    const r = await world({ compat: { taskSegments: true } });
    const { id } = await taskWithData();
    const expected = await segmentsFromJobsApi(id);
    expect((await h.del(`/api/tasks/${id}?org=acme`, { as: 'alice' })).status).toBe(204);
    await h.idle();
    const [deleted] = payloads(r, 'delete:task');
    expect(deleted.task.segments).toEqual(expected);
  });
});

describe('without compat.taskSegments (CVAT 2.73, the default)', () => {
  it('has no segments in GET /api/tasks/{id} nor in create:task and update:task payloads', async () => {
    const r = await world();
    const { created, id } = await taskWithData();
    await h.patch(`/api/tasks/${id}?org=acme`, { name: 'renamed' }, { as: 'alice' });
    await h.idle();
    const got = await h.get(`/api/tasks/${id}?org=acme`, { as: 'alice' });
    expect(got.body).not.toHaveProperty('segments');
    expect(Object.keys(got.body)).toEqual(Object.keys(TaskRead.shape));
    expect(created).not.toHaveProperty('segments');
    const [createdPayload] = payloads(r, 'create:task');
    expect(createdPayload.task).not.toHaveProperty('segments');
    const updates = payloads(r, 'update:task');
    expect(updates).toHaveLength(3);
    for (const u of updates) expect(u.task).not.toHaveProperty('segments');
    expect(updates[2].task).toEqual(got.body);
    expect(r.requests.every((q) => !q.rawBody.toString('latin1').includes('"segments"'))).toBe(true);
  });
});
