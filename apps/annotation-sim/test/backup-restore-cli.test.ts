/**
 * Backups restored as CVAT's SDK and REST tests restore them, against the built CLI
 * (support/cli-harness.ts: one process for the file, a namespace a test). Ports CVAT 2.73's
 * `tests/python/rest_api/test_tasks.py` `TestTaskBackups` restore tests (`_test_can_restore_task_from_backup`:
 * the new task's data meta and each job's equal the old one's, `chunks_updated_date` aside) through the
 * SDK's `tasks.create_from_backup` upload (Upload-Start, a TUS upload, Upload-Finish with the file id),
 * and `test_projects.py`'s `test_admin_can_get_project_backup_and_create_project_by_backup`
 * (`import_project_backup`: one multipart request).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { TEAM } from './support/harness';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

/** Org acme: project 1 "acme-p" (car, person) with task 1 (5 frames, jobs of 2), task 2 "solo" (3 frames). */
async function world() {
  await h.seed({
    ...TEAM,
    projects: [
      { name: 'acme-p', owner: 'alice', org: 'acme', labels: [{ name: 'car' }, { name: 'person' }] },
    ],
    tasks: [
      { name: 'Road t', owner: 'alice', project: 'acme-p', size: 5, segment_size: 2, subset: 'train' },
      { name: 'solo', owner: 'alice', org: 'acme', size: 3, labels: [{ name: 'cat' }] },
    ],
  });
}

const requestPath = (rqId: string) => `/api/requests/${encodeURIComponent(rqId)}?org=acme`;

/** The request once its worker ended (the clock moved past any delay). */
async function ended(rqId: string) {
  await h.advance('2s');
  const res = await h.get(requestPath(rqId), { as: 'alice' });
  expect(res.status).toBe(200);
  return res.body as { status: string; message: string; result_id: number | null; result_url: string | null };
}

