import { strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf } from '../src/domain/events/state';
import { requestsOf } from '../src/domain/requests/state';
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
 * Org acme (alice owner, carol supervisor, dave worker): project 1 "acme-p" (labels car, person) with
 * task 1 "Road t" (5 frames, subset train, jobs of frames 0-1, 2-3, 4), and task 2 "solo" in no project
 * (3 frames, one job, labels cat with an attribute, dog).
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
      { name: 'solo', owner: 'alice', org: 'acme', size: 3, labels: [{ name: 'cat' }, { name: 'dog' }] },
    ],
  });
}

const auth = (user: string) => `Basic ${Buffer.from(`${user}:password`).toString('base64')}`;
const requestPath = (rqId: string) => `/api/requests/${encodeURIComponent(rqId)}`;
const RQ_ID = /^action=import&target=(task|project)&id=[0-9a-f-]{36}&subresource=backup$/;

/** A raw request as `as` in org acme: status, headers, the body parsed when it is JSON. */
async function send(
  method: string,
  path: string,
  init: { body?: Uint8Array; headers?: Record<string, string>; as?: string } = {},
) {
  const url = new URL(path, 'http://localhost');
  if (!url.searchParams.has('org')) url.searchParams.set('org', 'acme');
  const res = await h.sim.app.request(url.toString(), {
    method,
    headers: { authorization: auth(init.as ?? 'alice'), ...init.headers },
    body: init.body,
  });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json') && text !== '';
  return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : text };
}

