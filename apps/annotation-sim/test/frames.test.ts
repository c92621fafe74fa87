import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, TEAM } from './support/harness';
import {
  decodedJpegSize,
  decodedPngSize,
  jpegFile,
  multipartFiles,
  pngFile,
  sendBytes,
} from './support/images';

let h: Harness;
afterEach(() => h?.close());

/** Org acme, project 1 owned by alice, a task of frames a.jpg 64×48, b.png 30×20, c.png 12×34 in jobs 0-1 and 2. */
async function world() {
  h = createHarness();
  h.seed({ ...TEAM, projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }] });
  const task = await h.post(
    '/api/tasks?org=acme',
    { name: 't', project_id: 1, segment_size: 2 },
    { as: 'alice' },
  );
  expect(task.status).toBe(201);
  const id = task.body.id as number;
  const form = multipartFiles(
    [
      { name: 'c.png', bytes: pngFile(12, 34) },
      { name: 'a.jpg', bytes: jpegFile(64, 48) },
      { name: 'b.png', bytes: pngFile(30, 20) },
    ],
    { image_quality: '70' },
  );
  const data = await sendBytes(
    h,
    'POST',
    `/api/tasks/${id}/data/?org=acme`,
    'alice',
    { 'content-type': form.type },
    form.body,
  );
  expect(data.status).toBe(202);
  const jobs = (await h.get(`/api/jobs?task_id=${id}&sort=id&org=acme`, { as: 'alice' })).body.results;
  return { id, jobs: jobs.map((j: { id: number }) => j.id) as [number, number] };
}

const get = (path: string, user = 'alice') => sendBytes(h, 'GET', path, user, {});

async function image(path: string, type = 'image/jpeg') {
  const res = await get(path);
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('content-type')).toBe(type);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return type === 'image/png' ? decodedPngSize(bytes) : decodedJpegSize(bytes);
}

describe('GET /api/jobs/{id}/data?type=frame and /api/tasks/{id}/data?type=frame', () => {
  it("answers each frame as an image of the uploaded image's size, in both qualities", async () => {
    const { id, jobs } = await world();
    for (const quality of ['original', 'compressed']) {
      // The original of a PNG file is a PNG (CVAT answers the file itself); compressed frames are JPEG.
      const png = quality === 'original' ? 'image/png' : 'image/jpeg';
      expect(await image(`/api/tasks/${id}/data/?type=frame&number=0&quality=${quality}&org=acme`)).toEqual({
        width: 64,
        height: 48,
      });
      expect(
        await image(`/api/jobs/${jobs[0]}/data?type=frame&number=1&quality=${quality}&org=acme`, png),
      ).toEqual({
        width: 30,
        height: 20,
      });
      // Job frame numbers are the task's: the second job's first frame is 2.
      expect(
        await image(`/api/jobs/${jobs[1]}/data?type=frame&number=2&quality=${quality}&org=acme`, png),
      ).toEqual({
        width: 12,
        height: 34,
      });
    }
    // `quality` defaults to compressed.
    expect(await image(`/api/tasks/${id}/data?type=frame&number=2&org=acme`)).toEqual({
      width: 12,
      height: 34,
    });
  });

  it("answers CVAT's 400 for a frame outside the task or the job's segment", async () => {
    const { id, jobs } = await world();
    for (const [path, n] of [
      [`/api/tasks/${id}/data/`, 3],
      [`/api/tasks/${id}/data/`, -1],
      [`/api/jobs/${jobs[0]}/data`, 2],
      [`/api/jobs/${jobs[1]}/data`, 1],
    ] as const) {
      const res = await h.get(`${path}?type=frame&number=${n}&quality=original&org=acme`, { as: 'alice' });
      expect(res.status).toBe(400);
      expect(res.body).toBe(`Incorrect requested frame number: ${n}`);
    }
  });

  it("answers the getter's own 400s for a missing or wrong type, number or quality", async () => {
    const { jobs } = await world();
    const ask = async (query: string) =>
      await h.get(`/api/jobs/${jobs[0]}/data?${query}&org=acme`, { as: 'alice' });
    expect((await ask('number=0')).body).toEqual(['Data type not specified or has wrong value']);
    expect((await ask('type=thumbnail&number=0')).body).toEqual([
      'Data type not specified or has wrong value',
    ]);
    expect((await ask('type=frame')).body).toEqual(['Number is not specified']);
    const wrong = await ask('type=frame&number=0&quality=best');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual(['Wrong quality value']);
  });

  it("checks a task's data parameters before it finds the task has no data (then Django's 500)", async () => {
    await world();
    const task = await h.post('/api/tasks?org=acme', { name: 'empty', project_id: 1 }, { as: 'alice' });
    const path = `/api/tasks/${task.body.id}/data/`;
    expect((await h.get(`${path}?number=0&org=acme`, { as: 'alice' })).body).toEqual([
      'Data type not specified or has wrong value',
    ]);
    const noData = await h.get(`${path}?type=frame&number=0&org=acme`, { as: 'alice' });
    expect(noData.status).toBe(500);
    expect(noData.headers.get('x-sim-reason')).toContain('AttributeError');
  });

  it('answers context images with the empty 404 CVAT gives a frame that has none', async () => {
    const { jobs } = await world();
    const res = await get(`/api/jobs/${jobs[0]}/data?type=context_image&number=0&org=acme`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
  });

  it('refuses chunks with a 501 naming the operation', async () => {
    const { id, jobs } = await world();
    const job = await h.get(`/api/jobs/${jobs[0]}/data?type=chunk&number=0&quality=compressed&org=acme`, {
      as: 'alice',
    });
    expect(job.status).toBe(501);
    expect(job.headers.get('x-sim-reason')).toBe('not-simulated: jobs_retrieve_data');
    const task = await h.get(`/api/tasks/${id}/data/?type=chunk&number=0&quality=original&org=acme`, {
      as: 'alice',
    });
    expect(task.status).toBe(501);
    expect(task.headers.get('x-sim-reason')).toBe('not-simulated: tasks_retrieve_data');
  });

  it('keeps frames from users who may not see the job', async () => {
    const { jobs } = await world();
    const res = await h.get(`/api/jobs/${jobs[0]}/data?type=frame&number=0&org=acme`, { as: 'dave' });
    expect(res.status).toBe(403);
  });
});
