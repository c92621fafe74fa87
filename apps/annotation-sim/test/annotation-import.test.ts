import { unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf } from '../src/domain/events/state';
import { aWebhook } from './support/builders';
import { createHarness, type Harness } from './support/harness';
import { drawn, fileForm, ROAD } from './support/import-files';
import { type Receiver, startReceiver } from './support/receiver';

let h: Harness;
let receivers: Receiver[] = [];
afterEach(async () => {
  h?.close();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

/**
 * Org acme (alice owner, bob maintainer, carol supervisor, dave worker): task 1 "road" (6 frames, jobs of
 * frames 0-2 and 3-5, labels car and person), task 2 "empty" without data, task 3 "attributes" (2 frames,
 * label car with a select and a checkbox attribute).
 */
function world() {
  h = createHarness();
  h.seed({
    ...ROAD,
    tasks: [
      ...(ROAD.tasks ?? []),
      { name: 'empty', owner: 'alice', org: 'acme', labels: [{ name: 'cat' }] },
      {
        name: 'attributes',
        owner: 'alice',
        org: 'acme',
        size: 2,
        labels: [
          {
            name: 'car',
            attributes: [
              {
                name: 'color',
                mutable: false,
                input_type: 'select',
                default_value: 'red',
                values: ['red', 'blue'],
              },
              {
                name: 'parked',
                mutable: true,
                input_type: 'checkbox',
                default_value: 'false',
                values: ['false'],
              },
            ],
          },
        ],
      },
    ],
  });
}

const auth = (user: string) => `Basic ${Buffer.from(`${user}:password`).toString('base64')}`;
const requestPath = (rqId: string) => `/api/requests/${encodeURIComponent(rqId)}`;

/** A raw request as `as` (alice) in org acme: status, headers, the body parsed when it is JSON. */
async function send(
  method: string,
  path: string,
  init: { body?: Uint8Array | string; headers?: Record<string, string>; as?: string } = {},
) {
  const url = new URL(path, 'http://localhost');
  if (!url.searchParams.has('org')) url.searchParams.set('org', 'acme');
  const json: Record<string, string> =
    typeof init.body === 'string' ? { 'content-type': 'application/json' } : {};
  const res = await h.sim.app.request(url.toString(), {
    method,
    headers: { authorization: auth(init.as ?? 'alice'), ...json, ...init.headers },
    body: init.body,
  });
  const text = await res.text();
  const isJson = (res.headers.get('content-type') ?? '').includes('json') && text !== '';
  return { status: res.status, headers: res.headers, body: isJson ? JSON.parse(text) : text };
}

/** A multipart body with the file (as `annotation_file`), as `send` takes it. */
function annotationFile(bytes: Uint8Array, field = 'annotation_file') {
  const form = fileForm(bytes, field);
  return { body: form.body, headers: { 'content-type': form.type } };
}

/** Labels of task 1 by name. */
async function labelIds() {
  const labels = (await send('GET', '/api/labels?task_id=1')).body.results as { id: number; name: string }[];
  const car = labels.find((l) => l.name === 'car');
  const person = labels.find((l) => l.name === 'person');
  if (!car || !person) throw new Error('labels not seeded');
  return { car: car.id, person: person.id };
}

/** Annotations over both jobs of task 1: a tag, a rectangle, a polygon and points. */
async function annotate() {
  const ids = await labelIds();
  const shape = (frame: number, type: string, points: number[], label = ids.person) =>
    drawn(label, frame, type, points);
  const put = await send('PUT', '/api/tasks/1/annotations', {
    body: JSON.stringify({
      version: 0,
      tags: [{ frame: 1, label_id: ids.person, group: 0, source: 'manual', attributes: [] }],
      shapes: [
        shape(0, 'rectangle', [10, 20, 110.5, 220], ids.car),
        shape(2, 'polygon', [1, 1, 50, 1, 25, 40]),
        shape(4, 'points', [5, 5, 6, 6]),
      ],
      tracks: [],
    }),
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return ids;
}

/** An annotations export of `resource` in `format`, downloaded. */
async function exported(resource: string, format: string): Promise<Uint8Array> {
  const started = await send('POST', `/api/${resource}/dataset/export?format=${encodeURIComponent(format)}`);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  h.advance('2s');
  const request = (await send('GET', requestPath(started.body.rq_id))).body;
  expect(request.status).toBe('finished');
  const url = new URL(request.result_url);
  const res = await h.sim.app.request(`${url.pathname}${url.search}&org=acme`, {
    headers: { authorization: auth('alice') },
  });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** What a read gives, without the ids the database gives (CVAT's tests compare so too). */
const withoutIds = (data: { tags: unknown[]; shapes: unknown[]; tracks: unknown[] }) =>
  JSON.parse(JSON.stringify(data), (k, v) => (k === 'id' ? undefined : v));

describe('POST /api/tasks/{id}/annotations (import)', () => {
  it('round-trips an export: the file imported into the emptied task gives back its annotations (test_can_import_annotations)', async () => {
    world();
    await annotate();
    const before = (await send('GET', '/api/tasks/1/annotations')).body;
    const file = await exported('tasks/1', 'CVAT for images 1.1');
    expect(Object.keys(unzipSync(file))).toEqual(['annotations.xml']);
    expect((await send('DELETE', '/api/tasks/1/annotations')).status).toBe(204);

    const upload = annotationFile(file);
    const started = await send('POST', '/api/tasks/1/annotations?format=CVAT%201.1', upload);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toEqual({ rq_id: 'action=import&target=task&target_id=1&subresource=annotations' });

    const request = (await send('GET', requestPath(started.body.rq_id))).body;
    expect(request).toMatchObject({
      status: 'finished',
      message: '',
      id: 'action=import&target=task&target_id=1&subresource=annotations',
      operation: {
        type: 'import:annotations',
        target: 'task',
        project_id: null,
        task_id: 1,
        job_id: null,
        org_id: 1,
        format: null,
        lightweight: null,
      },
      result_url: null,
      result_id: null,
    });
    // What the file gives back, the objects' `source` now "file" (CVAT's XML loader sets it so).
    const after = (await send('GET', '/api/tasks/1/annotations')).body;
    const fromFile = (o: object) => ({ ...o, source: 'file' });
    expect(withoutIds(after)).toEqual(
      withoutIds({ ...before, tags: before.tags.map(fromFile), shapes: before.shapes.map(fromFile) }),
    );
    expect(after.shapes).toHaveLength(3);
  });

  it("round-trips the objects' attribute values", async () => {
    world();
    const label = (await send('GET', '/api/labels?task_id=3')).body.results[0] as {
      id: number;
      attributes: { id: number; name: string }[];
    };
    const spec = (name: string) => label.attributes.find((a) => a.name === name)?.id as number;
    const values = [
      { spec_id: spec('color'), value: 'blue' },
      { spec_id: spec('parked'), value: 'true' },
    ];
    const put = await send('PUT', '/api/tasks/3/annotations', {
      body: JSON.stringify({
        version: 0,
        tags: [{ frame: 1, label_id: label.id, group: 0, source: 'manual', attributes: values }],
        shapes: [{ ...drawn(label.id, 0, 'rectangle', [1, 2, 3, 4]), attributes: values }],
        tracks: [],
      }),
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const file = annotationFile(await exported('tasks/3', 'CVAT for images 1.1'));
    const started = await send('POST', '/api/tasks/3/annotations?format=CVAT%201.1', file);
    const request = (await send('GET', requestPath(started.body.rq_id))).body;
    expect(request.status, request.message).toBe('finished');
    const after = (await send('GET', '/api/tasks/3/annotations')).body;
    const sorted = (a: { spec_id: number }[]) => [...a].sort((x, y) => x.spec_id - y.spec_id);
    expect(sorted(after.shapes[0].attributes)).toEqual(sorted(values));
    expect(sorted(after.tags[0].attributes)).toEqual(sorted(values));
  });

  it('replaces what the task has by default, and adds to it with import_mode=append', async () => {
    world();
    await annotate();
    const file = annotationFile(await exported('tasks/1', 'CVAT for images 1.1'));
    expect((await send('POST', '/api/tasks/1/annotations?format=CVAT%201.1', file)).status).toBe(202);
    expect((await send('GET', '/api/tasks/1/annotations')).body.shapes).toHaveLength(3);
    const append = await send('POST', '/api/tasks/1/annotations?format=CVAT%201.1&import_mode=append', file);
    expect(append.status).toBe(202);
    const data = (await send('GET', '/api/tasks/1/annotations')).body;
    expect(data.shapes).toHaveLength(6);
    expect(data.tags).toHaveLength(2);
  });

  it("refuses CVAT's bad requests before any request is queued", async () => {
    world();
    const file = annotationFile(new Uint8Array([1, 2, 3]));
    type Init = { body?: Uint8Array | string; headers?: Record<string, string> };
    const post = (query: string, init: Init = file, as = 'alice') =>
      send('POST', `/api/tasks/1/annotations${query}`, { ...init, as });
    // The format: missing, unknown, an exporter's name (CVAT reads both XML layouts as "CVAT 1.1").
    expect((await post('')).body).toEqual(["Unknown input format ''"]);
    expect((await post('?format=COCO%202.0')).body).toEqual(["Unknown input format 'COCO 2.0'"]);
    const exportOnly = await post('?format=CVAT%20for%20images%201.1');
    expect([exportOnly.status, exportOnly.body]).toEqual([
      400,
      ["Unknown input format 'CVAT for images 1.1'"],
    ]);
    // The file.
    const none = await post('?format=CVAT%201.1', { body: '{}', headers: {} });
    expect([none.status, none.body]).toEqual([400, { annotation_file: ['No file was submitted.'] }]);
    const wrongField = await post('?format=CVAT%201.1', annotationFile(new Uint8Array([1]), 'task_file'));
    expect(wrongField.body).toEqual({ annotation_file: ['No file was submitted.'] });
    const empty = await post('?format=CVAT%201.1', annotationFile(new Uint8Array()));
    expect(empty.body).toEqual({ annotation_file: ['The submitted file is empty.'] });
    const unknownUpload = await post('?format=CVAT%201.1&filename=2_00000000-0000-4000-8000-000000000000', {
      body: '{}',
      headers: { 'upload-finish': 'true' },
    });
    expect([unknownUpload.status, unknownUpload.body]).toEqual([400, ['No such file were uploaded']]);
    // The other query parameters.
    const mode = await post('?format=CVAT%201.1&import_mode=merge');
    expect([mode.status, mode.body]).toEqual([
      400,
      ["Invalid import_mode='merge'. Allowed: replace, append"],
    ]);
    const location = await post('?format=CVAT%201.1&location=s3');
    expect([location.status, location.body]).toEqual([400, ["'s3' is not a valid Location"]]);
    const noStorage = await post('?format=CVAT%201.1&location=cloud_storage');
    expect(noStorage.body).toEqual([
      'Trying to use undefined cloud storage (cloud_storage_id was not provided)',
    ]);
    const noName = await post('?format=CVAT%201.1&location=cloud_storage&cloud_storage_id=1');
    expect(noName.body).toEqual(['The filename was not specified']);
    const cloud = await post('?format=CVAT%201.1&location=cloud_storage&cloud_storage_id=1&filename=a.zip');
    expect(cloud.status).toBe(501);
    expect(cloud.headers.get('x-sim-reason')).toBe('not-simulated: annotation import from cloud storage');
    const badFlag = await post('?format=CVAT%201.1&conv_mask_to_poly=maybe');
    expect(badFlag.status).toBe(500);
    // The task: without data, unknown, not the caller's to change (import:annotations as update).
    const noData = await send('POST', '/api/tasks/2/annotations?format=CVAT%201.1', file);
    expect([noData.status, noData.body]).toEqual([400, ['This task data has not been initialized yet']]);
    expect((await send('POST', '/api/tasks/9/annotations?format=CVAT%201.1', file)).status).toBe(404);
    const worker = await post('?format=CVAT%201.1', file, 'dave');
    expect([worker.status, worker.body]).toEqual([
      403,
      { detail: 'You do not have permission to perform this action.' },
    ]);
    expect((await post('?format=CVAT%201.1', file, 'bob')).status).toBe(202);
    expect(h.sim.world().journal.list().at(-1)?.operation).toBe('tasks.create_annotations');
  });

  it("fails the request with the reader's exception for a corrupted file, and changes nothing", async () => {
    world();
    await annotate();
    const before = (await send('GET', '/api/tasks/1/annotations')).body;
    const started = await send(
      'POST',
      '/api/tasks/1/annotations?format=CVAT%201.1',
      annotationFile(new Uint8Array([80, 75, 3, 4, 0, 0, 9])),
    );
    expect(started.status).toBe(202);
    const request = (await send('GET', requestPath(started.body.rq_id))).body;
    expect(request.status).toBe('failed');
    expect(request.message).toMatch(/^[\w.]+: .+\n$/s);
    expect(request.result_id).toBeNull();
    expect((await send('GET', '/api/tasks/1/annotations')).body).toEqual(before);
  });

  it('answers 409 {"rq_id"} while the same import is queued or started (handle_existing_job)', async () => {
    world();
    await annotate();
    const file = annotationFile(await exported('tasks/1', 'CVAT for images 1.1'));
    const settings = await send('PATCH', '/_sim/requests/settings', {
      body: JSON.stringify({ taskCreation: '10s' }),
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    const first = await send('POST', '/api/tasks/1/annotations?format=CVAT%201.1', file);
    expect(first.status).toBe(202);
    const second = await send('POST', '/api/tasks/1/annotations?format=CVAT%201.1', file);
    expect([second.status, second.body]).toEqual([409, first.body]);
    // Another target is another request.
    expect((await send('POST', '/api/jobs/1/annotations?format=CVAT%201.1', file)).status).toBe(202);
    h.advance('10s');
    expect((await send('GET', requestPath(first.body.rq_id))).body.status).toBe('finished');
    expect((await send('POST', '/api/tasks/1/annotations?format=CVAT%201.1', file)).status).toBe(202);
  });
});

describe('POST /api/jobs/{id}/annotations (import)', () => {
  it('takes a TUS upload as the SDK sends it, and imports into the job only', async () => {
    world();
    await annotate();
    const file = await exported('jobs/1', 'CVAT for images 1.1');
    expect((await send('DELETE', '/api/tasks/1/annotations')).status).toBe(204);
    const base = '/api/jobs/1/annotations/?format=CVAT%201.1';
    const start = await send('POST', base, { headers: { 'upload-start': 'true' } });
    expect(start.status).toBe(202);
    const created = await send('POST', base, {
      headers: { 'upload-length': String(file.length), 'tus-resumable': '1.0.0' },
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location') ?? '';
    expect(location).toMatch(/^http:\/\/localhost\/api\/jobs\/1\/annotations\/\d+_[0-9a-f-]{36}$/);
    const fileId = created.headers.get('upload-filename') ?? '';
    expect(location.endsWith(fileId)).toBe(true);
    const chunkPath = new URL(location).pathname;
    // Another user's upload is not theirs to send to; the task's directory is not the job's.
    expect((await send('PATCH', chunkPath, { body: file, as: 'bob' })).status).toBe(403);
    expect((await send('HEAD', `/api/tasks/1/annotations/${fileId}`)).status).toBe(404);
    const chunk = await send('PATCH', chunkPath, {
      body: file,
      headers: {
        'upload-offset': '0',
        'content-length': String(file.length),
        'content-type': 'application/offset+octet-stream',
        'tus-resumable': '1.0.0',
      },
    });
    expect(chunk.status).toBe(204);
    expect(chunk.headers.get('upload-offset')).toBe(String(file.length));
    const head = await send('HEAD', chunkPath);
    expect(head.headers.get('upload-offset')).toBe(String(file.length));
    const finished = await send('POST', `${base}&filename=${fileId}`, {
      headers: { 'upload-finish': 'true' },
    });
    expect(finished.status, JSON.stringify(finished.body)).toBe(202);
    expect(finished.body).toEqual({ rq_id: 'action=import&target=job&target_id=1&subresource=annotations' });
    const request = (await send('GET', requestPath(finished.body.rq_id))).body;
    expect(request).toMatchObject({
      status: 'finished',
      operation: { type: 'import:annotations', target: 'job', task_id: 1, job_id: 1, format: null },
    });
    const job1 = (await send('GET', '/api/jobs/1/annotations')).body;
    expect(job1.shapes.map((s: { frame: number; type: string }) => [s.frame, s.type])).toEqual([
      [0, 'rectangle'],
      [2, 'polygon'],
    ]);
    expect(job1.tags).toHaveLength(1);
    expect((await send('GET', '/api/jobs/2/annotations')).body.shapes).toEqual([]);
    // The upload was taken: naming it again is an unknown file.
    const again = await send('POST', `${base}&filename=${fileId}`, { headers: { 'upload-finish': 'true' } });
    expect(again.body).toEqual(['No such file were uploaded']);
  });
});

describe('events, webhooks and faults', () => {
  it("logs import:dataset when queued and the worker's annotation events; webhooks as a PUT's", async () => {
    world();
    await annotate();
    const file = annotationFile(await exported('tasks/1', 'CVAT for images 1.1'));
    const r = await startReceiver({ secret: 'k' });
    receivers.push(r);
    const hook = aWebhook()
      .forOrganization()
      .to(r.url)
      .withSecret('k')
      .withEvents('update:job', 'update:task')
      .build();
    const created = await send('POST', '/api/webhooks', { body: JSON.stringify(hook) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    h.advance('1s');
    const from = eventsOf(h.state()).store.length;
    const started = await send('POST', '/api/tasks/1/annotations?format=CVAT%201.1', {
      ...file,
      headers: { ...file.headers, 'user-agent': 'cvat-sdk/2.73' },
    });
    expect(started.status).toBe(202);
    await h.idle();
    const rows = [...eventsOf(h.state()).store.rows()].slice(from);
    const importRow = rows.find((e) => e.scope === 'import:dataset');
    expect(importRow).toMatchObject({
      task_id: 1,
      job_id: null,
      user_name: 'alice',
      org_slug: 'acme',
      source: 'server',
    });
    expect(JSON.parse(importRow?.payload ?? '{}')).toEqual({
      format: 'CVAT 1.1',
      request: { id: started.headers.get('x-request-id'), user_agent: 'cvat-sdk/2.73' },
    });
    const scopes = rows.map((e) => e.scope);
    expect(scopes).toEqual(expect.arrayContaining(['delete:shapes', 'create:shapes', 'create:tags']));
    expect(scopes.indexOf('import:dataset')).toBeLessThan(scopes.indexOf('delete:shapes'));
    // Both jobs' annotations are deleted before the file's are created.
    expect(scopes.lastIndexOf('delete:shapes')).toBeLessThan(scopes.indexOf('create:shapes'));
    // (job 1 had a rectangle and a polygon: one row per shape type)
    expect(rows.filter((e) => e.scope === 'delete:shapes').map((e) => e.job_id)).toEqual([1, 1, 2]);
    const events = r.requests.map((q) => [
      q.json.event,
      q.json.job?.id ?? q.json.task?.id,
      q.json.sender?.username,
    ]);
    expect(events).toEqual(
      expect.arrayContaining([
        ['update:job', 1, 'alice'],
        ['update:job', 2, 'alice'],
        ['update:task', 1, 'alice'],
      ]),
    );
    // CVAT 2.73 has no completed:request[import:annotations] event to subscribe to.
    const subscribed = await send('POST', '/api/webhooks', {
      body: JSON.stringify(
        aWebhook().forOrganization().to(r.url).withEvents('completed:request[import:annotations]').build(),
      ),
    });
    expect(subscribed.status).toBe(400);
  });

  it('fails with a requestFails rule on tasks.create_annotations and is held by requestDelay', async () => {
    world();
    await annotate();
    const before = (await send('GET', '/api/tasks/1/annotations')).body;
    const file = annotationFile(await exported('tasks/1', 'CVAT for images 1.1'));
    const rule = await send('POST', '/_sim/faults', {
      body: JSON.stringify({
        match: { operation: 'tasks.create_annotations' },
        trigger: { times: 1 },
        effect: { requestFails: { message: 'cvat.apps.dataset_manager.bindings.CvatImportError: boom\n' } },
      }),
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const failed = await send('POST', '/api/tasks/1/annotations?format=CVAT%201.1&import_mode=append', file);
    expect((await send('GET', requestPath(failed.body.rq_id))).body).toMatchObject({
      status: 'failed',
      message: 'cvat.apps.dataset_manager.bindings.CvatImportError: boom\n',
    });
    expect((await send('GET', '/api/tasks/1/annotations')).body).toEqual(before);
    const delay = await send('POST', '/_sim/faults', {
      body: JSON.stringify({
        match: { operation: 'jobs.create_annotations' },
        trigger: { times: 1 },
        effect: { requestDelay: { polls: 1 } },
      }),
    });
    expect(delay.status, JSON.stringify(delay.body)).toBe(201);
    const jobFile = annotationFile(await exported('jobs/2', 'CVAT for images 1.1'));
    const slow = await send('POST', '/api/jobs/2/annotations?format=CVAT%201.1&import_mode=append', jobFile);
    expect(slow.status).toBe(202);
    expect((await send('GET', requestPath(slow.body.rq_id))).body.status).toBe('started');
    expect((await send('GET', requestPath(slow.body.rq_id))).body.status).toBe('finished');
    // Job 2 (frames 3-5) took the points on frame 4 again.
    expect((await send('GET', '/api/jobs/2/annotations')).body.shapes).toHaveLength(2);
  });
});
