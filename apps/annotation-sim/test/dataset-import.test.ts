/**
 * A project's dataset import (`POST /api/projects/{id}/dataset?format=`), in process. Ports CVAT 2.73's
 * `tests/python/rest_api/test_projects.py` `TestImportExportDatasetProject` tests that need no image
 * decoding: `test_can_import_export_annotations_with_rotation` (export a project, import it into the
 * same project, the new task's shapes equal the old one's), `test_can_import_dataset_in_org`,
 * `test_cant_import_annotations_as_project` ("Dataset file should be zip archive"); and the view's and
 * worker's refusals (`DatasetImporter`, `load_dataset_data`).
 */
import { strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf } from '../src/domain/events/state';
import { requestsOf } from '../src/domain/requests/state';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';
import { fileForm, jpegFile, sendBytes } from './support/images';
import { type Receiver, startReceiver } from './support/receiver';

let h: Harness;
let receivers: Receiver[] = [];
afterEach(async () => {
  h?.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

/**
 * Org acme (alice owner, dave worker): project 1 "acme-p" (car, person) with task 1 "Road t" (3 frames,
 * subset Train) and task 2 "Side" (2 frames, subset Test), and project 2 "empty" (no labels, no tasks).
 */
function world() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [
      { name: 'acme-p', owner: 'alice', org: 'acme', labels: [{ name: 'car' }, { name: 'person' }] },
      { name: 'empty', owner: 'alice', org: 'acme' },
    ],
    tasks: [
      { name: 'Road t', owner: 'alice', project: 'acme-p', size: 3, subset: 'Train' },
      { name: 'Side', owner: 'alice', project: 'acme-p', size: 2, subset: 'Test' },
    ],
  });
}

const requestPath = (rqId: string) => `/api/requests/${encodeURIComponent(rqId)}?org=acme`;
const RQ_ID = (id: number) => `action=import&target=project&target_id=${id}&subresource=dataset`;

async function json(res: Response) {
  const text = await res.text();
  return text !== '' && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}

/** A JSON request as `as` (alice by default) in org acme. */
async function call(method: string, path: string, body?: unknown, as = 'alice') {
  const sep = path.includes('?') ? '&' : '?';
  const res = await sendBytes(
    h,
    method,
    `${path}${sep}org=acme`,
    as,
    body === undefined ? {} : { 'content-type': 'application/json' },
    body === undefined ? undefined : strToU8(JSON.stringify(body)),
  );
  return { status: res.status, body: await json(res) };
}

/** A rectangle on `frame` of label `label`, rotated by `rotation`. */
const box = (frame: number, label: number, rotation = 0) => ({
  type: 'rectangle',
  frame,
  label_id: label,
  points: [10, 20, 110.5, 220],
  rotation,
  occluded: false,
  outside: false,
  z_order: 0,
  group: 0,
  source: 'manual',
  attributes: [],
});

/** Project 1's tasks annotated: a rotated car on task 1's frame 1, a person on task 2's frame 0. */
async function annotate() {
  const labels = (await call('GET', '/api/labels?project_id=1')).body.results as {
    id: number;
    name: string;
  }[];
  const id = (name: string) => labels.find((l) => l.name === name)?.id as number;
  const put = (task: number, shapes: unknown[]) =>
    call('PUT', `/api/tasks/${task}/annotations`, { version: 0, tags: [], shapes, tracks: [] });
  expect((await put(1, [box(1, id('car'), 30)])).status).toBe(200);
  expect((await put(2, [box(0, id('person'))])).status).toBe(200);
}