/** A multipart body with one file part named `field`, as the SDK's `task_file` / `project_file`. */
function multipart(field: string, bytes: Uint8Array): { body: Uint8Array; headers: Record<string, string> } {
  const b = 'backup-boundary-42';
  const body = Buffer.concat([
    Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name="${field}"; filename="backup.zip"\r\n` +
        'Content-Type: application/zip\r\n\r\n',
    ),
    Buffer.from(bytes),
    Buffer.from(`\r\n--${b}--\r\n`),
  ]);
  return { body: new Uint8Array(body), headers: { 'content-type': `multipart/form-data; boundary=${b}` } };
}

/** A backup exported by the simulator and downloaded. */
async function exportedBackup(resource: string): Promise<Uint8Array> {
  const started = await send('POST', `/api/${resource}/backup/export`);
  expect(started.status).toBe(202);
  h.advance('2s');
  const request = await send('GET', requestPath(started.body.rq_id));
  expect(request.body.status).toBe('finished');
  const url = new URL(request.body.result_url);
  const res = await h.sim.app.request(`${url.pathname}${url.search}&org=acme`, {
    headers: { authorization: auth('alice') },
  });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** `POST /api/<target>s/backup` with the archive as one multipart request: the answer. */
const restore = (target: 'task' | 'project', archive: Uint8Array, as = 'alice') =>
  send('POST', `/api/${target}s/backup`, { ...multipart(`${target}_file`, archive), as });

/** Restores and lets the worker run: the request as `GET /api/requests/{id}` answers it at the end. */
async function restored(target: 'task' | 'project', archive: Uint8Array) {
  const res = await restore(target, archive);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.rq_id).toMatch(RQ_ID);
  h.advance('1s');
  return (await send('GET', requestPath(res.body.rq_id))).body;
}

/** A task as a client compares it across a round trip: ids left out. */
async function taskView(id: number) {
  const task = (await send('GET', `/api/tasks/${id}`)).body;
  const labels = (await send('GET', `/api/labels?task_id=${id}`)).body.results;
  const jobs = (await send('GET', `/api/jobs?task_id=${id}&sort=id`)).body.results;
  const meta = (await send('GET', `/api/tasks/${id}/data/meta`)).body;
  return {
    name: task.name,
    subset: task.subset,
    size: task.size,
    segment_size: task.segment_size,
    overlap: task.overlap,
    image_quality: task.image_quality,
    labels: labels.map((l: { name: string; color: string; type: string }) => [l.name, l.color, l.type]),
    jobs: jobs.map((j: { start_frame: number; stop_frame: number; status: string }) => [
      j.start_frame,
      j.stop_frame,
      j.status,
    ]),
    frames: meta.frames,
  };
}

describe('task backup restored (one multipart request)', () => {
  it('comes back as a new task: name, labels (new ids), jobs, frames; result_id is its id', async () => {
    world();
    await send('PATCH', '/api/jobs/4', {
      body: strToU8('{"status":"completed"}'),
      headers: { 'content-type': 'application/json' },
    });
    const archive = await exportedBackup('tasks/2');
    const request = await restored('task', archive);
    expect(request).toMatchObject({
      status: 'finished',
      message: '',
      operation: {
        type: 'import:backup',
        target: 'task',
        project_id: null,
        task_id: null,
        job_id: null,
        org_id: 1,
        format: null,
        lightweight: null,
      },
      owner: { id: 2, username: 'alice' },
      result_url: null,
    });
    // Kept for CVAT's IMPORT_CACHE_SUCCESS_TTL (1 h), not the exports' 24 h.
    expect(Date.parse(request.expiry_date) - Date.parse(request.finished_date)).toBe(3_600_000);
    const newId = request.result_id as number;
    expect(newId).toBe(3);
    expect(await taskView(newId)).toEqual(await taskView(2));
    const newLabels = (await send('GET', `/api/labels?task_id=${newId}`)).body.results.map(
      (l: { id: number }) => l.id,
    );
    const oldLabels = (await send('GET', '/api/labels?task_id=2')).body.results.map(
      (l: { id: number }) => l.id,
    );
    expect(newLabels.filter((id: number) => oldLabels.includes(id))).toEqual([]);
    const task = (await send('GET', `/api/tasks/${newId}`)).body;
    expect(task.organization).toBe(1);
    expect(task.owner.username).toBe('alice');
  });

  it("restores a project's task as a task of its own with the project's labels", async () => {
    world();
    const request = await restored('task', await exportedBackup('tasks/1'));
    const view = await taskView(request.result_id);
    expect(view).toMatchObject({ name: 'Road t', subset: 'train', size: 5, segment_size: 2 });
    expect(view.labels.map((l: string[]) => l[0])).toEqual(['car', 'person']);
    expect(view.jobs).toEqual([
      [0, 1, 'annotation'],
      [2, 3, 'annotation'],
      [4, 4, 'annotation'],
    ]);
    expect((await send('GET', `/api/tasks/${request.result_id}`)).body.project_id).toBeNull();
  });

  it("restores each job's tags, shapes and tracks with the new label and attribute ids", async () => {
    world();
    const manifest = {
      name: 'handmade',
      bug_tracker: '',
      status: 'annotation',
      subset: '',
      labels: [
        {
          name: 'cat',
          color: '#00ff00',
          attributes: [
            {
              name: 'age',
              mutable: false,
              input_type: 'number',
              default_value: '1',
              values: ['1', '9', '1'],
            },
          ],
          type: 'any',
          svg: '',
          sublabels: [],
        },
        { name: 'dog', color: '#0000ff', attributes: [], type: 'any', svg: '', sublabels: [] },
      ],
      version: '1.0',
      data: { chunk_size: 72, image_quality: 70, start_frame: 0, stop_frame: 3, storage: 'local' },
      jobs: [
        { start_frame: 0, stop_frame: 1, status: 'annotation', type: 'annotation' },
        { start_frame: 2, stop_frame: 3, status: 'validation', type: 'annotation' },
      ],
    };
    const shape = {
      type: 'rectangle',
      occluded: false,
      outside: false,
      z_order: 0,
      rotation: 0,
      group: 0,
      source: 'manual',
    };
    const annotations = [
      {
        version: 3,
        tags: [{ id: 77, frame: 0, label: 'dog', group: 0, source: 'manual', attributes: [] }],
        shapes: [
          {
            ...shape,
            id: 78,
            frame: 1,
            label: 'cat',
            points: [1, 2, 3, 4],
            attributes: [{ name: 'age', value: '5' }],
          },
        ],
        tracks: [],
      },
      {
        version: 0,
        tags: [],
        shapes: [],
        tracks: [
          {
            id: 90,
            frame: 2,
            label: 'dog',
            group: 0,
            source: 'manual',
            attributes: [],
            shapes: [
              { ...shape, frame: 2, points: [0, 0, 5, 5], attributes: [] },
              { ...shape, frame: 3, outside: true, points: [0, 0, 5, 5], attributes: [] },
            ],
          },
        ],
      },
    ];
    const frame = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
    const archive = zipSync({
      'task.json': strToU8(JSON.stringify(manifest)),
      'annotations.json': strToU8(JSON.stringify(annotations)),
      'data/a.jpg': frame,
      'data/b.jpg': frame,
      'data/c.jpg': frame,
      'data/d.jpg': frame,
    });
    const request = await restored('task', archive);
    expect(request.status, request.message).toBe('finished');
    const id = request.result_id as number;
    const labels = (await send('GET', `/api/labels?task_id=${id}`)).body.results as {
      id: number;
      name: string;
      attributes: { id: number; name: string }[];
    }[];
    const cat = labels.find((l) => l.name === 'cat');
    const dog = labels.find((l) => l.name === 'dog');
    const age = cat?.attributes[0]?.id;
    const jobs = (await send('GET', `/api/jobs?task_id=${id}&sort=id`)).body.results;
    expect(jobs.map((j: { status: string }) => j.status)).toEqual(['annotation', 'validation']);
    const first = (await send('GET', `/api/jobs/${jobs[0].id}/annotations`)).body;
    expect(first.tags).toMatchObject([{ frame: 0, label_id: dog?.id, attributes: [] }]);
    expect(first.tags[0].id).not.toBe(77);
    expect(first.shapes).toMatchObject([
      { frame: 1, label_id: cat?.id, points: [1, 2, 3, 4], attributes: [{ spec_id: age, value: '5' }] },
    ]);
    const second = (await send('GET', `/api/jobs/${jobs[1].id}/annotations`)).body;
    expect(second.tracks).toMatchObject([
      { frame: 2, label_id: dog?.id, shapes: [{ frame: 2 }, { frame: 3, outside: true }] },
    ]);
    const meta = (await send('GET', `/api/tasks/${id}/data/meta`)).body;
    expect(meta.frames.map((f: { name: string }) => f.name)).toEqual(['a.jpg', 'b.jpg', 'c.jpg', 'd.jpg']);
    // The worker's server events, by the request's owner: the task, its labels and jobs, the annotations.
    const rows = [...eventsOf(h.state()).store.rows()].filter((e) => e.task_id === id);
    const scopes = new Set(rows.map((e) => e.scope));
    for (const scope of [
      'create:task',
      'create:label',
      'create:job',
      'create:tags',
      'create:shapes',
      'create:tracks',
    ]) {
      expect(scopes.has(scope), scope).toBe(true);
    }
    expect(new Set(rows.map((e) => e.user_name))).toEqual(new Set(['alice']));
  });
});

/** A job's annotations as a client compares them across a round trip: ids out, labels and attributes named. */
function namedAnnotations(
  data: { tags: Obj[]; shapes: Obj[]; tracks: Obj[] },
  labels: { id: number; name: string; attributes: { id: number; name: string }[]; sublabels?: Obj[] }[],
) {
  const all = labels.flatMap((l) => [l, ...((l.sublabels ?? []) as typeof labels)]);
  const label = (id: unknown) => all.find((l) => l.id === id);
  const named = (o: Obj): Obj => {
    const { id: _id, label_id, attributes, elements, shapes, ...rest } = o;
    const owner = label(label_id);
    return {
      ...rest,
      ...(label_id === undefined ? {} : { label: owner?.name }),
      attributes: (attributes as { spec_id: number; value: string }[]).map((a) => [
        all.flatMap((l) => l.attributes).find((s) => s.id === a.spec_id)?.name,
        a.value,
      ]),
      ...(elements ? { elements: (elements as Obj[]).map(named) } : {}),
      ...(shapes ? { shapes: (shapes as Obj[]).map(named) } : {}),
    };
  };
  return { tags: data.tags.map(named), shapes: data.shapes.map(named), tracks: data.tracks.map(named) };
}

type Obj = Record<string, unknown>;

describe('a backup the simulator exported', () => {
  it("restores every job's tags, shapes, skeletons and tracks, attributes and labels (sublabels, drawing) as they were", async () => {
    h = createHarness();
    h.seed({
      ...TEAM,
      tasks: [
        {
          name: 'rt',
          owner: 'alice',
          org: 'acme',
          size: 4,
          segment_size: 2,
          labels: [
            {
              name: 'car',
              attributes: [
                { name: 'model', input_type: 'select', values: ['mazda', 'volvo'], default_value: 'mazda' },
              ],
            },
            {
              name: 's1',
              type: 'skeleton',
              sublabels: [
                { name: '1', type: 'points' },
                {
                  name: '2',
                  type: 'points',
                  attributes: [{ name: 'seen', input_type: 'checkbox', default_value: 'false' }],
                },
              ],
              svg: '<circle data-type="element node" data-element-id="1" data-node-id="1" data-label-name="1"></circle>',
            },
          ],
        },
      ],
    });
    const labels = (await send('GET', '/api/labels?task_id=1')).body.results;
    const car = labels.find((l: { name: string }) => l.name === 'car');
    const s1 = labels.find((l: { name: string }) => l.name === 's1');
    const jobs = (await send('GET', '/api/jobs?task_id=1&sort=id')).body.results as { id: number }[];
    const base = { occluded: false, outside: false, z_order: 1, rotation: 0, group: 0, source: 'manual' };
    const point = (sub: { id: number }, x: number, attributes: unknown[] = []) => ({
      ...base,
      type: 'points',
      points: [x, x + 1],
      label_id: sub.id,
      frame: 1,
      attributes,
    });
    const first = {
      version: 0,
      tags: [{ frame: 0, label_id: car.id, group: 0, source: 'manual', attributes: [] }],
      shapes: [
        {
          ...base,
          type: 'rectangle',
          frame: 1,
          label_id: car.id,
          points: [1, 2, 30, 40],
          attributes: [{ spec_id: car.attributes[0].id, value: 'volvo' }],
        },
        {
          ...base,
          type: 'skeleton',
          frame: 1,
          label_id: s1.id,
          points: [],
          attributes: [],
          elements: [
            point(s1.sublabels[0], 5),
            point(s1.sublabels[1], 7, [{ spec_id: s1.sublabels[1].attributes[0].id, value: 'true' }]),
          ],
        },
      ],
      tracks: [],
    };
    const second = {
      version: 0,
      tags: [],
      shapes: [],
      tracks: [
        {
          frame: 2,
          label_id: car.id,
          group: 1,
          source: 'auto',
          attributes: [{ spec_id: car.attributes[0].id, value: 'mazda' }],
          shapes: [
            { ...base, type: 'polygon', frame: 2, points: [0, 0, 5, 5, 9, 0], attributes: [] },
            { ...base, type: 'polygon', frame: 3, outside: true, points: [0, 0, 5, 5, 9, 0], attributes: [] },
          ],
        },
      ],
    };
    for (const [job, data] of [
      [jobs[0], first],
      [jobs[1], second],
    ] as const) {
      const put = await send('PUT', `/api/jobs/${job?.id}/annotations`, {
        body: new TextEncoder().encode(JSON.stringify(data)),
        headers: { 'content-type': 'application/json' },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    const before = await Promise.all(
      jobs.map(async (j) =>
        namedAnnotations((await send('GET', `/api/jobs/${j.id}/annotations`)).body, labels),
      ),
    );
    expect(before[0]?.shapes).toHaveLength(2);

    const request = await restored('task', await exportedBackup('tasks/1'));
    expect(request.status, request.message).toBe('finished');
    const id = request.result_id as number;
    const newLabels = (await send('GET', `/api/labels?task_id=${id}`)).body.results;
    const strip = (l: Obj) => ({
      ...l,
      id: 0,
      task_id: 0,
      attributes: (l.attributes as Obj[]).map((a) => ({ ...a, id: 0 })),
    });
    // The drawing names its points by their label ids: compared by the points' names.
    const drawing = (l: Obj) =>
      typeof l.svg === 'string'
        ? (l.sublabels as Obj[]).reduce((svg, p) => svg.replaceAll(`"${p.id}"`, `"${p.name}"`), l.svg)
        : undefined;
    const labelView = (ls: Obj[]) =>
      ls.map((l) => ({ ...strip(l), svg: drawing(l), sublabels: (l.sublabels as Obj[]).map(strip) }));
    expect(labelView(newLabels)).toEqual(labelView(labels));
    const newJobs = (await send('GET', `/api/jobs?task_id=${id}&sort=id`)).body.results as { id: number }[];
    const after = await Promise.all(
      newJobs.map(async (j) =>
        namedAnnotations((await send('GET', `/api/jobs/${j.id}/annotations`)).body, newLabels),
      ),
    );
    expect(after).toEqual(before);
  });
});

describe('project backup restored (TUS, as the SDK uploads it)', () => {
  it('Upload-Start, a TUS upload in two chunks, Upload-Finish with its file id: a new project with its tasks', async () => {
    world();
    const archive = await exportedBackup('projects/1');
    expect((await send('POST', '/api/projects/backup', { headers: { 'Upload-Start': 'true' } })).status).toBe(
      202,
    );
    const created = await send('POST', '/api/projects/backup/', {
      headers: {
        'Tus-Resumable': '1.0.0',
        'Upload-Length': String(archive.length),
        'Upload-Metadata': `filename ${Buffer.from('project.zip').toString('base64')}`,
      },
    });
    expect(created.status).toBe(201);
    const fileId = created.headers.get('upload-filename') as string;
    expect(fileId).toMatch(/^2_[0-9a-f-]{36}$/);
    expect(created.headers.get('location')).toBe(`http://localhost/api/projects/backup/${fileId}`);
    const half = Math.floor(archive.length / 2);
    const chunk = (from: number, to: number, offset: number) =>
      send('PATCH', `/api/projects/backup/${fileId}`, {
        body: archive.subarray(from, to),
        headers: {
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': String(offset),
          'content-type': 'application/offset+octet-stream',
          'content-length': String(to - from),
        },
      });
    expect((await chunk(0, half, 0)).status).toBe(204);
    // A chunk at the wrong offset: 409.
    expect((await chunk(half, archive.length, 0)).status).toBe(409);
    expect((await chunk(half, archive.length, half)).status).toBe(204);
    // Another user's upload: 403.
    const head = await send('HEAD', `/api/projects/backup/${fileId}`, { as: 'bob' });
    expect(head.status).toBe(403);
    const finished = await send('POST', `/api/projects/backup?filename=${fileId}`, {
      headers: { 'Upload-Finish': 'true' },
    });
    expect(finished.status).toBe(202);
    expect(finished.body.rq_id).toMatch(RQ_ID);
    h.advance('1s');
    const request = (await send('GET', requestPath(finished.body.rq_id))).body;
    expect(request).toMatchObject({
      status: 'finished',
      operation: { type: 'import:backup', target: 'project' },
    });
    const project = (await send('GET', `/api/projects/${request.result_id}`)).body;
    expect(project).toMatchObject({ name: 'acme-p', organization: 1, owner: { username: 'alice' } });
    const tasks = (await send('GET', `/api/tasks?project_id=${request.result_id}`)).body.results;
    expect(tasks.map((t: { name: string; size: number }) => [t.name, t.size])).toEqual([['Road t', 5]]);
    const labels = (await send('GET', `/api/labels?project_id=${request.result_id}`)).body.results;
    expect(labels.map((l: { name: string }) => l.name)).toEqual(['car', 'person']);
    // The file is taken by the request: finishing again names no upload.
    const again = await send('POST', `/api/projects/backup?filename=${fileId}`, {
      headers: { 'Upload-Finish': 'true' },
    });
    expect(again).toMatchObject({ status: 400, body: ['No such file were uploaded'] });
  });
});

