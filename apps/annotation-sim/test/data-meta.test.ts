/**
 * `data/meta` of tasks and jobs as CVAT 2.73 answers it (`DataMetaReadSerializer`): the uploaded images'
 * names and sizes read from their headers. Ports CVAT's `tests/python/rest_api/test_tasks.py`
 * `TestGetTaskDataMeta` and `test_can_create_task_with_sorting_method`, `test_jobs.py`
 * `TestGetJobDataMeta`'s read of a job's meta, and the reads of CVAT's SDK (`Task.get_meta`). They run
 * against the built CLI (support/cli-harness.ts): one process for the file, a namespace a test; the image
 * header reader's unit tests need no server.
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { imageSize } from '../src/domain/image-header';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { TEAM } from './support/harness';
import {
  decodedJpegSize,
  decodedPngSize,
  jpegFile,
  jpegWithExif,
  multipartFiles,
  pngFile,
} from './support/images';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

/** Org acme, project 1 owned by alice. */
async function world() {
  await h.seed({ ...TEAM, projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }] });
}

async function newTask(fields: Record<string, unknown> = {}): Promise<number> {
  const task = await h.post('/api/tasks?org=acme', { name: 't', project_id: 1, ...fields }, { as: 'alice' });
  expect(task.status, JSON.stringify(task.body)).toBe(201);
  return task.body.id as number;
}

/** Uploads `files` in one multipart data request, as the SDK does for local files. */
async function upload(id: number, files: { name: string; bytes: Uint8Array }[], fields = {}) {
  const form = multipartFiles(files, { image_quality: '75', ...fields });
  const res = await h.send(
    'POST',
    `/api/tasks/${id}/data/?org=acme`,
    'alice',
    { 'content-type': form.type },
    form.body,
  );
  expect(res.status, await res.clone().text()).toBe(202);
}

const meta = async (path: string) => {
  const res = await h.get(`${path}?org=acme`, { as: 'alice' });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

describe('the image header reader', () => {
  it('reads the size of PNG and JPEG files, with an EXIF segment before the JPEG frame header', () => {
    expect(imageSize(pngFile(33, 17))).toEqual({ width: 33, height: 17 });
    expect(imageSize(jpegFile(40, 24))).toEqual({ width: 40, height: 24 });
    expect(imageSize(jpegWithExif(41, 25, 20_000))).toEqual({ width: 41, height: 25 });
  });

  it('reads the size of GIF, BMP (top-down too) and the three WebP forms from their headers', () => {
    const le = (n: number, bytes: number) => Array.from({ length: bytes }, (_, i) => (n >> (8 * i)) & 0xff);
    const gif = new Uint8Array([...Buffer.from('GIF89a'), ...le(300, 2), ...le(200, 2), 0, 0, 0]);
    expect(imageSize(gif)).toEqual({ width: 300, height: 200 });
    const bmp = (height: number) =>
      new Uint8Array([...Buffer.from('BM'), ...new Array(16).fill(0), ...le(123, 4), ...le(height, 4), 1, 0]);
    expect(imageSize(bmp(45))).toEqual({ width: 123, height: 45 });
    expect(imageSize(bmp(-45 >>> 0))).toEqual({ width: 123, height: 45 });
    const riff = (chunk: string, body: number[]) =>
      new Uint8Array([
        ...Buffer.from('RIFF'),
        ...le(4 + 8 + body.length, 4),
        ...Buffer.from('WEBP'),
        ...Buffer.from(chunk),
        ...le(body.length, 4),
        ...body,
      ]);
    expect(imageSize(riff('VP8X', [0, 0, 0, 0, ...le(639, 3), ...le(479, 3)]))).toEqual({
      width: 640,
      height: 480,
    });
    const lossless = (99 & 0x3fff) | ((49 & 0x3fff) << 14);
    expect(imageSize(riff('VP8L', [0x2f, ...le(lossless, 4), 0]))).toEqual({ width: 100, height: 50 });
    expect(imageSize(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...le(77, 2), ...le(33, 2)]))).toEqual({
      width: 77,
      height: 33,
    });
  });

  it('reads no size from bytes that are not an image or are cut before the size', () => {
    expect(imageSize(new TextEncoder().encode('not an image at all'))).toBeUndefined();
    expect(imageSize(pngFile(33, 17).subarray(0, 20))).toBeUndefined();
    expect(imageSize(jpegWithExif(41, 25, 20_000).subarray(0, 10_000))).toBeUndefined();
  });
});