/** `export_project_dataset(save_images=True)`: export, let the worker run, download. */
async function exportDataset(projectId: number, format: string): Promise<Uint8Array> {
  const started = await call(
    'POST',
    `/api/projects/${projectId}/dataset/export?format=${encodeURIComponent(format)}&save_images=true`,
  );
  expect(started.status).toBe(202);
  h.advance('2s');
  const request = (await call('GET', requestPath(started.body.rq_id))).body;
  expect(request.status).toBe('finished');
  const url = new URL(request.result_url);
  const res = await sendBytes(h, 'GET', `${url.pathname}${url.search}&org=acme`, 'alice', {});
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** `projects_api.create_dataset(id, format, dataset_file_request=…)`: the view's answer. */
async function importDataset(
  projectId: number,
  format: string,
  bytes: Uint8Array,
  opts: { as?: string; filename?: string; query?: string } = {},
) {
  const form = fileForm('dataset_file', opts.filename ?? 'dataset.zip', bytes);
  const res = await sendBytes(
    h,
    'POST',
    `/api/projects/${projectId}/dataset?format=${encodeURIComponent(format)}&org=acme${opts.query ?? ''}`,
    opts.as ?? 'alice',
    form.headers,
    form.body,
  );
  return { status: res.status, body: await json(res) };
}

/** Imports and lets the worker run: the request as `GET /api/requests/{id}` answers it at the end. */
async function imported(projectId: number, format: string, bytes: Uint8Array) {
  const res = await importDataset(projectId, format, bytes);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toEqual({ rq_id: RQ_ID(projectId) });
  h.advance('1s');
  return (await call('GET', requestPath(res.body.rq_id))).body;
}

/** The project's tasks, oldest first. */
const tasksOf = async (projectId: number) =>
  (await call('GET', `/api/tasks?project_id=${projectId}&sort=id`)).body.results as {
    id: number;
    name: string;
    subset: string;
    size: number;
    owner: { username: string };
    organization: number;
  }[];

/** A task's shapes as a round trip compares them: ids and label ids left out, the label's name kept. */
async function shapesOf(taskId: number) {
  const labels = (await call('GET', `/api/labels?task_id=${taskId}`)).body.results as {
    id: number;
    name: string;
  }[];
  const data = (await call('GET', `/api/tasks/${taskId}/annotations`)).body;
  return data.shapes.map(
    (s: { label_id: number; frame: number; points: number[]; rotation: number; type: string }) => ({
      label: labels.find((l) => l.id === s.label_id)?.name,
      frame: s.frame,
      type: s.type,
      points: s.points,
      rotation: s.rotation,
    }),
  );
}

describe('TestImportExportDatasetProject (test_projects.py)', () => {
  it('test_can_import_export_annotations_with_rotation: one new task a subset, its shapes those exported', async () => {
    world();
    await annotate();
    const dataset = await exportDataset(1, 'CVAT for images 1.1');
    const request = await imported(1, 'CVAT 1.1', dataset);
    expect(request).toMatchObject({
      status: 'finished',
      message: '',
      id: RQ_ID(1),
      operation: {
        type: 'import:dataset',
        target: 'project',
        project_id: 1,
        task_id: null,
        job_id: null,
        org_id: 1,
        // `DatasetImporter.build_request_id` renders no format, and the operation reads the id's.
        format: null,
        lightweight: null,
      },
      owner: { username: 'alice' },
      result_url: null,
      result_id: null,
    });
    // CVAT's IMPORT_CACHE_SUCCESS_TTL (1 h).
    expect(Date.parse(request.expiry_date) - Date.parse(request.finished_date)).toBe(3_600_000);
    const tasks = await tasksOf(1);
    // The tasks the project had are kept; a new task a subset, named after it, in the order of the
    // archive's `<subsets>` (the exporter sorts them).
    expect(tasks.map((t) => [t.name, t.subset, t.size])).toEqual([
      ['Road t', 'Train', 3],
      ['Side', 'Test', 2],
      ['Test', 'Test', 2],
      ['Train', 'Train', 3],
    ]);
    const [, , test, train] = tasks;
    expect(train?.owner.username).toBe('alice');
    expect(train?.organization).toBe(1);
    // task1_rotation == task2_rotation
    expect(await shapesOf(train?.id as number)).toEqual(await shapesOf(1));
    expect(await shapesOf(test?.id as number)).toEqual(await shapesOf(2));
    expect((await shapesOf(train?.id as number))[0]).toMatchObject({ rotation: 30, label: 'car' });
    // Frames are the archive's images: their names, and sizes read from their headers.
    const meta = (await call('GET', `/api/tasks/${train?.id}/data/meta`)).body;
    const old = (await call('GET', '/api/tasks/1/data/meta')).body;
    expect(meta.frames).toEqual(old.frames);
    expect(meta.image_quality).toBe(70);
  });

  it("test_can_import_dataset_in_org: a project with no labels takes the dataset's", async () => {
    world();
    await annotate();
    const request = await imported(2, 'CVAT 1.1', await exportDataset(1, 'CVAT for images 1.1'));
    expect(request.status, request.message).toBe('finished');
    const labels = (await call('GET', '/api/labels?project_id=2')).body.results;
    expect(labels.map((l: { name: string; type: string }) => [l.name, l.type])).toEqual([
      ['car', 'any'],
      ['person', 'any'],
    ]);
    const tasks = await tasksOf(2);
    expect(tasks.map((t) => t.name)).toEqual(['Test', 'Train']);
    expect(await shapesOf(tasks[1]?.id as number)).toEqual(await shapesOf(1));
  });

  it.each([
    ['COCO Keypoints 1.0', 'COCO Keypoints 1.0'],
    ['CVAT for images 1.1', 'CVAT 1.1'],
    ['CVAT for video 1.1', 'CVAT 1.1'],
    ['Datumaro 1.0', 'Datumaro 1.0'],
  ])('test_can_export_and_import_dataset_with_skeletons: %s, imported as %s', async (exporter, importer) => {
    h = createHarness();
    h.seed({
      ...TEAM,
      projects: [
        {
          name: 'skel',
          owner: 'alice',
          org: 'acme',
          labels: [
            {
              name: 's1',
              type: 'skeleton',
              sublabels: [
                { name: '1', type: 'points' },
                { name: '2', type: 'points' },
              ],
            },
          ],
        },
      ],
      tasks: [{ name: 'Sk', owner: 'alice', project: 'skel', size: 2 }],
    });
    const labels = (await call('GET', '/api/labels?project_id=1')).body.results as {
      id: number;
      name: string;
      sublabels: { id: number }[];
    }[];
    const s1 = labels.find((l) => l.name === 's1');
    const skeleton = {
      type: 'skeleton',
      frame: 1,
      label_id: s1?.id,
      points: [],
      elements: s1?.sublabels.map((sub, i) => ({
        type: 'points',
        frame: 1,
        label_id: sub.id,
        points: [10 + i, 20 + i],
      })),
    };
    const put = await call('PUT', '/api/tasks/1/annotations', {
      version: 0,
      tags: [],
      shapes: [skeleton],
      tracks: [],
    });
    expect(put.status).toBe(200);
    const request = await imported(1, importer, await exportDataset(1, exporter));
    expect(request.status, request.message).toBe('finished');
    const tasks = await tasksOf(1);
    expect(tasks).toHaveLength(2);
    const data = (await call('GET', `/api/tasks/${tasks[1]?.id}/annotations`)).body;
    expect(data.shapes.length + data.tracks.length).toBe(1);
  });

  it.each(['Datumaro 1.0', 'PASCAL VOC 1.1'])(
    'test_can_import_export_dataset_with_some_format: %s into the project it came from',
    async (format) => {
      world();
      await annotate();
      const request = await imported(1, format, await exportDataset(1, format));
      expect(request.status, request.message).toBe('finished');
      // VOC's `background` is not one of the project's labels: CVAT remaps it away.
      expect((await call('GET', '/api/labels?project_id=1')).body.count).toBe(2);
    },
  );

  it('test_cant_import_annotations_as_project: a file not named .zip is 400', async () => {
    world();
    const xml = strToU8('<?xml version="1.0" encoding="utf-8"?><annotations></annotations>');
    const res = await importDataset(2, 'CVAT 1.1', xml, { filename: 'annotations.xml' });
    expect(res).toEqual({ status: 400, body: { dataset_file: ['Dataset file should be zip archive'] } });
    expect(requestsOf(h.state()).requests.size).toBe(0);
  });
});

describe('the view (DatasetImporter)', () => {
  it('refuses a format it cannot read as unknown, before the file', async () => {
    world();
    for (const format of ['ImageNet 1.0', 'No such 9.9', '']) {
      const res = await importDataset(1, format, strToU8('x'), { filename: 'x.txt' });
      expect(res).toEqual({ status: 400, body: [`Unknown input format '${format}'`] });
    }
  });

  it('answers 409 with the rq_id while an import of the project is under way', async () => {
    world();
    requestsOf(h.state()).settings.taskCreationMs = 5_000;
    const dataset = await exportDataset(1, 'CVAT for images 1.1');
    expect((await importDataset(1, 'CVAT 1.1', dataset)).status).toBe(202);
    expect(await importDataset(1, 'CVAT 1.1', dataset)).toEqual({ status: 409, body: { rq_id: RQ_ID(1) } });
    h.advance('10s');
    expect((await importDataset(1, 'CVAT 1.1', dataset)).status).toBe(202);
  });

  it("reads the project for import:dataset (projects.rego): org staff, or the project's staff who is a member", async () => {
    world();
    const attempt = async (as: string) =>
      (await importDataset(1, 'CVAT 1.1', strToU8('x'), { as, filename: 'x.txt' })).status;
    // Past the permission, the file is refused (its name does not end in .zip).
    expect(await attempt('alice')).toBe(400);
    expect(await attempt('bob')).toBe(400);
    expect(await attempt('carol')).toBe(403);
    expect(await attempt('dave')).toBe(403);
    expect(await attempt('outsider')).toBe(403);
    expect((await call('PATCH', '/api/projects/1', { assignee_id: 5 })).body.assignee?.username).toBe('dave');
    expect(await attempt('dave')).toBe(400);
    expect((await importDataset(99, 'CVAT 1.1', strToU8('x'))).status).toBe(404);
  });

  it('refuses a cloud source (no cloud storages) and an unknown TUS file', async () => {
    world();
    const cloud = await call(
      'POST',
      '/api/projects/1/dataset?format=CVAT%201.1&location=cloud_storage&cloud_storage_id=1&filename=d.zip',
    );
    expect(cloud.status).toBe(501);
    const noFile = await call(
      'POST',
      '/api/projects/1/dataset?format=CVAT%201.1&filename=2_00000000-0000-4000-8000-000000000000',
    );
    expect(noFile).toEqual({ status: 400, body: ['No such file were uploaded'] });
    const bad = await call('POST', '/api/projects/1/dataset?format=CVAT%201.1&location=disk');
    expect(bad).toEqual({ status: 400, body: ["'disk' is not a valid Location"] });
  });

  it('takes a TUS upload (Upload-Start, chunks, Upload-Finish with the file id)', async () => {
    world();
    await annotate();
    const dataset = await exportDataset(1, 'CVAT for images 1.1');
    const url = '/api/projects/2/dataset/';
    const q = '?org=acme&format=CVAT%201.1';
    expect((await sendBytes(h, 'POST', `${url}${q}`, 'alice', { 'Upload-Start': 'true' })).status).toBe(202);
    const created = await sendBytes(h, 'POST', `${url}${q}`, 'alice', {
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(dataset.length),
    });
    expect(created.status).toBe(201);
    const fileId = created.headers.get('upload-filename') as string;
    const location = new URL(created.headers.get('location') as string);
    expect(location.pathname).toBe(`${url}${fileId}`);
    const patched = await sendBytes(
      h,
      'PATCH',
      `${location.pathname}?org=acme`,
      'alice',
      {
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': '0',
        'Content-Type': 'application/offset+octet-stream',
        'Content-Length': String(dataset.length),
      },
      dataset,
    );
    expect(patched.status).toBe(204);
    const finished = await sendBytes(h, 'POST', `${url}${q}&filename=${fileId}`, 'alice', {
      'Upload-Finish': 'true',
    });
    expect(finished.status).toBe(202);
    h.advance('1s');
    const request = (await call('GET', requestPath(((await finished.json()) as { rq_id: string }).rq_id)))
      .body;
    expect(request.status, request.message).toBe('finished');
    expect((await tasksOf(2)).map((t) => t.name)).toEqual(['Test', 'Train']);
  });

  it('logs the import:dataset server event of the project when the request is made', async () => {
    world();
    await annotate();
    const res = await importDataset(1, 'CVAT 1.1', await exportDataset(1, 'CVAT for images 1.1'));
    expect(res.status).toBe(202);
    const rows = [...eventsOf(h.state()).store.rows()].filter((e) => e.scope === 'import:dataset');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: 'server',
      project_id: 1,
      task_id: null,
      job_id: null,
      user_name: 'alice',
      org_id: 1,
      org_slug: 'acme',
      obj_name: null,
    });
    expect(JSON.parse(rows[0]?.payload as string)).toMatchObject({ format: 'CVAT 1.1', request: {} });
  });
});

