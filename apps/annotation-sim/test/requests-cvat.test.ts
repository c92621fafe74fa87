/**
 * Background requests as CVAT 2.73 has them where earlier simulators differed (issue 37): legacy request
 * ids (`test_requests.py`, `TestGetRequests`), cancelling a started export (`redis_handler/tests/
 * test_views.py`, #10600), `remote_files` refused before anything is queued (`validate_remote_files`),
 * export permissions (`test_projects.py`, `TestGetPostProjectBackup`, and the rego files), and request
 * times strictly ordered in every mode.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseRequestId, renderRequestId } from '../src/domain/requests/request-id';
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

const DENIED = { detail: 'You do not have permission to perform this action.' };
const NO_REQUEST = 'There is no request with specified id';
const CVAT = 'CVAT for images 1.1';

/**
 * Org acme (alice owner 2, bob maintainer 3, carol supervisor 4, dave worker 5; erin 6 and outsider 8
 * outside it). Projects: 1 alice's, 2 dave's, 3 alice's with carol assigned, 4 alice's with dave
 * assigned (all in acme), 5 erin's in the sandbox with outsider assigned. Tasks (2 frames each, one job
 * of 2 frames apart from task 1's three): 1 in project 1, 2 dave's, 3 alice's with dave assigned, 4
 * alice's with carol assigned (in acme), 5 erin's in the sandbox with outsider assigned.
 */
function world() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [
      { name: 'acme-p', owner: 'alice', org: 'acme', labels: [{ name: 'car' }] },
      { name: 'dave-p', owner: 'dave', org: 'acme' },
      { name: 'carol-p', owner: 'alice', assignee: 'carol', org: 'acme' },
      { name: 'dave-assigned-p', owner: 'alice', assignee: 'dave', org: 'acme' },
      { name: 'sandbox-p', owner: 'erin', assignee: 'outsider' },
    ],
    tasks: [
      { name: 'road', owner: 'alice', project: 'acme-p', size: 5, segment_size: 2 },
      { name: 'dave-t', owner: 'dave', org: 'acme', size: 2 },
      { name: 'dave-assigned-t', owner: 'alice', assignee: 'dave', org: 'acme', size: 2 },
      { name: 'carol-t', owner: 'alice', assignee: 'carol', org: 'acme', size: 2 },
      { name: 'sandbox-t', owner: 'erin', assignee: 'outsider', size: 2 },
    ],
  });
}

const requestPath = (rqId: string) => `/api/requests/${encodeURIComponent(rqId)}`;

/** `POST /api/<resource>/<kind>/export` in org acme as `as`. */
function startExport(
  resource: string,
  kind: 'dataset' | 'backup',
  query: Record<string, string>,
  as: string,
) {
  const q = new URLSearchParams({ org: 'acme', ...query });
  return h.post(`/api/${resource}/${kind}/export?${q}`, undefined, { as });
}

