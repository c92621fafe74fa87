import { strFromU8, unzipSync } from 'fflate';
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

/**
 * Org acme (alice owner, bob maintainer, …): project 1 "acme-p" (labels car, person) with task 1 "Road
 * t" (5 frames, subset train, jobs 1-3 of frames 0-1, 2-3, 4) and task 2 without data.
 */
function world() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [
      {
        name: 'acme-p',
        owner: 'alice',
        org: 'acme',
        labels: [{ name: 'car', color: '#ff0000' }, { name: 'person' }],
      },
    ],
    tasks: [
      { name: 'Road t', owner: 'alice', project: 'acme-p', size: 5, segment_size: 2, subset: 'train' },
      { name: 'empty', owner: 'alice', org: 'acme' },
    ],
  });
}

const COCO = 'COCO 1.0';
const CVAT = 'CVAT for images 1.1';
const requestPath = (rqId: string) => `/api/requests/${encodeURIComponent(rqId)}`;
const auth = (user: string) =>
  `Basic ${Buffer.from(`${user}:${user === 'admin' ? 'admin' : 'password'}`).toString('base64')}`;

/** `POST /api/<resource>/<kind>/export?…` as `as` (alice by default), in org acme. */
function startExport(
  resource: string,
  kind: 'dataset' | 'backup',
  query: Record<string, string> = {},
  as = 'alice',
) {
  const q = new URLSearchParams({ org: 'acme', ...query });
  return h.post(`/api/${resource}/${kind}/export?${q}`, undefined, { as });
}