describe('GET /api/tasks/{id}/data/meta', () => {
  it("lists the uploaded images' names and real sizes in CVAT 2.73's DataMetaRead shape", async () => {
    await world();
    const id = await newTask({ segment_size: 2 });
    await upload(id, [
      { name: 'b.png', bytes: pngFile(30, 20) },
      { name: 'a.jpg', bytes: jpegFile(64, 48) },
      { name: 'c.jpg', bytes: jpegWithExif(17, 9, 3_000) },
    ]);
    const body = await meta(`/api/tasks/${id}/data/meta`);
    const jobs = (await h.get(`/api/jobs?task_id=${id}&sort=id&org=acme`, { as: 'alice' })).body.results;
    expect(Object.keys(body)).toEqual([
      'chapters',
      'chunks_updated_date',
      'chunk_size',
      'size',
      'image_quality',
      'start_frame',
      'stop_frame',
      'frame_filter',
      'frames',
      'deleted_frames',
      'included_frames',
      'storage',
      'cloud_storage_id',
    ]);
    expect(body).toEqual({
      chapters: null,
      chunks_updated_date: jobs[1].created_date,
      chunk_size: 72,
      size: 3,
      image_quality: 75,
      start_frame: 0,
      stop_frame: 2,
      frame_filter: '',
      // CVAT sorts the files by name (sorting_method lexicographical, the default).
      frames: [
        { width: 64, height: 48, name: 'a.jpg', related_files: 0, has_related_context: false },
        { width: 30, height: 20, name: 'b.png', related_files: 0, has_related_context: false },
        { width: 17, height: 9, name: 'c.jpg', related_files: 0, has_related_context: false },
      ],
      deleted_frames: [],
      included_frames: null,
      storage: 'local',
      cloud_storage_id: null,
    });
  });

  // CVAT's test_can_create_task_with_sorting_method: files sent in a perturbed order come back sorted.
  it('applies sorting_method natural to the frames', async () => {
    await world();
    const id = await newTask();
    const names = Array.from({ length: 15 }, (_, i) => `${i}.jpeg`);
    const bytes = jpegFile(8, 8);
    const files = names.map((name) => ({ name, bytes }));
    await upload(id, [...files.slice(5), ...files.slice(0, 5)], { sorting_method: 'natural' });
    const body = await meta(`/api/tasks/${id}/data/meta`);
    expect(body.frames.map((f: { name: string }) => f.name)).toEqual(names);
  });

  it('keeps the order given with sorting_method predefined, and refuses an unknown method', async () => {
    await world();
    const id = await newTask();
    await upload(
      id,
      [
        { name: 'z.png', bytes: pngFile(2, 2) },
        { name: 'a.png', bytes: pngFile(3, 3) },
      ],
      {
        sorting_method: 'predefined',
      },
    );
    expect((await meta(`/api/tasks/${id}/data/meta`)).frames.map((f: { name: string }) => f.name)).toEqual([
      'z.png',
      'a.png',
    ]);
    const other = await newTask();
    const bad = await h.post(
      `/api/tasks/${other}/data/?org=acme`,
      { image_quality: 70, remote_files: ['http://example.com/a.jpg'], sorting_method: 'by-date' },
      { as: 'alice' },
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ sorting_method: ['"by-date" is not a valid choice.'] });
  });

  it('reads sizes from files sent in Upload-Multiple batches and by TUS', async () => {
    await world();
    const id = await newTask();
    const start = await h.send('POST', `/api/tasks/${id}/data/?org=acme`, 'alice', {
      'Upload-Start': 'true',
    });
    expect(start.status).toBe(202);
    const batch = multipartFiles([{ name: 'batch.png', bytes: pngFile(11, 12) }]);
    const multiple = await h.send(
      'POST',
      `/api/tasks/${id}/data/?org=acme`,
      'alice',
      { 'Upload-Multiple': 'true', 'content-type': batch.type },
      batch.body,
    );
    expect(multiple.status).toBe(200);
    const big = jpegWithExif(50, 40, 3_000);
    const created = await h.send('POST', `/api/tasks/${id}/data/?org=acme`, 'alice', {
      'Upload-Length': String(big.length),
      'Upload-Metadata': `filename ${Buffer.from('tus.jpg').toString('base64')}`,
      'Tus-Resumable': '1.0.0',
    });
    expect(created.status).toBe(201);
    const location = new URL(created.headers.get('location') as string).pathname;
    // Two chunks: the header is in the first, the end of the scan in the second.
    const cut = big.length - 200;
    for (const [offset, end] of [
      [0, cut],
      [cut, big.length],
    ] as const) {
      const chunk = await h.send(
        'PATCH',
        `${location}?org=acme`,
        'alice',
        {
          'Upload-Offset': String(offset),
          'content-length': String(end - offset),
          'content-type': 'application/offset+octet-stream',
          'Tus-Resumable': '1.0.0',
        },
        big.subarray(offset, end),
      );
      expect(chunk.status).toBe(204);
    }
    const finish = await h.send(
      'POST',
      `/api/tasks/${id}/data/?org=acme`,
      'alice',
      { 'Upload-Finish': 'true', 'content-type': 'application/json' },
      new TextEncoder().encode(JSON.stringify({ image_quality: 70 })),
    );
    expect(finish.status, await finish.clone().text()).toBe(202);
    expect((await meta(`/api/tasks/${id}/data/meta`)).frames).toEqual([
      { width: 11, height: 12, name: 'batch.png', related_files: 0, has_related_context: false },
      { width: 50, height: 40, name: 'tus.jpg', related_files: 0, has_related_context: false },
    ]);
  });

  it('names remote files by their URL path, at the 640x480 the simulator gives media it never read', async () => {
    await world();
    const id = await newTask();
    const data = await h.post(
      `/api/tasks/${id}/data/?org=acme`,
      {
        image_quality: 70,
        remote_files: ['http://example.com/x/img%201.jpg', 'https://example.com/a.png?sig=1'],
      },
      { as: 'alice' },
    );
    expect(data.status).toBe(202);
    const frames = (await meta(`/api/tasks/${id}/data/meta`)).frames;
    expect(
      frames.map((f: { name: string; width: number; height: number }) => [f.name, f.width, f.height]),
    ).toEqual([
      ['a.png', 640, 480],
      ['img 1.jpg', 640, 480],
    ]);
  });

  // CVAT's TestGetTaskDataMeta.test_cannot_get_data_meta_before_data_upload_is_finished, and a task
  // with no data at all, which the same check of the view refuses.
  it('answers 400 "Data is not uploaded" while the upload is only started, and for a task without data', async () => {
    await world();
    const id = await newTask();
    const noData = await h.get(`/api/tasks/${id}/data/meta?org=acme`, { as: 'alice' });
    expect(noData.status).toBe(400);
    expect(noData.body).toEqual(['Data is not uploaded for the task yet']);
    const start = await h.send('POST', `/api/tasks/${id}/data/?org=acme`, 'alice', {
      'Upload-Start': 'true',
    });
    expect(start.status).toBe(202);
    const task = (await h.get(`/api/tasks/${id}?org=acme`, { as: 'alice' })).body;
    expect(task.data).not.toBeNull();
    expect(task.media_type).toBe('');
    const started = await h.get(`/api/tasks/${id}/data/meta?org=acme`, { as: 'alice' });
    expect(started.status).toBe(400);
    expect(started.text).toContain('Data is not uploaded');
  });

  it('answers 404 for an unknown task and 403 to a user who may not see it', async () => {
    await world();
    const id = await newTask();
    expect((await h.get(`/api/tasks/999/data/meta?org=acme`, { as: 'alice' })).status).toBe(404);
    const outsider = await h.get(`/api/tasks/${id}/data/meta`, { as: 'outsider' });
    expect([403, 404]).toContain(outsider.status);
  });

  it('refuses PATCH data/meta with a 501 naming the operation, changing nothing', async () => {
    await world();
    const id = await newTask();
    await upload(id, [{ name: 'a.png', bytes: pngFile(2, 2) }]);
    const before = await meta(`/api/tasks/${id}/data/meta`);
    const patched = await h.patch(
      `/api/tasks/${id}/data/meta?org=acme`,
      { deleted_frames: [0] },
      { as: 'alice' },
    );
    expect(patched.status).toBe(501);
    expect(patched.headers.get('x-sim-reason')).toBe('not-simulated: tasks_partial_update_data_meta');
    expect(await meta(`/api/tasks/${id}/data/meta`)).toEqual(before);
    const job = (await h.get(`/api/jobs?task_id=${id}&org=acme`, { as: 'alice' })).body.results[0];
    const jobPatch = await h.patch(
      `/api/jobs/${job.id}/data/meta?org=acme`,
      { deleted_frames: [0] },
      { as: 'alice' },
    );
    expect(jobPatch.status).toBe(501);
    expect(jobPatch.headers.get('x-sim-reason')).toBe('not-simulated: jobs_partial_update_data_meta');
  });
});

