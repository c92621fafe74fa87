import { paginatedRequestListSchema, requestSchema } from '@sims/annotation-schema';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf } from '../src/domain/events/state';
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

/** Org acme (alice owner, bob maintainer, carol supervisor, dave worker) with project 1 and an empty task 1. */
function world() {
  h = createHarness();
  h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme' }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p', segment_size: 2 }],
  });
}

const RQ = 'action=create&target=task&target_id=1';
const path = (rqId: string) => `/api/requests/${encodeURIComponent(rqId)}`;
const files = (n: number) => Array.from({ length: n }, (_, i) => `img_${i}.jpg`);

async function createData(body: unknown = { image_quality: 70, server_files: files(5) }) {
  return h.post('/api/tasks/1/data/?org=acme', body, { as: 'alice' });
}

async function settings(body: unknown) {
  const res = await h.sim.app.request('http://localhost/_sim/requests/settings', {
    method: 'PATCH',
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

async function fault(rule: unknown) {
  const res = await h.sim.app.request('http://localhost/_sim/faults', {
    method: 'POST',
    body: JSON.stringify(rule),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

const jobCount = async () => (await h.get('/api/jobs?task_id=1&org=acme', { as: 'alice' })).body.count;

describe('task data creation as a background request', () => {
  it('answers 202 with the rq_id, and GET /api/requests/{rq_id} shows it finished with its jobs made', async () => {
    world();
    const res = await createData();
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ rq_id: RQ });
    const request = await h.get(path(RQ), { as: 'alice' });
    expect(request.status).toBe(200);
    expect(request.body).toEqual({
      status: 'finished',
      message: '',
      id: RQ,
      operation: {
        type: 'create:task',
        target: 'task',
        project_id: 1,
        task_id: 1,
        job_id: null,
        org_id: 1,
        format: null,
        lightweight: null,
      },
      progress: 0,
      // Queued, started and finished in one instant of the world clock: each step shown one microsecond
      // after the one before (CVAT's created < started < finished < expiry), expiry 500 s after the finish.
      created_date: '2026-01-01T00:00:00Z',
      started_date: '2026-01-01T00:00:00.000001Z',
      finished_date: '2026-01-01T00:00:00.000002Z',
      expiry_date: '2026-01-01T00:08:20.000002Z',
      owner: { id: 2, username: 'alice' },
      result_url: null,
      result_id: null,
    });
    // CVAT's `Request` component (the schema package's copy of cvat-schema.yml).
    expect(requestSchema.parse(request.body)).toEqual(request.body);
    expect(await jobCount()).toBe(3);
    // The data is attached: CVAT refuses more with a bare JSON string.
    const again = await createData();
    expect(again.status).toBe(400);
    expect(again.body).toBe('Adding more data is not supported');
  });

  it('goes queued → started → finished on the world clock, the jobs appearing only at the end', async () => {
    world();
    await settings({ queued: '1s', taskCreation: '3s' });
    expect((await createData()).status).toBe(202);
    const status = async () => (await h.get(path(RQ), { as: 'alice' })).body;
    expect(await status()).toMatchObject({ status: 'queued', started_date: null, finished_date: null });
    expect(await jobCount()).toBe(0);
    // Sent again while it runs: 409 with the same id.
    const twice = await createData();
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ rq_id: RQ });
    h.advance('1s');
    expect(await status()).toMatchObject({ status: 'started', started_date: '2026-01-01T00:00:01Z' });
    h.advance('1999ms');
    expect((await status()).status).toBe('started');
    expect(await jobCount()).toBe(0);
    h.advance('1ms');
    expect(await status()).toMatchObject({ status: 'finished', finished_date: '2026-01-01T00:00:03Z' });
    expect(await jobCount()).toBe(3);
  });

  it('records the jobs the worker makes with the id of the request that asked for the data', async () => {
    world();
    const res = await h.sim.app.request('http://localhost/api/tasks/1/data/?org=acme', {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('alice:password').toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ image_quality: 70, remote_files: files(4).map((f) => `http://x.test/${f}`) }),
    });
    expect(res.status).toBe(202);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const rows = [...eventsOf(h.state()).store.rows()].filter((r) => r.scope === 'create:job');
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(JSON.parse(row.payload as string).request.id).toBe(requestId);
  });

  it('fails with the message of a requestFails rule: no jobs, the data can be sent again', async () => {
    world();
    await fault({
      match: { operation: 'tasks.create_data' },
      trigger: { times: 1 },
      effect: { requestFails: { message: 'ValueError: No media data found\n' } },
    });
    expect((await createData()).status).toBe(202);
    expect((await h.get(path(RQ), { as: 'alice' })).body).toMatchObject({
      status: 'failed',
      message: 'ValueError: No media data found\n',
      expiry_date: '2027-01-01T00:00:00.000002Z',
    });
    expect(await jobCount()).toBe(0);
    expect((await createData()).status).toBe(202);
    expect((await h.get(path(RQ), { as: 'alice' })).body.status).toBe('finished');
  });

  it('keeps a request running for N polls, and a lost one started until the control plane ends it', async () => {
    world();
    await fault({
      match: { operation: 'tasks.create_data' },
      trigger: { times: 1 },
      effect: { requestDelay: { polls: 2 } },
    });
    await createData();
    const poll = async () => (await h.get(path(RQ), { as: 'alice' })).body.status;
    expect([await poll(), await poll(), await poll()]).toEqual(['started', 'started', 'finished']);

    world();
    await fault({
      match: { operation: 'tasks.create_data' },
      trigger: { times: 1 },
      effect: { requestLost: true },
    });
    await createData();
    h.advance('1d');
    expect(await poll()).toBe('started');
    const listed = (await (await h.sim.app.request('http://localhost/_sim/requests')).json()) as {
      requests: unknown[];
    };
    expect(listed.requests).toEqual([expect.objectContaining({ rq_id: RQ, status: 'started', lost: true })]);
    const done = await h.sim.app.request('http://localhost/_sim/requests/complete', {
      method: 'POST',
      body: JSON.stringify({
        rq_id: RQ,
        fail: 'rq.timeouts.JobTimeoutException: Task exceeded maximum timeout value\n',
      }),
    });
    expect(done.status).toBe(200);
    expect((await h.get(path(RQ), { as: 'alice' })).body).toMatchObject({
      status: 'failed',
      message: 'rq.timeouts.JobTimeoutException: Task exceeded maximum timeout value\n',
    });
  });

  it('keeps a request queued for `queued` alone, then runs it for its usual time after the queue', async () => {
    world();
    // Usually queued 1 s and finished 3 s after enqueue: 2 s of work once a worker takes it.
    await settings({ queued: '1s', taskCreation: '3s' });
    await fault({
      match: { operation: 'tasks.create_data' },
      trigger: { times: 1 },
      effect: { requestDelay: { queued: '10s' } },
    });
    await createData();
    const status = async () => (await h.get(path(RQ), { as: 'alice' })).body.status;
    h.advance('9999ms');
    expect(await status()).toBe('queued');
    h.advance('1ms');
    expect(await status()).toBe('started');
    h.advance('1999ms');
    expect(await status()).toBe('started');
    h.advance('1ms');
    expect(await status()).toBe('finished');
  });

  it('keeps a pending request across a state snapshot and finishes it on time', async () => {
    world();
    await settings({ taskCreation: '5s' });
    await createData();
    const snapshot = await (await h.sim.app.request('http://localhost/_sim/state')).json();
    await h.sim.app.request('http://localhost/_sim/reset', { method: 'POST' });
    const put = await h.sim.app.request('http://localhost/_sim/state', {
      method: 'PUT',
      body: JSON.stringify(snapshot),
    });
    expect(put.status, await put.clone().text()).toBeLessThan(300);
    expect((await h.get(path(RQ), { as: 'alice' })).body.status).toBe('started');
    h.advance('5s');
    expect((await h.get(path(RQ), { as: 'alice' })).body.status).toBe('finished');
    expect(await jobCount()).toBe(3);
  });
});