describe('the worker (import_dataset_as_project)', () => {
  it("fails on a corrupted archive with zipfile's error and makes nothing", async () => {
    world();
    const request = await imported(2, 'CVAT 1.1', strToU8('this is not a zip archive'));
    expect(request).toMatchObject({
      status: 'failed',
      message: 'zipfile.BadZipFile: File is not a zip file\n',
    });
    expect(await tasksOf(2)).toEqual([]);
    // CVAT's IMPORT_CACHE_FAILED_TTL (30 days).
    expect(Date.parse(request.expiry_date) - Date.parse(request.finished_date)).toBe(30 * 86_400_000);
  });

  it("fails when the project lacks one of the dataset's labels (CvatImportError), leaving it as it was", async () => {
    world();
    await annotate();
    const dataset = await exportDataset(1, 'CVAT for images 1.1');
    const other = await call('POST', '/api/projects', { name: 'cars', labels: [{ name: 'car' }] });
    expect(other.status).toBe(201);
    const request = await imported(other.body.id, 'CVAT 1.1', dataset);
    expect(request).toMatchObject({
      status: 'failed',
      message:
        'cvat.apps.dataset_manager.bindings.CvatImportError: Target project does not have label with name "person"\n',
    });
    expect(await tasksOf(other.body.id)).toEqual([]);
  });

  it('refuses masks unless conv_mask_to_poly is false (the simulator does not convert them), as the annotation import does', async () => {
    world();
    const car = (
      (await call('GET', '/api/labels?project_id=1')).body.results as { id: number; name: string }[]
    ).find((l) => l.name === 'car')?.id;
    const mask = { ...box(0, car as number), type: 'mask', points: [0, 4, 10, 10, 11, 11] };
    expect(
      (await call('PUT', '/api/tasks/1/annotations', { version: 0, tags: [], shapes: [mask], tracks: [] }))
        .status,
    ).toBe(200);
    const dataset = await exportDataset(1, 'CVAT for images 1.1');
    const refused = await imported(2, 'CVAT 1.1', dataset);
    expect(refused.status).toBe('failed');
    expect(refused.message).toMatch(
      /^NotImplementedError: annotation-sim does not convert masks to polygons/,
    );
    expect(await tasksOf(2)).toEqual([]);
    const bad = await importDataset(2, 'CVAT 1.1', dataset, { query: '&conv_mask_to_poly=maybe' });
    expect(bad.status).toBe(500);
    const res = await importDataset(2, 'CVAT 1.1', dataset, { query: '&conv_mask_to_poly=false' });
    expect(res.status).toBe(202);
    h.advance('1s');
    const request = (await call('GET', requestPath(res.body.rq_id))).body;
    expect(request.status, request.message).toBe('finished');
    const [task] = (await tasksOf(2)).filter((t) => t.name === 'Train');
    const shapes = (await call('GET', `/api/tasks/${task?.id}/annotations`)).body.shapes;
    expect(shapes.map((s: { type: string; points: number[] }) => [s.type, s.points])).toEqual([
      ['mask', mask.points],
    ]);
  });

  it('fails a subset without images (no media) and makes nothing', async () => {
    world();
    await annotate();
    const started = await call(
      'POST',
      '/api/projects/1/dataset/export?format=CVAT%20for%20images%201.1&save_images=false',
    );
    h.advance('2s');
    const done = (await call('GET', requestPath(started.body.rq_id))).body;
    const url = new URL(done.result_url);
    const annotationsOnly = new Uint8Array(
      await (await sendBytes(h, 'GET', `${url.pathname}${url.search}&org=acme`, 'alice', {})).arrayBuffer(),
    );
    const request = await imported(2, 'CVAT 1.1', annotationsOnly);
    expect(request).toMatchObject({ status: 'failed', message: 'ValueError: No media data found\n' });
    expect(await tasksOf(2)).toEqual([]);
    expect((await call('GET', '/api/labels?project_id=2')).body.count).toBe(0);
  });

  it('names frames by their path under the subset folder, sizes from the image headers', async () => {
    world();
    const xml =
      '<?xml version="1.0" encoding="utf-8"?>\n<annotations>\n<version>1.1</version>\n<meta>\n<project>\n' +
      '<labels>\n<label>\n<name>car</name>\n</label>\n</labels>\n<subsets>valid</subsets>\n</project>\n</meta>\n' +
      '</annotations>\n';
    const archive = zipSync({
      'annotations.xml': strToU8(xml),
      'images/valid/b.jpg': jpegFile(40, 30),
      'images/valid/a.jpg': jpegFile(20, 10),
      'images/valid/notes.txt': strToU8('not an image'),
    });
    const request = await imported(2, 'CVAT 1.1', archive);
    expect(request.status, request.message).toBe('finished');
    const [task] = await tasksOf(2);
    expect(task).toMatchObject({ name: 'valid', subset: 'valid', size: 2 });
    const meta = (await call('GET', `/api/tasks/${task?.id}/data/meta`)).body;
    expect(meta.frames).toEqual([
      { name: 'a.jpg', width: 20, height: 10, related_files: 0, has_related_context: false },
      { name: 'b.jpg', width: 40, height: 30, related_files: 0, has_related_context: false },
    ]);
  });
});

