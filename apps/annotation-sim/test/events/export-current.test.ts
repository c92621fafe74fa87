import { paginatedRequestListSchema, requestSchema, rqIdSchema } from '@sims/annotation-schema';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { batch, createHarness, type Harness, type Who } from './support/harness';

const csvRows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

let h: Harness;
afterEach(() => h?.close());

const RQ_ID_RE =
  /^action=export&target=events&id=[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}&user_id=(\d+)$/;

async function startExport(query = '', as: Who = 'admin', org?: string) {
  const res = await h.request(`/api/events/export${query ? `?${query}` : ''}`, { method: 'POST', as, org });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  // biome-ignore lint/suspicious/noExplicitAny: checked field by field
  return { res, status: res.status, text, body: body as any };
}

async function status(rqId: string, as: Who = 'admin') {
  const res = await h.request(`/api/requests/${encodeURIComponent(rqId)}`, { as });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  // biome-ignore lint/suspicious/noExplicitAny: checked field by field
  return { res, status: res.status, text, body: body as any };
}

async function download(rqId: string, as: Who = 'admin') {
  return h.request(`/api/events/download?rq_id=${encodeURIComponent(rqId)}`, { as });
}

async function logClientEvent(as: Who, scope = 'click:element', at = '2026-08-12T10:00:00Z', extra = {}) {
  const res = await h.request('/api/events', { as, json: batch(at, [{ scope, timestamp: at, ...extra }]) });
  expect(res.status).toBe(201);
}