/** GET of a download URL (absolute or a path) as `as`: status, headers and the raw bytes. */
async function fetchFile(url: string, as = 'alice') {
  const u = new URL(url, 'http://localhost');
  u.searchParams.set('org', 'acme');
  const res = await h.sim.app.request(u.toString(), { headers: { authorization: auth(as) } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** The archive's files by name (read with fflate, independently of the simulator's writer). */
function unzip(bytes: Uint8Array): Record<string, Uint8Array> {
  return unzipSync(bytes);
}

/** Starts an export, lets it finish on the world clock and answers the finished request. */
async function finishedExport(
  resource: string,
  kind: 'dataset' | 'backup',
  query: Record<string, string> = {},
) {
  const started = await startExport(resource, kind, query);
  expect(started.status, started.text).toBe(202);
  h.advance('2s');
  const request = await h.get(requestPath(started.body.rq_id), { as: 'alice' });
  expect(request.body.status).toBe('finished');
  return request.body as { id: string; result_url: string | null };
}

describe('task dataset export', () => {
  it('runs as a request on the world clock and downloads a COCO zip with images', async () => {
    world();
    const res = await startExport('tasks/1', 'dataset', { format: COCO, save_images: 'true' });
    expect(res.status).toBe(202);
    const rqId = 'action=export&target=task&target_id=1&user_id=2&format=COCO_1~0&subresource=dataset';
    expect(res.body).toEqual({ rq_id: rqId });
    const poll = async () => (await h.get(requestPath(rqId), { as: 'alice' })).body;
    expect(await poll()).toMatchObject({ status: 'started', finished_date: null, result_url: null });
    // The same export again while it runs: 409 with its id.
    const again = await startExport('tasks/1', 'dataset', { format: COCO, save_images: 'true' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ rq_id: rqId });
    h.advance('1999ms');
    expect((await poll()).status).toBe('started');
    h.advance('1ms');
    expect(await poll()).toEqual({
      status: 'finished',
      message: '',
      id: rqId,
      operation: {
        type: 'export:dataset',
        target: 'task',
        project_id: 1,
        task_id: 1,
        job_id: null,
        org_id: 1,
        format: COCO,
        lightweight: null,
      },
      progress: 0,
      created_date: '2026-01-01T00:00:00Z',
      // The worker takes it in the instant it was queued: shown one microsecond later (created < started).
      started_date: '2026-01-01T00:00:00.000001Z',
      finished_date: '2026-01-01T00:00:02Z',
      expiry_date: '2026-01-02T00:00:02Z',
      owner: { id: 2, username: 'alice' },
      result_url:
        'http://localhost/api/tasks/1/dataset/download?rq_id=action%3Dexport%26target%3Dtask%26target_id%3D1%26user_id%3D2%26format%3DCOCO_1~0%26subresource%3Ddataset',
      result_id: null,
    });
    const file = await fetchFile((await poll()).result_url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/zip');
    expect(file.headers.get('content-disposition')).toBe(
      'attachment; filename="task_1_dataset_2026_01_01_00_00_00_coco 1.0.zip"',
    );
    const files = unzip(file.bytes);
    // A task's items are in its subset (CVAT's test_uses_subset_name).
    expect(Object.keys(files)).toEqual([
      'annotations/instances_train.json',
      ...[0, 1, 2, 3, 4].map((f) => `images/train/frame_00000${f}.jpg`),
    ]);
    const coco = JSON.parse(strFromU8(files['annotations/instances_train.json'] as Uint8Array));
    expect(Object.keys(coco)).toEqual(['licenses', 'info', 'categories', 'images', 'annotations']);
    expect(coco.categories).toEqual([
      { id: 1, name: 'car', supercategory: '' },
      { id: 2, name: 'person', supercategory: '' },
    ]);
    expect(coco.images).toHaveLength(5);
    expect(coco.images[4]).toEqual({
      id: 5,
      width: 640,
      height: 480,
      file_name: 'frame_000004.jpg',
      license: 0,
      flickr_url: '',
      coco_url: '',
      date_captured: 0,
    });
    expect(coco.annotations).toEqual([]);
    // The images are JPEG files of the size the annotations give (SOF0: height, then width).
    const jpeg = Buffer.from(files['images/train/frame_000000.jpg'] as Uint8Array);
    expect([jpeg[0], jpeg[1], jpeg[jpeg.length - 2], jpeg[jpeg.length - 1]]).toEqual([
      0xff, 0xd8, 0xff, 0xd9,
    ]);
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    expect([jpeg.readUInt16BE(sof + 5), jpeg.readUInt16BE(sof + 7)]).toEqual([480, 640]);
  });

  it('writes CVAT for images 1.1 annotations.xml without images when save_images is off', async () => {
    world();
    const request = await finishedExport('tasks/1', 'dataset', { format: CVAT });
    expect(request.id).toBe(
      'action=export&target=task&target_id=1&user_id=2&format=CVAT_for_images_1~1&subresource=annotations',
    );
    const file = await fetchFile(request.result_url as string);
    expect(file.headers.get('content-disposition')).toBe(
      'attachment; filename="task_1_annotations_2026_01_01_00_00_00_cvat for images 1.1.zip"',
    );
    const files = unzip(file.bytes);
    expect(Object.keys(files)).toEqual(['annotations.xml']);
    const xml = strFromU8(files['annotations.xml'] as Uint8Array);
    const lines = xml.split('\n');
    expect(lines.slice(0, 7)).toEqual([
      '<?xml version="1.0" encoding="utf-8"?>',
      '<annotations>',
      '  <version>1.1</version>',
      '  <meta>',
      '    <task>',
      '      <id>1</id>',
      '      <name>Road t</name>',
    ]);
    expect(xml).toContain('      <size>5</size>\n      <mode>annotation</mode>');
    expect(xml).toContain('      <created>2026-01-01 00:00:00+00:00</created>');
    expect(xml).toContain(
      '      <subset>train</subset>\n      <start_frame>0</start_frame>\n      <stop_frame>4</stop_frame>',
    );
    expect(xml.match(/<segment>/g)).toHaveLength(3);
    expect(xml).toContain(
      '        <segment>\n          <id>2</id>\n          <start>2</start>\n          <stop>3</stop>\n          <url>http://localhost/api/jobs/2</url>\n        </segment>',
    );
    expect(xml).toContain(
      '      <owner>\n        <username>alice</username>\n        <email>alice@example.com</email>\n      </owner>\n      <assignee></assignee>',
    );
    expect(xml).toContain(
      '        <label>\n          <name>car</name>\n          <color>#ff0000</color>\n          <type>any</type>\n          <attributes>\n          </attributes>\n        </label>',
    );
    expect(xml).toContain('    <dumped>2026-01-01 00:00:02+00:00</dumped>\n  </meta>');
    const images = [
      ...xml.matchAll(/<image id="(\d+)" name="([^"]+)" width="640" height="480">\n {2}<\/image>/g),
    ];
    expect(images.map((m) => [m[1], m[2]])).toEqual(
      [0, 1, 2, 3, 4].map((f) => [String(f), `frame_00000${f}.jpg`]),
    );
    expect(lines.slice(-2)).toEqual(['</annotations>', '']);
  });

  it('takes filename, and exports to cloud storage without a file', async () => {
    world();
    const named = await finishedExport('tasks/1', 'dataset', { format: COCO, filename: 'my "set".zip' });
    const file = await fetchFile(named.result_url as string);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="my \\"set\\".zip"');
    const accented = await finishedExport('tasks/1', 'dataset', { format: CVAT, filename: 'données  1.zip' });
    expect((await fetchFile(accented.result_url as string)).headers.get('content-disposition')).toBe(
      'attachment; filename="donnees 1.zip"; filename*=UTF-8\'\'donn%C3%A9es%201.zip',
    );

    const noId = await startExport('tasks/1', 'dataset', { format: COCO, location: 'cloud_storage' });
    expect(noId.status).toBe(400);
    expect(noId.body).toEqual([
      'Cloud storage location was selected as the destination, but cloud storage id was not specified',
    ]);
    const cloud = await finishedExport('tasks/1', 'dataset', {
      format: CVAT,
      location: 'cloud_storage',
      cloud_storage_id: '3',
    });
    expect(cloud.result_url).toBeNull();
    const refused = await fetchFile(`/api/tasks/1/dataset/download?rq_id=${encodeURIComponent(cloud.id)}`);
    expect(refused.status).toBe(400);
    expect(strFromU8(refused.bytes)).toBe('The export process has no result file to be downloaded locally');
  });
});

describe('job and project dataset exports', () => {
  it('exports a job: its frames only, under <job> meta', async () => {
    world();
    const request = await finishedExport('jobs/2', 'dataset', { format: CVAT, save_images: 'true' });
    expect(request.id).toBe(
      'action=export&target=job&target_id=2&user_id=2&format=CVAT_for_images_1~1&subresource=dataset',
    );
    const answer = (await h.get(requestPath(request.id), { as: 'alice' })).body;
    expect(answer.operation).toMatchObject({ target: 'job', project_id: 1, task_id: 1, job_id: 2 });
    expect(answer.result_url).toMatch(/^http:\/\/localhost\/api\/jobs\/2\/dataset\/download\?rq_id=/);
    const files = unzip((await fetchFile(answer.result_url)).bytes);
    expect(Object.keys(files)).toEqual([
      'annotations.xml',
      'images/frame_000002.jpg',
      'images/frame_000003.jpg',
    ]);
    const xml = strFromU8(files['annotations.xml'] as Uint8Array);
    expect(xml).toContain('  <meta>\n    <job>\n      <id>2</id>');
    expect(xml).toContain('      <size>2</size>');
    expect([...xml.matchAll(/<image id="(\d+)"/g)].map((m) => m[1])).toEqual(['2', '3']);
  });

  it('exports a project: <project> meta with its tasks, images with subset and task_id; COCO per subset', async () => {
    world();
    const cvat = await finishedExport('projects/1', 'dataset', { format: CVAT });
    const xml = strFromU8(
      unzip((await fetchFile(cvat.result_url as string)).bytes)['annotations.xml'] as Uint8Array,
    );
    expect(xml).toContain('  <meta>\n    <project>\n      <id>1</id>\n      <name>acme-p</name>');
    expect(xml).toContain('      <tasks>\n        <task>\n          <id>1</id>');
    expect(xml).toContain(
      '<image id="4" name="frame_000004.jpg" subset="train" task_id="1" width="640" height="480">',
    );
    const coco = await finishedExport('projects/1', 'dataset', { format: COCO, save_images: '1' });
    const file = await fetchFile(coco.result_url as string);
    expect(file.headers.get('content-disposition')).toBe(
      'attachment; filename="project_1_dataset_2026_01_01_00_00_00_coco 1.0.zip"',
    );
    const files = unzip(file.bytes);
    expect(Object.keys(files)[0]).toBe('annotations/instances_train.json');
    expect(Object.keys(files)).toContain('images/train/frame_000004.jpg');
  });
});

describe('backups', () => {
  it('backs up a task: task.json, annotations.json a job, data/ with its frames', async () => {
    world();
    const request = await finishedExport('tasks/1', 'backup');
    expect(request.id).toBe('action=export&target=task&target_id=1&user_id=2&subresource=backup');
    const answer = (await h.get(requestPath(request.id), { as: 'alice' })).body;
    expect(answer.operation).toMatchObject({ type: 'export:backup', format: null, lightweight: null });
    expect(answer.result_url).toBe(
      'http://localhost/api/tasks/1/backup/download?rq_id=action%3Dexport%26target%3Dtask%26target_id%3D1%26user_id%3D2%26subresource%3Dbackup',
    );
    const file = await fetchFile(answer.result_url);
    expect(file.headers.get('content-disposition')).toBe(
      'attachment; filename="task_road t_backup_2026_01_01_00_00_00.zip"',
    );
    const files = unzip(file.bytes);
    expect(Object.keys(files)).toEqual([
      'task.json',
      'annotations.json',
      'data/',
      ...[0, 1, 2, 3, 4].map((f) => `data/frame_00000${f}.jpg`),
    ]);
    const manifest = JSON.parse(strFromU8(files['task.json'] as Uint8Array));
    expect(Object.keys(manifest)).toEqual([
      'name',
      'bug_tracker',
      'status',
      'subset',
      'labels',
      'version',
      'data',
      'jobs',
    ]);
    expect(manifest).toMatchObject({ name: 'Road t', subset: 'train', version: '1.0' });
    expect(manifest.labels.map((l: { name: string }) => l.name)).toEqual(['car', 'person']);
    // `_prepare_label_meta`: LabelSerializer's fields a backup keeps, `svg` for skeletons only.
    expect(manifest.labels[0]).toEqual({
      name: 'car',
      color: '#ff0000',
      attributes: [],
      type: 'any',
      sublabels: [],
    });
    expect(manifest.data).toMatchObject({ image_quality: 70, start_frame: 0, stop_frame: 4 });
    expect(manifest.jobs).toEqual([
      { start_frame: 0, stop_frame: 1, status: 'annotation', type: 'annotation' },
      { start_frame: 2, stop_frame: 3, status: 'annotation', type: 'annotation' },
      { start_frame: 4, stop_frame: 4, status: 'annotation', type: 'annotation' },
    ]);
    expect(JSON.parse(strFromU8(files['annotations.json'] as Uint8Array))).toEqual(
      Array.from({ length: 3 }, () => ({ version: 0, tags: [], shapes: [], tracks: [], intervals: [] })),
    );
  });

  it('backs up a project: project.json and each task with data under task_<index>/; refuses a task without data', async () => {
    world();
    h.seed({ tasks: [{ name: 'no data yet', owner: 'alice', project: 'acme-p' }] });
    const request = await finishedExport('projects/1', 'backup');
    expect(request.id).toBe('action=export&target=project&target_id=1&user_id=2&subresource=backup');
    const files = unzip((await fetchFile(request.result_url as string)).bytes);
    expect(Object.keys(files).slice(0, 4)).toEqual([
      'project.json',
      'task_0/task.json',
      'task_0/annotations.json',
      'task_0/data/',
    ]);
    expect(Object.keys(files).filter((f) => !f.startsWith('task_0/'))).toEqual(['project.json']);
    expect(JSON.parse(strFromU8(files['project.json'] as Uint8Array))).toMatchObject({
      name: 'acme-p',
      version: '1.0',
    });
    const empty = await startExport('tasks/2', 'backup');
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(['Backup of a task without data is not allowed']);
  });
});

describe('export and download errors', () => {
  it('refuses unknown formats, unknown resources and callers who may not view the resource', async () => {
    world();
    for (const format of [undefined, 'LabelMe 3.0', 'coco 1.0']) {
      const res = await startExport('tasks/1', 'dataset', format === undefined ? {} : { format });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(['Unknown format specified for the request']);
    }
    // The location is read before the format is checked.
    const location = await startExport('tasks/1', 'dataset', { format: 'nope', location: 'nowhere' });
    expect(location.body).toEqual(['Unexpected location nowhere specified for the request']);
    expect((await startExport('tasks/99', 'dataset', { format: COCO })).status).toBe(404);
    expect((await startExport('tasks/1', 'dataset', { format: COCO }, 'outsider')).status).toBe(403);
    expect((await startExport('projects/1', 'backup', {}, 'outsider')).status).toBe(403);
  });

  it("answers CVAT's download errors in order, and lets only the owner or an admin download", async () => {
    world();
    const started = await startExport('tasks/1', 'dataset', { format: COCO });
    const rqId = started.body.rq_id as string;
    const get = (query: string, as = 'alice') => fetchFile(`/api/tasks/1/dataset/download${query}`, as);
    const text = (f: { bytes: Uint8Array }) => strFromU8(f.bytes);
    const missing = await get('');
    expect([missing.status, text(missing)]).toEqual([400, '["Missing request id in the query parameters"]']);
    const unexpected = await get(`?rq_id=${encodeURIComponent('action=create&target=task&target_id=1')}`);
    expect([unexpected.status, text(unexpected)]).toEqual([400, '["Unexpected request id format"]']);
    expect((await get('?rq_id=nonsense')).status).toBe(400);
    // Another user's id: 403 before the id is looked at further (the permission reads its user_id).
    expect((await get(`?rq_id=${encodeURIComponent(rqId.replace('user_id=2', 'user_id=3'))}`)).status).toBe(
      403,
    );
    for (const bad of [
      rqId.replace('target_id=1', 'target_id=2'),
      'action=export&target=task&target_id=1&user_id=2&subresource=backup',
    ]) {
      const res = await get(`?rq_id=${encodeURIComponent(bad)}`);
      expect([res.status, text(res)]).toEqual([400, '["Invalid export request id"]']);
    }
    const never = rqId.replace('COCO_1~0', 'CVAT_for_images_1~1');
    const unknown = await get(`?rq_id=${encodeURIComponent(never)}`);
    expect([unknown.status, text(unknown)]).toEqual([400, 'Unknown export request id']);
    const running = await get(`?rq_id=${encodeURIComponent(rqId)}`);
    expect([running.status, text(running)]).toEqual([400, 'The export process is not finished']);
    h.advance('2s');
    expect((await get(`?rq_id=${encodeURIComponent(rqId)}`, 'bob')).status).toBe(403);
    expect((await get(`?rq_id=${encodeURIComponent(rqId)}`, 'admin')).status).toBe(200);
    // A dataset id on the backup download does not match either.
    const backup = await fetchFile(`/api/tasks/1/backup/download?rq_id=${encodeURIComponent(rqId)}`);
    expect([backup.status, text(backup)]).toEqual([400, '["Invalid export request id"]']);
    // After the export cache TTL (24 h) the request is gone.
    h.advance('1d');
    expect(text(await get(`?rq_id=${encodeURIComponent(rqId)}`))).toBe('Unknown export request id');
  });

  it('fails with a requestFails rule: the request tells it, the download is not finished', async () => {
    world();
    const fault = await h.sim.app.request('http://localhost/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({
        match: { operation: 'tasks.create_dataset_export' },
        trigger: { times: 1 },
        effect: { requestFails: { message: 'OSError: [Errno 28] No space left on device\n' } },
      }),
    });
    expect(fault.status).toBe(201);
    const started = await startExport('tasks/1', 'dataset', { format: COCO });
    h.advance('2s');
    const rqId = started.body.rq_id as string;
    expect((await h.get(requestPath(rqId), { as: 'alice' })).body).toMatchObject({
      status: 'failed',
      message: 'OSError: [Errno 28] No space left on device\n',
      expiry_date: '2026-01-02T00:00:02Z',
      result_url: null,
    });
    const res = await fetchFile(`/api/tasks/1/dataset/download?rq_id=${encodeURIComponent(rqId)}`);
    expect(strFromU8(res.bytes)).toBe('The export process is not finished');
    // A failed export can be started again.
    expect((await startExport('tasks/1', 'dataset', { format: COCO })).status).toBe(202);
  });
});