describe('the old GET flows, faults and snapshots', () => {
  it("answers GET …/dataset with CVAT's 410 pages, after the project's permission", async () => {
    world();
    const page = await call('GET', '/api/projects/1/dataset');
    expect(page.status).toBe(410);
    expect(page.body).toContain(
      'To initiate the export process, use POST /api/projects/id/dataset/export?save_images=True.',
    );
    const status = await call('GET', '/api/projects/1/dataset?action=import_status');
    expect(status.status).toBe(410);
    expect(status.body).toContain('no longer supports checking the status of the import process');
    expect((await call('GET', '/api/projects/1/dataset', undefined, 'dave')).status).toBe(403);
    expect((await call('GET', '/api/projects/9/dataset')).status).toBe(404);
  });

  /** A control-plane call (`/_sim…`), its JSON answer. */
  async function control(method: string, path: string, body?: unknown) {
    const res = await h.sim.app.request(`http://localhost/_sim${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return res.json();
  }

  it("fails with a requestFails rule's message; a slow one keeps its archive across a snapshot", async () => {
    world();
    await annotate();
    const dataset = await exportDataset(1, 'CVAT for images 1.1');
    await control('POST', '/faults', {
      match: { operation: 'projects.create_dataset' },
      trigger: { times: 1 },
      effect: { requestFails: { message: 'boom\n' } },
    });
    expect(await imported(2, 'CVAT 1.1', dataset)).toMatchObject({ status: 'failed', message: 'boom\n' });
    expect(await tasksOf(2)).toEqual([]);
    // The uploaded archive is not kept once the request ended.
    const works = [...requestsOf(h.state()).requests.values()].map((r) => r.work);
    expect(works.filter((w) => w.kind === 'import:dataset').map((w) => 'file' in w && w.file)).toEqual(['']);
    await control('POST', '/faults', {
      match: { operation: 'projects.create_dataset' },
      trigger: { times: 1 },
      effect: { requestDelay: { duration: '10s' } },
    });
    const slow = await importDataset(2, 'CVAT 1.1', dataset);
    expect(slow.status).toBe(202);
    const snapshot = await control('GET', '/state');
    await control('POST', '/reset');
    await control('PUT', '/state', snapshot);
    expect((await call('GET', requestPath(slow.body.rq_id))).body.status).toBe('started');
    h.advance('10s');
    expect((await call('GET', requestPath(slow.body.rq_id))).body.status).toBe('finished');
    expect((await tasksOf(2)).map((t) => t.name)).toEqual(['Test', 'Train']);
  });
});

describe('round trips: a project exported, then imported into a project without labels', () => {
  /** Project 1's tasks annotated with upright boxes (what every format here can carry). */
  async function annotateUpright() {
    const labels = (await call('GET', '/api/labels?project_id=1')).body.results as {
      id: number;
      name: string;
    }[];
    const id = (name: string) => labels.find((l) => l.name === name)?.id as number;
    const put = (task: number, shapes: unknown[]) =>
      call('PUT', `/api/tasks/${task}/annotations`, { version: 0, tags: [], shapes, tracks: [] });
    expect((await put(1, [box(1, id('car')), box(2, id('person'))])).status).toBe(200);
    expect((await put(2, [box(0, id('person'))])).status).toBe(200);
  }

  /** Shapes compared across formats that write coordinates as decimals: to a hundredth. */
  const rounded = (shapes: { points: number[] }[]) =>
    shapes.map((s) => ({ ...s, points: s.points.map((v) => Math.round(v * 100) / 100) }));

  it.each([
    ['COCO 1.0', 'COCO 1.0'],
    ['YOLO 1.1', 'YOLO 1.1'],
    ['Ultralytics YOLO Detection 1.0', 'Ultralytics YOLO Detection 1.0'],
    ['CVAT for images 1.1', 'CVAT 1.1'],
    ['Datumaro 1.0', 'Datumaro 1.0'],
  ])(
    '%s exported, imported as %s: a task a subset, the labels, the same shapes',
    async (exporter: string, importer: string) => {
      world();
      await annotateUpright();
      const request = await imported(2, importer, await exportDataset(1, exporter));
      expect(request.status, request.message).toBe('finished');
      const labels = (await call('GET', '/api/labels?project_id=2')).body.results as { name: string }[];
      expect(labels.map((l) => l.name).sort()).toEqual(['car', 'person']);
      const tasks = await tasksOf(2);
      expect(tasks.map((t) => [t.name, t.size])).toEqual([
        ['Test', 2],
        ['Train', 3],
      ]);
      expect(rounded(await shapesOf(tasks[1]?.id as number))).toEqual(rounded(await shapesOf(1)));
      expect(rounded(await shapesOf(tasks[0]?.id as number))).toEqual(rounded(await shapesOf(2)));
    },
  );

  it('CVAT for video 1.1 imported as CVAT 1.1: each task takes the tracks of its subset, frames within it', async () => {
    world();
    await annotateUpright();
    const request = await imported(2, 'CVAT 1.1', await exportDataset(1, 'CVAT for video 1.1'));
    expect(request.status, request.message).toBe('finished');
    const tasks = await tasksOf(2);
    expect(tasks.map((t) => t.name)).toEqual(['Test', 'Train']);
    /** The first keyframe of each track: a shape exported as a track of one frame. */
    const keyframes = async (taskId: number) => {
      const labels = (await call('GET', `/api/labels?task_id=${taskId}`)).body.results as {
        id: number;
        name: string;
      }[];
      const data = (await call('GET', `/api/tasks/${taskId}/annotations`)).body;
      return data.tracks.map(
        (t: { label_id: number; shapes: { frame: number; points: number[]; outside: boolean }[] }) => ({
          label: labels.find((l) => l.id === t.label_id)?.name,
          frame: t.shapes[0]?.frame,
          points: t.shapes[0]?.points,
        }),
      );
    };
    const asKeyframes = async (taskId: number) =>
      (await shapesOf(taskId)).map((s: { label: string; frame: number; points: number[] }) => ({
        label: s.label,
        frame: s.frame,
        points: s.points,
      }));
    expect(await keyframes(tasks[1]?.id as number)).toEqual(await asKeyframes(1));
    expect(await keyframes(tasks[0]?.id as number)).toEqual(await asKeyframes(2));
  });

  it('PASCAL VOC 1.1 (one subset: its items share JPEGImages/ and Annotations/): background among the labels', async () => {
    world();
    await annotateUpright();
    // Two subsets' frames of the same name would be one item of VOC's folders, in CVAT as here.
    expect((await call('DELETE', '/api/tasks/2')).status).toBe(204);
    const request = await imported(2, 'PASCAL VOC 1.1', await exportDataset(1, 'PASCAL VOC 1.1'));
    expect(request.status, request.message).toBe('finished');
    // labelmap.txt names `background`: a project without labels is given it too (`import_labels_to_project`).
    const labels = (await call('GET', '/api/labels?project_id=2')).body.results as { name: string }[];
    expect(labels.map((l) => l.name).sort()).toEqual(['background', 'car', 'person']);
    const tasks = await tasksOf(2);
    expect(tasks.map((t) => [t.name, t.size])).toEqual([['Train', 3]]);
    expect(rounded(await shapesOf(tasks[0]?.id as number))).toEqual(rounded(await shapesOf(1)));
  });
});

describe('webhooks', () => {
  it("sends the new tasks' creations (the project owner's) with the caller as sender, and no completed:request (2.73 has none)", async () => {
    world();
    await annotate();
    const dataset = await exportDataset(1, 'CVAT for images 1.1');
    const r = await startReceiver({ secret: 'k' });
    receivers.push(r);
    const hook = aWebhook().forOrganization().to(r.url).withSecret('k').withEvents('create:task').build();
    expect((await call('POST', '/api/webhooks', hook)).status).toBe(201);
    // bob, a maintainer, imports into alice's project: the tasks are alice's, the changes bob's.
    const res = await importDataset(2, 'CVAT 1.1', dataset, { as: 'bob' });
    expect(res.status).toBe(202);
    h.advance('1s');
    expect((await call('GET', requestPath(res.body.rq_id), undefined, 'bob')).body.status).toBe('finished');
    await h.idle();
    const seen = r.requests.map((q) => [
      q.json.event,
      q.json.task?.name,
      q.json.task?.owner?.username,
      q.json.sender?.username,
    ]);
    expect(seen).toEqual([
      ['create:task', 'Test', 'alice', 'bob'],
      ['create:task', 'Train', 'alice', 'bob'],
    ]);
    const subscribed = await call(
      'POST',
      '/api/webhooks',
      aWebhook().forOrganization().to(r.url).withEvents('completed:request[import:dataset]').build(),
    );
    expect(subscribed.status).toBe(400);
  });
});