/** `download_backup`: export, wait, download the archive. */
async function downloadBackup(resource: string): Promise<Uint8Array> {
  const started = await h.post(`/api/${resource}/backup/export?org=acme`, undefined, { as: 'alice' });
  expect(started.status).toBe(202);
  const request = await ended(started.body.rq_id);
  expect(request.status).toBe('finished');
  const url = new URL(request.result_url as string);
  const res = await h.send('GET', `${url.pathname}${url.search}&org=acme`, 'alice', {});
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/**
 * `client.tasks.create_from_backup(file)`: the SDK's `Uploader.upload_file` (Upload-Start, a TUS upload
 * in chunks, Upload-Finish with `filename` the upload's `Upload-Filename`), then the request polled; the
 * new task's id.
 */
async function createFromBackup(target: 'task' | 'project', archive: Uint8Array): Promise<number> {
  const url = `/api/${target}s/backup/`;
  expect((await h.send('POST', `${url}?org=acme`, 'alice', { 'Upload-Start': 'true' })).status).toBe(202);
  const created = await h.send('POST', `${url}?org=acme`, 'alice', {
    'Tus-Resumable': '1.0.0',
    'Upload-Length': String(archive.length),
    'Upload-Metadata': `filename ${Buffer.from('backup.zip').toString('base64')}`,
  });
  expect(created.status).toBe(201);
  const fileId = created.headers.get('upload-filename') as string;
  const location = new URL(created.headers.get('location') as string);
  expect(location.pathname).toBe(`${url}${fileId}`);
  const step = Math.ceil(archive.length / 3);
  for (let at = 0; at < archive.length; at += step) {
    const chunk = archive.subarray(at, Math.min(at + step, archive.length));
    const res = await h.send(
      'PATCH',
      `${location.pathname}?org=acme`,
      'alice',
      {
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': String(at),
        'Content-Type': 'application/offset+octet-stream',
      },
      chunk,
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('upload-offset')).toBe(String(at + chunk.length));
  }
  const finished = await h.send('POST', `${url}?org=acme&filename=${fileId}`, 'alice', {
    'Upload-Finish': 'true',
  });
  expect(finished.status).toBe(202);
  const request = await ended(((await finished.json()) as { rq_id: string }).rq_id);
  expect(request.status, request.message).toBe('finished');
  return request.result_id as number;
}

/** A data meta as the test compares it: `chunks_updated_date` must differ, so it is left out. */
async function meta(path: string) {
  const res = await h.get(`${path}/data/meta?org=acme`, { as: 'alice' });
  expect(res.status).toBe(200);
  const { chunks_updated_date: _, ...rest } = res.body;
  return rest;
}

const jobsOf = async (taskId: number) =>
  (
    (await h.get(`/api/jobs?task_id=${taskId}&org=acme`, { as: 'alice' })).body.results as {
      id: number;
      start_frame: number;
    }[]
  ).sort((a, b) => a.start_frame - b.start_frame);

/** `_test_can_restore_task_from_backup`. */
async function canRestoreTaskFromBackup(taskId: number): Promise<number> {
  const newId = await createFromBackup('task', await downloadBackup(`tasks/${taskId}`));
  expect(await meta(`/api/tasks/${newId}`)).toEqual(await meta(`/api/tasks/${taskId}`));
  const oldJobs = await jobsOf(taskId);
  const newJobs = await jobsOf(newId);
  expect(newJobs.length).toBe(oldJobs.length);
  for (const [i, old] of oldJobs.entries()) {
    expect(await meta(`/api/jobs/${newJobs[i]?.id}`)).toEqual(await meta(`/api/jobs/${old.id}`));
  }
  return newId;
}

describe('TestTaskBackups (test_tasks.py)', () => {
  it('test_can_import_backup', async () => {
    await world();
    await canRestoreTaskFromBackup(1);
    await canRestoreTaskFromBackup(2);
  });

  it('test_can_import_backup_for_task_in_nondefault_state', async () => {
    await world();
    for (const id of [1, 2, 3]) {
      expect(
        (await h.patch(`/api/jobs/${id}?org=acme`, { stage: 'validation' }, { as: 'alice' })).status,
      ).toBe(200);
    }
    const newId = await canRestoreTaskFromBackup(1);
    // cvat-ai/cvat#5668: a restored task's `mode` was empty.
    expect((await h.get(`/api/tasks/${newId}?org=acme`, { as: 'alice' })).body.mode).toBe('annotation');
  });
});

describe('TestGetProjectBackup (test_projects.py)', () => {
  it('test_admin_can_get_project_backup_and_create_project_by_backup', async () => {
    await world();
    const backup = await downloadBackup('projects/1');
    // `import_project_backup`: the archive as `project_file` in one multipart request.
    const b = 'sdk-boundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${b}\r\nContent-Disposition: form-data; name="project_file"; filename="dataset.zip"\r\n` +
          'Content-Type: application/zip\r\n\r\n',
      ),
      Buffer.from(backup),
      Buffer.from(`\r\n--${b}--\r\n`),
    ]);
    const res = await h.send(
      'POST',
      '/api/projects/backup?org=acme',
      'alice',
      { 'Content-Type': `multipart/form-data; boundary=${b}` },
      new Uint8Array(body),
    );
    expect(res.status).toBe(202);
    const request = await ended(((await res.json()) as { rq_id: string }).rq_id);
    expect(request.status, request.message).toBe('finished');
    const project = (await h.get(`/api/projects/${request.result_id}?org=acme`, { as: 'alice' })).body;
    expect(project).toMatchObject({ name: 'acme-p', tasks: { count: 1 } });
  });

  it('test_can_get_backup_for_empty_project, restored', async () => {
    await world();
    const empty = await h.post('/api/projects?org=acme', { name: 'empty' }, { as: 'alice' });
    const id = await createFromBackup('project', await downloadBackup(`projects/${empty.body.id}`));
    expect((await h.get(`/api/projects/${id}?org=acme`, { as: 'alice' })).body).toMatchObject({
      name: 'empty',
      tasks: { count: 0 },
    });
  });
});