async function control(method: string, path: string, body?: unknown) {
  const res = await h.sim.app.request(`http://localhost/_sim${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  // `/_sim/requests` lists them; other answers are read as a whole.
  return (await res.json()) as { requests: unknown[] };
}

/** A DRF date as epoch microseconds (its fraction, when there is one, is six digits). */
function micros(date: string): bigint {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{6}))?Z$/.exec(date);
  if (!m) throw new Error(`not a DRF date: ${date}`);
  return BigInt(Date.parse(`${m[1]}Z`)) * 1000n + BigInt(m[2] ?? '0');
}

/** CVAT's assertion: `created_date < started_date < finished_date < expiry_date`. */
function expectOrdered(request: Record<string, string>) {
  const [created, started, finished, expiry] = [
    request.created_date,
    request.started_date,
    request.finished_date,
    request.expiry_date,
  ].map((d) => micros(d as string)) as [bigint, bigint, bigint, bigint];
  expect(created < started && started < finished && finished < expiry, JSON.stringify(request)).toBe(true);
}

describe('legacy request ids (TestGetRequests)', () => {
  /** `_test_get_request_using_legacy_id`: the one request the filters list is the one the legacy id reads. */
  async function expectLegacy(legacy: string, as: string, filters: Record<string, string>) {
    const list = await h.get(`/api/requests?${new URLSearchParams(filters)}`, { as });
    expect(list.body.results).toHaveLength(1);
    const byLegacy = await h.get(requestPath(legacy), { as });
    expect(byLegacy.status, byLegacy.text).toBe(200);
    expect(byLegacy.body.id).toBe(list.body.results[0].id);
  }

  it.each([
    ['project', 'projects/1'],
    ['task', 'tasks/1'],
    ['job', 'jobs/1'],
  ] as const)(
    'reads dataset and annotations exports of a %s by their legacy ids',
    async (target, resource) => {
      world();
      for (const saveImages of [true, false]) {
        const started = await startExport(
          resource,
          'dataset',
          { format: CVAT, save_images: String(saveImages) },
          'alice',
        );
        expect(started.status, started.text).toBe(202);
        h.advance('2s');
        const subresource = saveImages ? 'dataset' : 'annotations';
        const format = CVAT.replace(/ /g, '_').replace(/\./g, '@');
        const id = resource.split('/')[1];
        await expectLegacy(`export:${target}-${id}-${subresource}-in-${format}-format-by-2`, 'alice', {
          target,
          action: 'export',
          subresource,
        });
      }
    },
  );

  it('reads backup exports and task creation by their legacy ids', async () => {
    world();
    for (const [target, resource] of [
      ['project', 'projects/1'],
      ['task', 'tasks/1'],
    ] as const) {
      expect((await startExport(resource, 'backup', {}, 'alice')).status).toBe(202);
      await expectLegacy(`export:${target}-1-backup-by-2`, 'alice', {
        target,
        action: 'export',
        subresource: 'backup',
      });
    }
    const task = await h.post('/api/tasks', { name: 'Test task', labels: [{ name: 'a' }] }, { as: 'admin' });
    expect(task.status, task.text).toBe(201);
    const data = await h.post(
      `/api/tasks/${task.body.id}/data/`,
      { image_quality: 75, server_files: ['a.jpg', 'b.jpg'] },
      { as: 'admin' },
    );
    expect(data.status).toBe(202);
    await expectLegacy(`create:task-${task.body.id}`, 'admin', { action: 'create', target: 'task' });
  });

  it('reads any spelling RequestId.parse renders back to the same id, and 404s what it cannot parse', async () => {
    world();
    const rqId = (await startExport('tasks/1', 'dataset', { format: 'COCO 1.0' }, 'alice')).body.rq_id;
    expect(rqId).toBe(
      'action=export&target=task&target_id=1&user_id=2&format=COCO_1~0&subresource=annotations',
    );
    for (const spelling of [
      'subresource=annotations&format=COCO_1~0&user_id=2&target_id=1&target=task&action=export',
      'action=export&target=task&target_id=01&user_id=2&format=COCO_1~0&subresource=annotations',
      // Decoded by parse_qsl (`+` a space, `%2E` a dot) after Django decoded the path.
      'action=export&target=task&target_id=1&user_id=2&format=COCO+1%2E0&subresource=annotations',
      'export:task-1-annotations-in-COCO_1@0-format-by-2',
    ]) {
      const res = await h.get(requestPath(spelling), { as: 'alice' });
      expect([res.status, res.body.id], spelling).toEqual([200, rqId]);
    }
    // DRF routes `[^/.]+`: an id with a dot (or a slash) in the decoded path is no route, Django's 404 page.
    for (const unrouted of [`${rqId.replace('COCO_1~0', 'COCO 1.0')}`, 'a/b']) {
      const res = await h.get(requestPath(unrouted), { as: 'alice' });
      expect([res.status, res.text], unrouted).toEqual([
        404,
        expect.stringContaining('<title>Not Found</title>'),
      ]);
      const cancel = await h.post(`${requestPath(unrouted)}/cancel`, undefined, { as: 'alice' });
      expect(cancel.text).toContain('<title>Not Found</title>');
    }
    expect((await h.get(`${requestPath(rqId)}/cancel`, { as: 'alice' })).status).toBe(405);
    for (const malformed of [
      'nonsense',
      'export:task-x-backup-by-2',
      'action=export&target=task',
      'action=export&target=task&target_id=0&user_id=2',
      'action=export&target=task&target_id=1&id=3fa85f64-5717-4562-b3fc-2c963f66afa6',
      'action=export&target=task&target_id=1&subresource=nope',
      'action=export&target=task&target_id=1&colour=red',
      'action=unknown&target=task&target_id=1',
      'action=create&target=task&target_id=1&lightweight=1',
      'target=task&target_id=1',
    ]) {
      const res = await h.get(requestPath(malformed), { as: 'alice' });
      expect([res.status, res.text], malformed).toEqual([404, NO_REQUEST]);
    }
  });

  it('parses the legacy forms of every queue, rendering the id RQ keeps', () => {
    const render = (text: string) => {
      const parsed = parseRequestId(text, { legacy: true });
      return parsed && renderRequestId(parsed);
    };
    expect(render('export:project-2-dataset-in-CVAT_for_images_1@1-format-by-12')).toBe(
      'action=export&target=project&target_id=2&user_id=12&format=CVAT_for_images_1~1&subresource=dataset',
    );
    expect(render('export:task-1-backup-by-3')).toBe(
      'action=export&target=task&target_id=1&user_id=3&subresource=backup',
    );
    expect(render('create:task-5')).toBe('action=create&target=task&target_id=5');
    expect(render('import:job-4-annotations')).toBe(
      'action=import&target=job&target_id=4&subresource=annotations',
    );
    expect(render('import:project-3FA85F64-5717-4562-B3FC-2C963F66AFA6-backup')).toBe(
      'action=import&target=project&id=3fa85f64-5717-4562-b3fc-2c963f66afa6&subresource=backup',
    );
    expect(render('quality-check-task-7-user-3')).toBe(
      'action=calculate&target=task&target_id=7&subresource=quality',
    );
    expect(render('action=export&target=task&target_id=1&lightweight=False')).toBe(
      'action=export&target=task&target_id=1&lightweight=True',
    );
    // Without `try_legacy_format` (how the list reads the ids it holds) a legacy id is refused.
    expect(parseRequestId('create:task-5', { legacy: false })).toBeUndefined();
    // ExportRequestId.parse: another queue's id is refused.
    expect(parseRequestId('create:task-5', { legacy: true, only: 'export' })).toBeUndefined();
  });

  it('cancels by a legacy id, and downloads only by the id RQ keeps (a legacy one is unknown there)', async () => {
    world();
    await control('PATCH', '/requests/settings', { queued: '1s' });
    const rqId = (await startExport('tasks/1', 'backup', {}, 'alice')).body.rq_id;
    const cancel = await h.post(`${requestPath('export:task-1-backup-by-2')}/cancel`, undefined, {
      as: 'alice',
    });
    expect(cancel.status).toBe(200);
    expect((await h.get(requestPath(rqId), { as: 'alice' })).status).toBe(404);
    await startExport('tasks/1', 'backup', {}, 'alice');
    h.advance('2s');
    const download = (id: string, as = 'alice') =>
      h.get(`/api/tasks/1/backup/download?org=acme&rq_id=${encodeURIComponent(id)}`, { as });
    expect((await download(rqId)).status).toBe(200);
    const legacy = await download('export:task-1-backup-by-2');
    expect([legacy.status, legacy.text]).toEqual([400, 'Unknown export request id']);
    // The permission reads the legacy id's user: another user's is refused.
    expect((await download('export:task-1-backup-by-2', 'bob')).body).toEqual(DENIED);
    expect((await download('create:task-1')).body).toEqual(['Unexpected request id format']);
  });
});

describe('cancelling requests (CVAT 2.73, #10600)', () => {
  it('stops a started export: no result, no webhook, gone from the API once read, and exportable again', async () => {
    world();
    const receiver = await startReceiver({ secret: 'k' });
    receivers.push(receiver);
    const hook = await h.post(
      '/api/webhooks?org=acme',
      aWebhook()
        .forOrganization()
        .to(receiver.url)
        .withSecret('k')
        .withEvents('completed:request[export:dataset]')
        .build(),
      { as: 'alice' },
    );
    expect(hook.status, hook.text).toBe(201);
    const rqId = (await startExport('tasks/1', 'dataset', { format: CVAT, save_images: 'true' }, 'alice'))
      .body.rq_id;
    h.advance('1s');
    expect((await h.get(requestPath(rqId), { as: 'alice' })).body.status).toBe('started');
    // test_cancel_started_export_request_sends_stop_command: 200, empty.
    expect((await h.post(`${requestPath(rqId)}/cancel`, undefined, { as: 'bob' })).status).toBe(403);
    const cancel = await h.post(`${requestPath(rqId)}/cancel`, undefined, { as: 'alice' });
    expect([cancel.status, cancel.text]).toEqual([200, '']);
    h.advance('1h');
    await h.idle();
    expect(receiver.requests).toHaveLength(0);
    expect((await control('GET', '/requests')).requests).toMatchObject([{ rq_id: rqId, status: 'stopped' }]);
    // RQ keeps the stopped job: its download is not finished, the list leaves it out.
    const download = () =>
      h.get(`/api/tasks/1/dataset/download?org=acme&rq_id=${encodeURIComponent(rqId)}`, { as: 'alice' });
    expect((await download()).text).toBe('The export process is not finished');
    expect((await h.get('/api/requests', { as: 'alice' })).body.count).toBe(0);
    expect((await h.post(`${requestPath(rqId)}/cancel`, undefined, { as: 'alice' })).text).toBe(NO_REQUEST);
    // A read deletes it.
    expect([(await h.get(requestPath(rqId), { as: 'alice' })).status]).toEqual([404]);
    expect((await download()).text).toBe('Unknown export request id');
    expect((await control('GET', '/requests')).requests).toEqual([]);
    const again = await startExport('tasks/1', 'dataset', { format: CVAT, save_images: 'true' }, 'alice');
    expect(again.status).toBe(202);
    h.advance('2s');
    expect((await h.get(requestPath(rqId), { as: 'alice' })).body.status).toBe('finished');
  });

  it('replaces a stopped export on the next export of the same id', async () => {
    world();
    const rqId = (await startExport('projects/1', 'backup', {}, 'alice')).body.rq_id;
    expect((await h.post(`${requestPath(rqId)}/cancel`, undefined, { as: 'alice' })).status).toBe(200);
    expect((await startExport('projects/1', 'backup', {}, 'alice')).status).toBe(202);
    expect((await h.get(requestPath(rqId), { as: 'alice' })).body.status).toBe('started');
  });

  it("refuses what ended with RQ's status, and leaves a lost worker's export started", async () => {
    world();
    const finished = (await startExport('tasks/1', 'backup', {}, 'alice')).body.rq_id;
    h.advance('2s');
    const refused = await h.post(`${requestPath(finished)}/cancel`, undefined, { as: 'alice' });
    expect([refused.status, refused.text]).toEqual([
      400,
      "Requests with status 'finished' cannot be cancelled",
    ]);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    await control('POST', '/faults', {
      match: { operation: 'tasks.create_dataset_export' },
      trigger: { times: 1 },
      effect: { requestFails: { message: 'boom\n' } },
    });
    const failed = (await startExport('tasks/1', 'dataset', { format: CVAT }, 'alice')).body.rq_id;
    h.advance('2s');
    expect((await h.post(`${requestPath(failed)}/cancel`, undefined, { as: 'alice' })).text).toBe(
      "Requests with status 'failed' cannot be cancelled",
    );
    // The stop command goes to a worker that is gone: answered, and nothing changes.
    await control('POST', '/faults', {
      match: { operation: 'projects.create_backup_export' },
      trigger: { times: 1 },
      effect: { requestLost: true },
    });
    const lost = (await startExport('projects/1', 'backup', {}, 'alice')).body.rq_id;
    expect((await h.post(`${requestPath(lost)}/cancel`, undefined, { as: 'alice' })).status).toBe(200);
    h.advance('1h');
    expect((await h.get(requestPath(lost), { as: 'alice' })).body.status).toBe('started');
  });

  it('keeps a stopped export across a state snapshot', async () => {
    world();
    const rqId = (await startExport('tasks/1', 'backup', {}, 'alice')).body.rq_id;
    await h.post(`${requestPath(rqId)}/cancel`, undefined, { as: 'alice' });
    const snapshot = await control('GET', '/state');
    await control('POST', '/reset');
    await control('PUT', '/state', snapshot);
    expect((await control('GET', '/requests')).requests).toMatchObject([{ rq_id: rqId, status: 'stopped' }]);
    expect((await h.get(requestPath(rqId), { as: 'alice' })).status).toBe(404);
  });
});

describe('remote_files (validate_remote_files)', () => {
  const createData = (body: unknown) => h.post('/api/tasks/6/data/?org=acme', body, { as: 'alice' });

  it('refuses URLs that are not http(s) with a host, before any request is queued', async () => {
    world();
    h.seed({ tasks: [{ name: 'remote', owner: 'alice', org: 'acme' }] });
    const res = await createData({
      image_quality: 70,
      remote_files: [
        'ftp://example.com/a.jpg',
        'http://example.com/b.jpg',
        'file:///etc/passwd',
        'http:///no-host.jpg',
        "s3://bucket/it's.jpg",
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      remote_files: [
        "'ftp://example.com/a.jpg': remote_files entries must be http(s) URLs.",
        "'file:///etc/passwd': remote_files entries must be http(s) URLs.",
        "'http:///no-host.jpg': remote_files entries must be http(s) URLs.",
        `"s3://bucket/it's.jpg": remote_files entries must be http(s) URLs.`,
      ],
    });
    expect((await h.get('/api/requests', { as: 'alice' })).body.count).toBe(0);
    expect((await control('GET', '/requests')).requests).toEqual([]);
    // With another field's error: one 400, the serializer's fields together.
    const both = await createData({ remote_files: ['ftp://x/a.jpg'], sorting_method: 'sideways' });
    expect(Object.keys(both.body)).toEqual(['image_quality', 'remote_files', 'sorting_method']);
    expect(both.body.remote_files).toEqual(["'ftp://x/a.jpg': remote_files entries must be http(s) URLs."]);
    // urlparse lowercases the scheme and drops leading white space.
    const good = await createData({
      image_quality: 70,
      remote_files: ['HTTPS://example.com/a.jpg', '  http://example.com/b.jpg'],
    });
    expect(good.status, good.text).toBe(202);
  });

  it('refuses them at Upload-Finish too', async () => {
    world();
    h.seed({ tasks: [{ name: 'remote', owner: 'alice', org: 'acme' }] });
    const start = await h.post(
      '/api/tasks/6/data/?org=acme',
      {},
      { as: 'alice', headers: { 'Upload-Start': 'true' } },
    );
    expect(start.status).toBe(202);
    const finish = await h.post(
      '/api/tasks/6/data/?org=acme',
      { image_quality: 70, remote_files: ['gopher://example.com/a.jpg'] },
      { as: 'alice', headers: { 'Upload-Finish': 'true' } },
    );
    expect([finish.status, finish.body]).toEqual([
      400,
      { remote_files: ["'gopher://example.com/a.jpg': remote_files entries must be http(s) URLs."] },
    ]);
  });
});

describe('export permissions (projects.rego, tasks.rego, jobs.rego)', () => {
  const backup = (resource: string, as: string) => startExport(resource, 'backup', {}, as);

  it('lets project staff of supervisor rank, owners and maintainers back up a project (TestGetPostProjectBackup)', async () => {
    world();
    const cases: [string, string, number][] = [
      ['admin', 'projects/1', 202], // test_admin_can_get_project_backup
      ['outsider', 'projects/1', 403], // test_user_cannot_get_project_backup
      ['dave', 'projects/1', 403], // test_org_worker_cannot_get_project_backup
      ['dave', 'projects/4', 403], // test_org_worker_cannot_get_project_backup_without_ownership (assignee)
      ['carol', 'projects/3', 202], // test_org_supervisor_can_get_project_backup
      ['carol', 'projects/1', 403], // test_org_supervisor_cannot_get_project_backup
      ['bob', 'projects/1', 202], // test_org_maintainer_can_get_project_backup
      ['alice', 'projects/3', 202], // test_org_owner_can_get_project_backup
      ['dave', 'projects/2', 202], // an org worker who owns the project
      ['outsider', 'projects/5', 202], // sandbox: the assignee is staff
      ['alice', 'projects/5', 403], // sandbox: not staff
    ];
    for (const [as, resource, status] of cases) {
      const res = await backup(resource, as);
      expect(res.status, `${as} ${resource}`).toBe(status);
      if (status === 403) expect(res.body).toEqual(DENIED);
    }
    // The dataset exports of a project share the rule.
    expect((await startExport('projects/4', 'dataset', { format: CVAT }, 'dave')).body).toEqual(DENIED);
    expect((await startExport('projects/3', 'dataset', { format: CVAT }, 'carol')).status).toBe(202);
  });

  it("lets a task's staff of supervisor rank, its or its project's owner and maintainers back up a task", async () => {
    world();
    const cases: [string, string, number][] = [
      ['dave', 'tasks/3', 403], // a worker who is only the assignee
      ['dave', 'tasks/2', 202], // a worker who owns the task
      ['carol', 'tasks/4', 202], // a supervisor assignee
      ['carol', 'tasks/2', 403], // a supervisor who is not staff
      ['bob', 'tasks/2', 202], // a maintainer
      ['outsider', 'tasks/5', 202], // sandbox assignee
      ['bob', 'tasks/5', 403], // sandbox, not staff
    ];
    for (const [as, resource, status] of cases) {
      const res = await backup(resource, as);
      expect(res.status, `${as} ${resource}`).toBe(status);
    }
    expect((await startExport('tasks/3', 'dataset', { format: CVAT }, 'dave')).body).toEqual(DENIED);
  });

  it("lets a job's supervisor-rank staff, its task's or project's owner and maintainers export a job", async () => {
    world();
    for (const [job, user] of [
      [1, 5], // dave
      [2, 4], // carol
    ]) {
      const res = await h.patch(`/api/jobs/${job}?org=acme`, { assignee: user }, { as: 'alice' });
      expect(res.status, res.text).toBe(200);
    }
    const exportJob = (job: number, as: string) =>
      startExport(`jobs/${job}`, 'dataset', { format: CVAT }, as);
    expect((await exportJob(1, 'dave')).body).toEqual(DENIED);
    expect((await exportJob(2, 'carol')).status).toBe(202);
    expect((await exportJob(3, 'carol')).status).toBe(403);
    expect((await exportJob(1, 'bob')).status).toBe(202);
    // A worker who owns the job's task.
    const daveTaskJob = [...h.state().jobs.values()].find((j) => j.task_id === 2);
    expect(daveTaskJob).toBeDefined();
    expect((await exportJob(daveTaskJob?.id ?? 0, 'dave')).status).toBe(202);
  });
});

describe('request times (created < started < finished < expiry)', () => {
  it('are ordered for a task creation that takes no time, without moving the clock', async () => {
    world();
    h.seed({ tasks: [{ name: 'new', owner: 'alice', org: 'acme' }] });
    const created = await h.post(
      '/api/tasks/6/data/?org=acme',
      { image_quality: 70, server_files: ['a.jpg'] },
      { as: 'alice' },
    );
    const request = (await h.get(requestPath(created.body.rq_id), { as: 'alice' })).body;
    expect(request.status).toBe('finished');
    expectOrdered(request);
  });

  it('are ordered when the settings, a poll or the control plane end a request in the instant it starts', async () => {
    world();
    h.seed({
      tasks: [
        { name: 'a', owner: 'alice', org: 'acme' },
        { name: 'b', owner: 'alice', org: 'acme' },
        { name: 'c', owner: 'alice', org: 'acme' },
      ],
    });
    const data = async (task: number) =>
      (
        await h.post(
          `/api/tasks/${task}/data/?org=acme`,
          { image_quality: 70, server_files: ['a.jpg'] },
          { as: 'alice' },
        )
      ).body.rq_id as string;
    const read = async (rqId: string) => (await h.get(requestPath(rqId), { as: 'alice' })).body;
    // Queued as long as it takes: the worker starts it in the instant it ends.
    await control('PATCH', '/requests/settings', { queued: '3s', taskCreation: '3s' });
    const queuedLong = await data(6);
    expect((await read(queuedLong)).started_date).toBeNull();
    h.advance('3s');
    expectOrdered(await read(queuedLong));
    // Ended by the control plane while queued.
    const ended = await data(7);
    await control('POST', `/requests/${encodeURIComponent(ended)}/complete`);
    expectOrdered(await read(ended));
    // Ended on its first poll, in the instant it was enqueued.
    await control('PATCH', '/requests/settings', { queued: 0, taskCreation: 0 });
    await control('POST', '/faults', {
      match: { operation: 'tasks.create_data' },
      trigger: { times: 1 },
      effect: { requestDelay: { polls: 0 } },
    });
    const polled = await data(8);
    const after = await read(polled);
    expect(after.status).toBe('finished');
    expectOrdered(after);
  });

  it('are ordered for an export as CVAT tests it (test_owner_can_retrieve_request), and in its webhook', async () => {
    world();
    for (const saveImages of [true, false]) {
      const rqId = (
        await startExport('projects/1', 'dataset', { format: CVAT, save_images: String(saveImages) }, 'alice')
      ).body.rq_id;
      const queued = (await h.get(requestPath(rqId), { as: 'alice' })).body;
      // Taken by a worker in the instant it was queued: started one microsecond after.
      expect(micros(queued.started_date) - micros(queued.created_date)).toBe(1n);
      h.advance('2s');
      const bg = (await h.get(requestPath(rqId), { as: 'alice' })).body;
      expectOrdered(bg);
      expect(bg.operation).toMatchObject({
        format: CVAT,
        project_id: 1,
        target: 'project',
        task_id: null,
        job_id: null,
        type: `export:${saveImages ? 'dataset' : 'annotations'}`,
      });
      expect(bg.owner).toEqual({ id: 2, username: 'alice' });
      const url = new URL(bg.result_url);
      expect([url.protocol, url.host, url.pathname, url.search].every((p) => p !== '')).toBe(true);
    }
  });
});
