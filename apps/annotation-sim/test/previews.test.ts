import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';
import { decodedJpegSize, multipartFiles, pngFile, sendBytes } from './support/images';

let h: Harness;
afterEach(() => h?.close());

function world() {
  h = createHarness();
  h.seed({ ...TEAM, projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }] });
}

async function newTask(assignee?: number): Promise<number> {
  const task = await h.post(
    '/api/tasks?org=acme',
    { name: 't', project_id: 1, segment_size: 1, ...(assignee ? { assignee_id: assignee } : {}) },
    { as: 'alice' },
  );
  expect(task.status).toBe(201);
  return task.body.id as number;
}

async function upload(id: number, sizes: [number, number][]) {
  const form = multipartFiles(
    sizes.map(([w, hgt], i) => ({ name: `${i}.png`, bytes: pngFile(w, hgt) })),
    { image_quality: '70' },
  );
  const res = await sendBytes(
    h,
    'POST',
    `/api/tasks/${id}/data/?org=acme`,
    'alice',
    { 'content-type': form.type },
    form.body,
  );
  expect(res.status).toBe(202);
}

/** CVAT's `_test_task_preview_200`: 200, and an image that opens with a positive size. */
async function preview(path: string, user = 'alice') {
  const res = await sendBytes(h, 'GET', `${path}?org=acme`, user, {});
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/jpeg');
  const size = decodedJpegSize(new Uint8Array(await res.arrayBuffer()));
  expect(size.width > 0 && size.height > 0).toBe(true);
  return size;
}

describe('previews of tasks, jobs and projects', () => {
  it("is the first frame fitted into 256x256, as CVAT's preview, never enlarged", async () => {
    world();
    const big = await newTask();
    await upload(big, [
      [1024, 512],
      [40, 30],
    ]);
    expect(await preview(`/api/tasks/${big}/preview`)).toEqual({ width: 256, height: 128 });
    const small = await newTask();
    await upload(small, [
      [40, 30],
      [300, 900],
    ]);
    expect(await preview(`/api/tasks/${small}/preview`)).toEqual({ width: 40, height: 30 });
    // A job's preview is its own first frame (segment_size 1: one frame a job).
    const jobs = (await h.get(`/api/jobs?task_id=${small}&sort=id&org=acme`, { as: 'alice' })).body.results;
    expect(await preview(`/api/jobs/${jobs[1].id}/preview`)).toEqual({ width: 85, height: 256 });
    // A project's preview is its newest task's.
    expect(await preview('/api/projects/1/preview')).toEqual({ width: 40, height: 30 });
  });

  it("answers CVAT's 404 pages, or the getter's errors, when there is nothing to preview", async () => {
    world();
    const empty = await h.get('/api/projects/1/preview?org=acme', { as: 'alice' });
    expect(empty.status).toBe(404);
    expect(empty.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(empty.text).toBe('Project image preview not found');
    const id = await newTask();
    const task = await h.get(`/api/tasks/${id}/preview?org=acme`, { as: 'alice' });
    expect(task.status).toBe(404);
    expect(task.text).toBe('Task image preview not found');
    // The project's getter reads its newest task's data with no such check: Django's 500.
    const project = await h.get('/api/projects/1/preview?org=acme', { as: 'alice' });
    expect(project.status).toBe(500);
    expect(project.headers.get('x-sim-reason')).toContain('AttributeError');
    // An upload only started makes the Data object but no frame yet: the frame provider's 400.
    await sendBytes(h, 'POST', `/api/tasks/${id}/data/?org=acme`, 'alice', { 'Upload-Start': 'true' });
    for (const path of [
      `/api/tasks/${id}/preview`,
      '/api/projects/1/preview',
      `/api/tasks/${id}/data/?type=preview`,
    ]) {
      const res = await h.get(`${path}${path.includes('?') ? '&' : '?'}org=acme`, { as: 'alice' });
      expect(res.status, path).toBe(400);
      expect(res.body).toBe('Incorrect requested frame number: 0');
    }
  });

  // CVAT's test_task_assigned_to_see_task_preview / test_task_unassigned_cannot_see_task_preview.
  it('shows a task preview to its assignee and refuses an org worker it is not assigned to', async () => {
    world();
    const id = await newTask(5); // dave, a worker of acme
    await upload(id, [[10, 10]]);
    expect(await preview(`/api/tasks/${id}/preview`, 'dave')).toEqual({ width: 10, height: 10 });
    const other = await newTask();
    await upload(other, [[10, 10]]);
    const refused = await h.get(`/api/tasks/${other}/preview?org=acme`, { as: 'dave' });
    expect(refused.status).toBe(403);
  });
});