describe('completed:request[create:task] webhooks', () => {
  it('go to the organization and project webhooks subscribed, signed, shaped event/request/webhook_id', async () => {
    world();
    const r = await startReceiver({ secret: 'k' });
    receivers.push(r);
    const hook = async (b: ReturnType<typeof aWebhook>) => {
      const res = await h.post('/api/webhooks?org=acme', b.to(r.url).withSecret('k').build(), {
        as: 'alice',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as number;
    };
    const org = await hook(aWebhook().forOrganization().withEvents('completed:request[create:task]'));
    const project = await hook(aWebhook().forProject(1).withEvents('completed:request[create:task]'));
    await hook(aWebhook().forProject(1).withEvents('create:job'));
    await createData();
    await h.idle();
    const completions = r.requests.filter((q) => q.json.event === 'completed:request[create:task]');
    expect(completions.map((q) => q.json.webhook_id).sort()).toEqual([org, project].sort());
    const answer = (await h.get(path(RQ), { as: 'alice' })).body;
    for (const q of completions) {
      expect(q.signatureValid).toBe(true);
      expect(Object.keys(q.json)).toEqual(['event', 'request', 'webhook_id']);
      expect(q.json.request).toEqual(answer);
      expect(requestSchema.parse(q.json.request)).toEqual(q.json.request);
    }
    // The jobs' own events came first, from the worker.
    const order = r.requests.map((q) => q.json.event);
    expect(order.indexOf('create:job')).toBeLessThan(order.indexOf('completed:request[create:task]'));
  });

  it('tell a failure too, with the failed request', async () => {
    world();
    const r = await startReceiver();
    receivers.push(r);
    await h.post(
      '/api/webhooks?org=acme',
      aWebhook().forOrganization().to(r.url).withEvents('completed:request[create:task]').build(),
      { as: 'alice' },
    );
    await fault({
      match: { operation: 'tasks.create_data' },
      effect: {
        requestFails: { message: 'Exception: Failed to download http://x.test/a.jpg; HTTP error 404\n' },
      },
    });
    await createData();
    await h.idle();
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]?.json.request).toMatchObject({ status: 'failed', id: RQ });
  });
});