describe("CVAT's refusals", () => {
  it("fails the request with zipfile's error for a corrupted archive, and with KeyError for a wrong one", async () => {
    world();
    const corrupted = await restored('task', new Uint8Array(Buffer.from('not a zip at all')));
    expect(corrupted).toMatchObject({
      status: 'failed',
      message: 'zipfile.BadZipFile: File is not a zip file\n',
      result_id: null,
    });
    // IMPORT_CACHE_FAILED_TTL: 30 days.
    expect(Date.parse(corrupted.expiry_date) - Date.parse(corrupted.finished_date)).toBe(30 * 86_400_000);
    const projectArchive = await exportedBackup('projects/1');
    const wrong = await restored('task', projectArchive);
    expect(wrong.status).toBe('failed');
    expect(wrong.message).toBe('KeyError: "There is no item named \'task.json\' in the archive"\n');
    // Nothing was made: the next task id is still 3.
    expect((await send('GET', '/api/tasks/3')).status).toBe(404);
  });

  it("answers the serializer's 400 without a file, 410 for the old status check, 403 to a worker", async () => {
    world();
    const none = await send('POST', '/api/tasks/backup', {
      body: strToU8('{}'),
      headers: { 'content-type': 'application/json' },
    });
    expect(none).toMatchObject({ status: 400, body: { task_file: ['No file was submitted.'] } });
    const wrongField = await send(
      'POST',
      '/api/projects/backup',
      multipart('task_file', new Uint8Array([1])),
    );
    expect(wrongField).toMatchObject({ status: 400, body: { project_file: ['No file was submitted.'] } });
    const old = await send('POST', '/api/tasks/backup?rq_id=x');
    expect(old.status).toBe(410);
    expect(old.body).toContain('GET /api/requests/rq_id');
    const unknown = await send('POST', '/api/tasks/backup?filename=2_00000000-0000-0000-0000-000000000000', {
      headers: { 'Upload-Finish': 'true' },
    });
    expect(unknown).toMatchObject({ status: 400, body: ['No such file were uploaded'] });
    expect((await restore('task', new Uint8Array([1]), 'dave')).status).toBe(403);
    expect((await restore('task', new Uint8Array([1]), 'carol')).status).toBe(202);
  });
});