describe('exports as requests', () => {
  it('send completed:request[export:dataset] to a subscribed org webhook with the request as GET answers it', async () => {
    world();
    const r = await startReceiver({ secret: 'k' });
    receivers.push(r);
    const created = await h.post(
      '/api/webhooks?org=acme',
      aWebhook()
        .forOrganization()
        .to(r.url)
        .withSecret('k')
        .withEvents('completed:request[export:dataset]')
        .build(),
      { as: 'alice' },
    );
    expect(created.status, created.text).toBe(201);
    const started = await startExport('tasks/1', 'dataset', { format: COCO, save_images: 'true' });
    // An annotations export is another event.
    await startExport('tasks/1', 'dataset', { format: CVAT });
    h.advance('2s');
    await h.idle();
    expect(r.requests).toHaveLength(1);
    const q = r.requests[0];
    expect(q?.signatureValid).toBe(true);
    expect(Object.keys(q?.json)).toEqual(['event', 'request', 'webhook_id']);
    expect(q?.json.event).toBe('completed:request[export:dataset]');
    expect(q?.json.webhook_id).toBe(created.body.id);
    expect(q?.json.request).toEqual((await h.get(requestPath(started.body.rq_id), { as: 'alice' })).body);
  });

  it('are listed with the subresource, format and target filters', async () => {
    world();
    await startExport('tasks/1', 'dataset', { format: COCO, save_images: 'true' });
    await startExport('tasks/1', 'dataset', { format: CVAT });
    await startExport('jobs/1', 'dataset', { format: COCO });
    await startExport('projects/1', 'backup');
    const ids = async (q: string) =>
      (await h.get(`/api/requests?${q}`, { as: 'alice' })).body.results
        .map((x: { id: string }) => x.id)
        .sort();
    expect(await ids('action=export')).toHaveLength(4);
    expect(await ids('subresource=dataset')).toEqual([
      'action=export&target=task&target_id=1&user_id=2&format=COCO_1~0&subresource=dataset',
    ]);
    expect(await ids('subresource=annotations')).toEqual([
      'action=export&target=job&target_id=1&user_id=2&format=COCO_1~0&subresource=annotations',
      'action=export&target=task&target_id=1&user_id=2&format=CVAT_for_images_1~1&subresource=annotations',
    ]);
    expect(await ids(`format=${encodeURIComponent(COCO)}`)).toHaveLength(2);
    expect(await ids('target=job')).toEqual([
      'action=export&target=job&target_id=1&user_id=2&format=COCO_1~0&subresource=annotations',
    ]);
    expect(await ids('subresource=backup&target=project')).toEqual([
      'action=export&target=project&target_id=1&user_id=2&subresource=backup',
    ]);
    expect((await h.get('/api/requests?action=export', { as: 'bob' })).body.count).toBe(0);
  });

  it('keep a finished archive across a state snapshot, and take the export duration from the settings', async () => {
    world();
    const settings = await h.sim.app.request('http://localhost/_sim/requests/settings', {
      method: 'PATCH',
      body: JSON.stringify({ export: '10s' }),
    });
    expect(await settings.json()).toMatchObject({ export: 10_000 });
    const started = await startExport('tasks/1', 'backup');
    h.advance('9s');
    expect((await h.get(requestPath(started.body.rq_id), { as: 'alice' })).body.status).toBe('started');
    h.advance('1s');
    const before = await fetchFile(
      `/api/tasks/1/backup/download?rq_id=${encodeURIComponent(started.body.rq_id)}`,
    );
    expect(before.status).toBe(200);
    const snapshot = await (await h.sim.app.request('http://localhost/_sim/state')).json();
    await h.sim.app.request('http://localhost/_sim/reset', { method: 'POST' });
    const put = await h.sim.app.request('http://localhost/_sim/state', {
      method: 'PUT',
      body: JSON.stringify(snapshot),
    });
    expect(put.status, await put.clone().text()).toBeLessThan(300);
    const after = await fetchFile(
      `/api/tasks/1/backup/download?rq_id=${encodeURIComponent(started.body.rq_id)}`,
    );
    expect(after.status).toBe(200);
    expect(Buffer.from(after.bytes).equals(Buffer.from(before.bytes))).toBe(true);
  });
});