describe('upload forms', () => {
  const auth = `Basic ${Buffer.from('alice:password').toString('base64')}`;
  const send = (method: string, url: string, headers: Record<string, string>, body?: string) =>
    h.sim.app.request(`http://localhost${url}`, {
      method,
      headers: { authorization: auth, ...headers },
      body,
    });
  const multipart = (fields: [string, string, string?][]) => {
    const boundary = 'XyZ';
    const body = fields
      .map(
        ([name, value, filename]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n${filename ? 'Content-Type: image/jpeg\r\n' : ''}\r\n${value}\r\n`,
      )
      .join('');
    return { body: `${body}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
  };

  it('takes client_files in one multipart request', async () => {
    world();
    const form = multipart([
      ['image_quality', '75'],
      ['client_files[0]', '\xff\xd8binary', 'a.jpg'],
      ['client_files[1]', '\xff\xd8binary', 'b.jpg'],
      ['client_files[2]', '\xff\xd8binary', 'c.jpg'],
    ]);
    const res = await send('POST', '/api/tasks/1/data/?org=acme', { 'content-type': form.type }, form.body);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ rq_id: RQ });
    expect((await h.get('/api/tasks/1?org=acme', { as: 'alice' })).body).toMatchObject({
      size: 3,
      image_quality: 75,
    });
  });

  it('runs the SDK flow: Upload-Start, Upload-Multiple batches, a TUS upload, then Upload-Finish', async () => {
    world();
    const data = '/api/tasks/1/data/?org=acme';
    expect((await send('POST', data, { 'upload-start': '' })).status).toBe(202);
    const batch = multipart([
      ['client_files[0]', 'x', 'a.jpg'],
      ['client_files[1]', 'y', 'b.jpg'],
    ]);
    expect(
      (await send('POST', data, { 'upload-multiple': '', 'content-type': batch.type }, batch.body)).status,
    ).toBe(200);
    const meta = `filename ${Buffer.from('big.mp4').toString('base64')}`;
    const created = await send('POST', '/api/tasks/1/data/', {
      'upload-length': '20',
      'upload-metadata': meta,
      'tus-resumable': '1.0.0',
      origin: 'http://localhost',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('tus-resumable')).toBe('1.0.0');
    expect(created.headers.get('upload-filename')).toBe('big.mp4');
    const location = created.headers.get('location') as string;
    expect(location).toMatch(/^http:\/\/localhost\/api\/tasks\/1\/data\/2_[0-9a-f-]{36}$/);
    const chunkUrl = new URL(location).pathname;
    // The same name again is refused while it uploads.
    expect(
      (await send('POST', '/api/tasks/1/data/', { 'upload-length': '5', 'upload-metadata': meta })).status,
    ).toBe(409);
    const patch = (offset: number, bytes: string) =>
      send(
        'PATCH',
        chunkUrl,
        {
          'upload-offset': String(offset),
          'content-type': 'application/offset+octet-stream',
          'content-length': String(bytes.length),
        },
        bytes,
      );
    const first = await patch(0, '0123456789');
    expect(first.status).toBe(204);
    expect(first.headers.get('upload-offset')).toBe('10');
    expect((await patch(0, '0123456789')).status).toBe(409);
    expect((await patch(10, '0123456789ABC')).status).toBe(413);
    const head = await send('HEAD', chunkUrl, {});
    expect(head.status).toBe(200);
    expect([head.headers.get('upload-offset'), head.headers.get('upload-length')]).toEqual(['10', '20']);
    expect((await patch(10, '0123456789')).status).toBe(204);
    // Complete: the upload's meta is gone.
    expect((await send('HEAD', chunkUrl, {})).status).toBe(404);
    const finish = await send(
      'POST',
      data,
      { 'upload-finish': '', 'content-type': 'application/json' },
      JSON.stringify({ image_quality: 70 }),
    );
    expect(finish.status).toBe(202);
    expect((await h.get('/api/tasks/1?org=acme', { as: 'alice' })).body.size).toBe(3);
  });

  it('refuses a TUS upload without a filename, and another user the upload of someone else', async () => {
    world();
    const missing = await send('POST', '/api/tasks/1/data/', { 'upload-length': '5' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toBe("Metadata is expected to contain 'filename' key");
    const created = await send('POST', '/api/tasks/1/data/', {
      'upload-length': '5',
      'upload-metadata': `filename ${Buffer.from('a.jpg').toString('base64')}`,
    });
    const chunkUrl = new URL(created.headers.get('location') as string).pathname;
    // A file id not of CVAT's form is no route at all: Django's 404 page.
    const bad = await send('PATCH', '/api/tasks/1/data/1', { 'upload-offset': '0', 'content-length': '0' });
    expect(bad.status).toBe(404);
    expect(await bad.text()).toContain('<title>Not Found</title>');
    const bob = `Basic ${Buffer.from('bob:password').toString('base64')}`;
    const other = await h.sim.app.request(`http://localhost${chunkUrl}`, {
      method: 'HEAD',
      headers: { authorization: bob, 'x-organization': 'acme' },
    });
    expect(other.status).toBe(403);
  });
});

describe('GET /api/requests and cancel', () => {
  it("lists the caller's own requests with CVAT's simple filters, newest first", async () => {
    world();
    h.seed({ tasks: [{ name: 't2', owner: 'alice', org: 'acme' }] });
    await createData();
    h.advance('1s');
    await h.post(
      '/api/tasks/2/data/?org=acme',
      { image_quality: 70, server_files: ['a.jpg'] },
      { as: 'alice' },
    );
    const list = async (q: string, as = 'alice') => (await h.get(`/api/requests${q}`, { as })).body;
    const all = await list('');
    expect(paginatedRequestListSchema.parse(all)).toEqual(all);
    expect(all.count).toBe(2);
    expect(all.results.map((r: { id: string }) => r.id)).toEqual([
      'action=create&target=task&target_id=2',
      RQ,
    ]);
    expect((await list('?task_id=1')).results.map((r: { id: string }) => r.id)).toEqual([RQ]);
    expect((await list('?action=create&target=task&status=finished')).count).toBe(2);
    expect((await list('?action=export')).count).toBe(0);
    expect((await list('?sort=created_date')).results[0].id).toBe(RQ);
    expect((await list('', 'bob')).count).toBe(0);
  });

  it('lets whoever may view the task read its creation request, others get 403', async () => {
    world();
    await createData();
    expect((await h.get(path(RQ), { as: 'bob' })).status).toBe(200);
    expect((await h.get(path(RQ), { as: 'outsider' })).status).toBe(403);
    const unknown = await h.get(path('action=create&target=task&target_id=99'), { as: 'alice' });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('There is no request with specified id');
  });

  it('cancels a queued request (its work never runs) and refuses a started task creation', async () => {
    world();
    await settings({ queued: '10s', taskCreation: '20s' });
    await createData();
    expect((await h.post(`${path(RQ)}/cancel`, undefined, { as: 'bob' })).status).toBe(403);
    expect((await h.post(`${path(RQ)}/cancel`, undefined, { as: 'alice' })).status).toBe(200);
    expect((await h.get(path(RQ), { as: 'alice' })).status).toBe(404);
    h.advance('1m');
    expect(await jobCount()).toBe(0);
    await createData();
    h.advance('10s');
    // CVAT 2.73 stops only started exports (#10600): a task creation runs to its end.
    const refused = await h.post(`${path(RQ)}/cancel`, undefined, { as: 'alice' });
    expect(refused.status).toBe(400);
    expect(refused.text).toBe(
      'Cancellation of started requests is supported only for export requests executed by production workers',
    );
  });
});