describe("a task's frames in a snapshot", () => {
  it('keep their names and sizes through export and import into another namespace, and a bad one is refused', async () => {
    await world();
    const id = await newTask();
    await upload(id, [
      { name: 'b.png', bytes: pngFile(30, 20) },
      { name: 'a.jpg', bytes: jpegFile(64, 48) },
    ]);
    const before = await meta(`/api/tasks/${id}/data/meta`);
    const snapshot = (await h.get('/_sim/state')).body;
    const copied = await h.request('PUT', '/_ns/copy/_sim/state', { body: snapshot });
    expect(copied.status, copied.text).toBe(200);
    const after = await h.get(`/_ns/copy/api/tasks/${id}/data/meta?org=acme`, { as: 'alice' });
    expect(after.body).toEqual(before);
    // A frame of a negative width is no frame: the import is refused before the world is replaced.
    const bad = structuredClone(snapshot);
    const task = bad.state.tasks.find(([key]: [number]) => key === id)[1];
    task.frames[0].width = -1;
    const refused = await h.request('PUT', '/_ns/bad/_sim/state', { body: bad });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('frames');
  });
});

describe('GET /api/jobs/{id}/data/meta', () => {
  it("gives each job its segment's frames, start and stop, and its segment's chunks date", async () => {
    await world();
    const id = await newTask({ segment_size: 2 });
    const files = ['f0.png', 'f1.png', 'f2.png', 'f3.png', 'f4.png'].map((name, i) => ({
      name,
      bytes: pngFile(10 + i, 20 + i),
    }));
    await upload(id, files);
    const task = await meta(`/api/tasks/${id}/data/meta`);
    const jobs = (await h.get(`/api/jobs?task_id=${id}&sort=id&org=acme`, { as: 'alice' })).body.results;
    expect(jobs).toHaveLength(3);
    for (const job of jobs) {
      const body = await meta(`/api/jobs/${job.id}/data/meta`);
      expect(body).toEqual({
        ...task,
        chunks_updated_date: job.created_date,
        size: job.stop_frame - job.start_frame + 1,
        start_frame: job.start_frame,
        stop_frame: job.stop_frame,
        frames: task.frames.slice(job.start_frame, job.stop_frame + 1),
      });
    }
    expect((await meta(`/api/jobs/${jobs[2].id}/data/meta`)).frames).toEqual([
      { width: 14, height: 24, name: 'f4.png', related_files: 0, has_related_context: false },
    ]);
  });
});