describe('POST /api/events/export and GET /api/requests/{rq_id}', () => {
  it("answers 202 with an rq_id in CVAT's format", async () => {
    h = createHarness();
    const r = await startExport('', 'alice');
    expect(r.status).toBe(202);
    expect(rqIdSchema.parse(r.body)).toEqual(r.body);
    expect(r.body.rq_id).toMatch(RQ_ID_RE);
    expect(r.body.rq_id.endsWith('&user_id=2')).toBe(true);
    expect(r.res.headers.get('content-type')).toBe('application/vnd.cvat+json');
  });

  it('goes queued, started, finished exactly as the world clock passes 500 ms and 2 s', async () => {
    h = createHarness();
    const { rq_id } = (await startExport()).body;
    const seen: string[] = [];
    const poll = async () => {
      const r = await status(rq_id);
      expect(r.status, r.text).toBe(200);
      expect(requestSchema.safeParse(r.body).error).toBeUndefined();
      seen.push(r.body.status);
      return r.body;
    };
    const queued = await poll();
    expect(queued).toEqual({
      status: 'queued',
      message: '',
      id: rq_id,
      operation: {
        type: 'export:events',
        target: 'events',
        project_id: null,
        task_id: null,
        job_id: null,
        org_id: null,
        format: null,
        lightweight: null,
      },
      progress: 0,
      created_date: '2026-08-12T10:00:00Z',
      started_date: null,
      finished_date: null,
      expiry_date: null,
      owner: { id: 1, username: 'admin' },
      result_url: null,
      result_id: null,
    });
    await poll(); // reading never advances it
    await h.advance('499ms');
    await poll();
    await h.advance('1ms');
    const started = await poll();
    expect(started.started_date).toBe('2026-08-12T10:00:00.500000Z');
    await h.advance('1499ms');
    await poll();
    await h.advance('1ms');
    const finished = await poll();
    expect(seen).toEqual(['queued', 'queued', 'queued', 'started', 'started', 'finished']);
    expect(finished).toMatchObject({
      status: 'finished',
      finished_date: '2026-08-12T10:00:02Z',
      expiry_date: '2026-08-13T10:00:02Z',
      result_url: `http://localhost/api/events/download?rq_id=${encodeURIComponent(rq_id)}`,
    });
  });

  it('serves the CSV at result_url as an attachment named after the enqueue time', async () => {
    h = createHarness();
    await logClientEvent('admin');
    const { rq_id } = (await startExport()).body;
    await h.advance('2s');
    const { body } = await status(rq_id);
    const res = await h.request(new URL(body.result_url).pathname + new URL(body.result_url).search);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv');
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="logs_2026_08_12_10_00_00.csv"',
    );
    const rows = csvRows(await res.text());
    expect(rows.map((r) => r.scope)).toEqual(['click:element']);
    // Repeatable until the result expires.
    expect((await download(rq_id)).status).toBe(200);
  });

  it('uses the filename parameter for the attachment', async () => {
    h = createHarness();
    const { rq_id } = (await startExport('filename=audit.csv')).body;
    await h.advance('2s');
    const res = await download(rq_id);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="audit.csv"');
  });

  it('names a non-ASCII filename the way django-sendfile2 does', async () => {
    h = createHarness();
    const { rq_id } = (await startExport(`filename=${encodeURIComponent('journal-été.csv')}`)).body;
    await h.advance('2s');
    const res = await download(rq_id);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="journal-ete.csv"; filename*=UTF-8''journal-%C3%A9t%C3%A9.csv`,
    );
  });

  it('answers 409 with the same rq_id when a query_id is reused while the job is active, and replaces it once done', async () => {
    h = createHarness();
    const queryId = '0d6c9f4e-2a7b-4e3c-9b1d-8f5e6a7c2b10';
    const first = await startExport(`query_id=${queryId}`);
    expect(first.status).toBe(202);
    expect(first.body.rq_id).toBe(`action=export&target=events&id=${queryId}&user_id=1`);
    const again = await startExport(`query_id=${queryId}`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ rq_id: first.body.rq_id });
    await h.advance('2s');
    expect((await startExport(`query_id=${queryId}`)).status).toBe(202);
    expect((await status(first.body.rq_id)).body.status).toBe('queued');
  });

  it('normalizes query_id like uuid.UUID and answers 500 for one that is not a UUID', async () => {
    h = createHarness();
    const r = await startExport('query_id={0D6C9F4E2A7B4E3C9B1D8F5E6A7C2B10}');
    expect(r.body.rq_id).toBe(
      'action=export&target=events&id=0d6c9f4e-2a7b-4e3c-9b1d-8f5e6a7c2b10&user_id=1',
    );
    const bad = await startExport('query_id=nope');
    expect(bad.status).toBe(500);
  });

  it("answers 400 when 'from' is after 'to', and 500 for a date isoparse rejects", async () => {
    h = createHarness();
    const r = await startExport('from=2026-08-12T10:00:00Z&to=2026-08-11T10:00:00Z');
    expect(r.status).toBe(400);
    expect(r.body).toEqual(["'from' must be before than 'to'"]);
    expect((await startExport('from=yesterday')).status).toBe(500);
  });

  it('limits a non-admin in the sandbox to their own events and rejects another user_id with 403', async () => {
    h = createHarness();
    await logClientEvent('alice');
    await logClientEvent('carol');
    const forbidden = await startExport('user_id=4', 'alice');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ detail: "You don't have permission to view events with user_id=4" });
    expect((await startExport('user_id=2', 'alice')).status).toBe(202);
    const { rq_id } = (await startExport('', 'alice')).body;
    await h.advance('2s');
    const rows = csvRows(await (await download(rq_id, 'alice')).text());
    expect(rows.map((r) => r.user_name)).toEqual(['alice']);
  });

  it('limits an organization owner to the organization and a worker to their own events in it', async () => {
    h = createHarness();
    await logClientEvent('alice');
    await h.request('/api/events', {
      as: 'alice',
      org: 'acme',
      json: batch('2026-08-12T10:00:00Z', [{ scope: 'load:job', timestamp: '2026-08-12T10:00:00Z' }]),
    });
    await h.request('/api/events', {
      as: 'bob',
      org: 'acme',
      json: batch('2026-08-12T10:00:00Z', [{ scope: 'zoom:image', timestamp: '2026-08-12T10:00:00Z' }]),
    });
    const owner = await startExport('', 'alice', 'acme');
    const worker = await startExport('', 'bob', 'acme');
    // CVAT's collision: query org_id is also the IAM organization context, so an unknown one is 404.
    expect((await startExport('org_id=11', 'alice')).body).toEqual({
      detail: '11 organization does not exist.',
    });
    expect((await startExport('user_id=2', 'bob', 'acme')).status).toBe(403);
    await h.advance('2s');
    const scopes = async (rqId: string, who: Who) =>
      csvRows(await (await download(rqId, who)).text()).map((r) => r.scope);
    expect(await scopes(owner.body.rq_id, 'alice')).toEqual(['load:job', 'zoom:image']);
    expect(await scopes(worker.body.rq_id, 'bob')).toEqual(['zoom:image']);
    expect((await status(owner.body.rq_id, 'alice')).body.operation.org_id).toBe(10);
  });

  it('answers 403 to a caller outside the organization', async () => {
    h = createHarness();
    const r = await startExport('', 'carol', 'acme');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ detail: 'You do not have permission to perform this action.' });
  });

  it('filters by ids and by an inclusive from/to window', async () => {
    h = createHarness();
    await logClientEvent('admin', 'load:job', '2026-08-12T10:00:00Z', { job_id: 1 });
    await h.advance('1s');
    await logClientEvent('admin', 'load:job', '2026-08-12T10:00:01Z', { job_id: 2 });
    await h.advance('1s');
    await logClientEvent('admin', 'load:job', '2026-08-12T10:00:02Z', { job_id: 2 });
    const byJob = await startExport('job_id=2');
    const window = await startExport('from=2026-08-12T10:00:00Z&to=2026-08-12T10:00:01Z');
    await h.advance('2s');
    const jobs = async (rqId: string) => csvRows(await (await download(rqId)).text()).map((r) => r.job_id);
    expect(await jobs(byJob.body.rq_id)).toEqual(['2', '2']);
    expect(await jobs(window.body.rq_id)).toEqual(['1', '2']);
  });

  it('does not include events logged after the export ran', async () => {
    h = createHarness();
    await logClientEvent('admin', 'load:job', '2026-08-12T10:00:00Z');
    const { rq_id } = (await startExport()).body;
    await h.advance('2s');
    // A late batch whose corrected timestamps fall inside the window.
    await h.request('/api/events', {
      json: batch('2026-08-12T10:00:02Z', [{ scope: 'save:job', timestamp: '2026-08-12T09:59:59Z' }]),
    });
    const rows = csvRows(await (await download(rq_id)).text());
    expect(rows.map((r) => r.scope)).toEqual(['load:job']);
  });

  it('answers cloud storage exports with a finished job without result_url, and no local file', async () => {
    h = createHarness();
    const noId = await startExport('location=cloud_storage');
    expect(noId.status).toBe(400);
    const { rq_id } = (await startExport('location=cloud_storage&cloud_storage_id=3')).body;
    await h.advance('2s');
    const s = await status(rq_id);
    expect(s.body).toMatchObject({ status: 'finished', result_url: null });
    const res = await download(rq_id);
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('The export process has no result file to be downloaded locally');
  });

  it('answers 404 with plain text for an unknown request id, and 403 for another user’s job', async () => {
    h = createHarness();
    const missing = await status(
      'action=export&target=events&id=0d6c9f4e-2a7b-4e3c-9b1d-8f5e6a7c2b10&user_id=1',
    );
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('There is no request with specified id');
    expect(missing.res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const { rq_id } = (await startExport('', 'alice')).body;
    const other = await status(rq_id, 'carol');
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect((await status(rq_id, 'admin')).status).toBe(200);
  });

  it('forgets finished jobs after the result TTL (24 h)', async () => {
    h = createHarness();
    const { rq_id } = (await startExport()).body;
    await h.advance('2s');
    await h.advance('23h59m59s');
    expect((await status(rq_id)).status).toBe(200);
    await h.advance('1s');
    expect((await status(rq_id)).status).toBe(404);
    const res = await download(rq_id);
    expect(await res.text()).toBe('Unknown export request id');
    await startExport();
    expect(h.events().jobs.has(rq_id)).toBe(false);
  });

  it('cancels a queued export (200, then gone) and refuses a started one', async () => {
    h = createHarness();
    const cancel = (rqId: string, as: Who = 'admin') =>
      h.request(`/api/requests/${encodeURIComponent(rqId)}/cancel`, { method: 'POST', as });
    const queued = (await startExport('', 'alice')).body.rq_id;
    expect((await cancel(queued, 'carol')).status).toBe(403);
    const ok = await cancel(queued, 'alice');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('');
    expect((await status(queued, 'alice')).status).toBe(404);
    await h.advance('1h'); // its timer is gone too
    expect((await status(queued, 'alice')).status).toBe(404);
    const started = (await startExport()).body.rq_id;
    await h.advance('500ms');
    const refused = await cancel(started);
    expect(refused.status).toBe(400);
    // CVAT 2.73 stops started dataset, annotations and backup exports only: an events export runs on.
    expect(await refused.text()).toBe(
      'Cancellation of started requests is supported only for export requests executed by production workers',
    );
    expect((await cancel(queued)).status).toBe(404);
  });

  it('lists the caller’s own requests, newest first, paginated', async () => {
    h = createHarness();
    await startExport('', 'alice');
    await h.advance('1s');
    await startExport('', 'alice');
    await startExport('', 'carol');
    const res = await h.request('/api/requests?page_size=1', { as: 'alice' });
    // biome-ignore lint/suspicious/noExplicitAny: checked field by field
    const body = (await res.json()) as any;
    expect(paginatedRequestListSchema.safeParse(body).error).toBeUndefined();
    expect(body.count).toBe(2);
    expect(body.results[0].created_date).toBe('2026-08-12T10:00:01Z');
    // DRF's replace_query_param sorts the query's keys.
    expect(body.next).toBe('http://localhost/api/requests?page=2&page_size=1');
    expect(body.previous).toBeNull();
  });
});

describe('GET /api/events/download', () => {
  it('answers the reference’s 400 cases', async () => {
    h = createHarness();
    const missing = await h.request('/api/events/download');
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual(['Missing request id in the query parameters']);
    const malformed = await download('id=1');
    expect(await malformed.json()).toEqual(['Unexpected request id format']);
    const unknown = await download(
      'action=export&target=events&id=0d6c9f4e-2a7b-4e3c-9b1d-8f5e6a7c2b10&user_id=1',
    );
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toBe('Unknown export request id');
    const { rq_id } = (await startExport()).body;
    const early = await download(rq_id);
    expect(early.status).toBe(400);
    expect(await early.text()).toBe('The export process is not finished');
  });

  it('answers 403 when the rq_id belongs to another user', async () => {
    h = createHarness();
    const { rq_id } = (await startExport('', 'alice')).body;
    await h.advance('2s');
    expect((await download(rq_id, 'carol')).status).toBe(403);
    expect((await download(rq_id, 'admin')).status).toBe(200);
  });

  it('answers 404 with a JSON string once the file has expired', async () => {
    h = createHarness();
    const { rq_id } = (await startExport()).body;
    await h.advance('2s');
    const expire = await h.app.request('/_sim/events/exports/expire-file', {
      method: 'POST',
      body: JSON.stringify({ rq_id }),
    });
    expect(expire.status).toBe(200);
    const res = await download(rq_id);
    expect(res.status).toBe(404);
    expect(await res.json()).toBe('The exported file has expired, please retry exporting');
  });
});