describe('faults and snapshots', () => {
  /** A control-plane call (`/_sim…`), its JSON answer. */
  async function control(method: string, path: string, body?: unknown) {
    const res = await h.sim.app.request(`http://localhost/_sim${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return res.json();
  }

  it("fails with a requestFails rule's message and makes nothing; a slow one keeps its archive across a snapshot", async () => {
    world();
    const archive = await exportedBackup('tasks/2');
    await control('POST', '/faults', {
      match: { operation: 'tasks.create_backup' },
      trigger: { times: 1 },
      effect: { requestFails: { message: 'boom\n' } },
    });
    expect(await restored('task', archive)).toMatchObject({
      status: 'failed',
      message: 'boom\n',
      result_id: null,
    });
    expect((await send('GET', '/api/tasks/3')).status).toBe(404);
    // The uploaded archive is not kept once the request ended.
    const works = [...requestsOf(h.state()).requests.values()].map((r) => r.work);
    expect(works.filter((w) => w.kind === 'import:backup').map((w) => 'archive' in w && w.archive)).toEqual([
      '',
    ]);
    await control('POST', '/faults', {
      match: { operation: 'tasks.create_backup' },
      trigger: { times: 1 },
      effect: { requestDelay: { duration: '10s' } },
    });
    const slow = await restore('task', archive);
    expect(slow.status).toBe(202);
    const snapshot = await control('GET', '/state');
    await control('POST', '/reset');
    await control('PUT', '/state', snapshot);
    expect((await send('GET', requestPath(slow.body.rq_id))).body.status).toBe('started');
    h.advance('10s');
    const request = (await send('GET', requestPath(slow.body.rq_id))).body;
    expect(request).toMatchObject({ status: 'finished', result_id: 3 });
    expect((await send('GET', '/api/tasks/3')).body).toMatchObject({ name: 'solo', size: 3 });
  });
});

describe('webhooks', () => {
  it("sends the creations' webhooks with the owner as sender, and no completed:request (2.73 has no import event)", async () => {
    world();
    const r = await startReceiver({ secret: 'k' });
    receivers.push(r);
    const hook = aWebhook()
      .forOrganization()
      .to(r.url)
      .withSecret('k')
      .withEvents('create:project', 'create:task', 'create:job')
      .build();
    const created = await send('POST', '/api/webhooks', {
      body: strToU8(JSON.stringify(hook)),
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const request = await restored('project', await exportedBackup('projects/1'));
    await h.idle();
    const events = r.requests.map((q) => [q.json.event, q.json.sender?.username]);
    expect(events).toEqual([
      ['create:project', 'alice'],
      ['create:task', 'alice'],
      ['create:job', 'alice'],
      ['create:job', 'alice'],
      ['create:job', 'alice'],
    ]);
    expect(r.requests[0]?.json.project.id).toBe(request.result_id);
    const subscribed = await send('POST', '/api/webhooks', {
      body: strToU8(
        JSON.stringify(
          aWebhook().forOrganization().to(r.url).withEvents('completed:request[import:backup]').build(),
        ),
      ),
      headers: { 'content-type': 'application/json' },
    });
    expect(subscribed.status).toBe(400);
  });
});