describe("CVAT's SDK reading a task's media (Task.get_meta, get_frame, get_preview) against the CLI", () => {
  it('uploads images, follows the request, then reads data/meta, a frame and the preview', async () => {
    // The SDK's own requests, with no namespace header: the CLI's default world, its admin seeded.
    const cli = { url: h.url };
    const auth = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` };
    const json = { ...auth, accept: 'application/vnd.cvat+json', 'content-type': 'application/json' };
    const created = await fetch(`${cli.url}/api/tasks`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'sdk', labels: [{ name: 'car' }], segment_size: 1 }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const form = multipartFiles(
      [
        { name: 'img_1.png', bytes: pngFile(320, 240) },
        { name: 'img_0.jpg', bytes: jpegFile(64, 80) },
      ],
      { image_quality: '70' },
    );
    const data = await fetch(`${cli.url}/api/tasks/${id}/data/`, {
      method: 'POST',
      headers: { ...auth, 'content-type': form.type },
      body: form.body,
    });
    expect(data.status).toBe(202);
    const { rq_id } = (await data.json()) as { rq_id: string };
    // `wait_for_completion`: poll the request until it is finished.
    for (let i = 0; ; i++) {
      const request = (await (await fetch(`${cli.url}/api/requests/${rq_id}`, { headers: auth })).json()) as {
        status: string;
      };
      if (request.status === 'finished') break;
      expect(request.status).not.toBe('failed');
      expect(i).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const meta = (await (await fetch(`${cli.url}/api/tasks/${id}/data/meta`, { headers: auth })).json()) as {
      size: number;
      frames: { name: string; width: number; height: number }[];
    };
    expect(meta.size).toBe(2);
    expect(meta.frames.map((f) => [f.name, f.width, f.height])).toEqual([
      ['img_0.jpg', 64, 80],
      ['img_1.png', 320, 240],
    ]);
    const frame = await fetch(`${cli.url}/api/tasks/${id}/data/?type=frame&number=1&quality=original`, {
      headers: auth,
    });
    expect(frame.headers.get('content-type')).toBe('image/png');
    expect(decodedPngSize(new Uint8Array(await frame.arrayBuffer()))).toEqual({ width: 320, height: 240 });
    const preview = await fetch(`${cli.url}/api/tasks/${id}/preview`, { headers: auth });
    expect(decodedJpegSize(new Uint8Array(await preview.arrayBuffer()))).toEqual({ width: 64, height: 80 });
  });
});
