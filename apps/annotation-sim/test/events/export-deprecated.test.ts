import { queryIdSchema } from '@sims/annotation-schema';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { batch, createHarness, type Harness, type Who } from './support/harness';

const csvRows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

let h: Harness;
afterEach(() => h?.close());

const DEPRECATION = '@1742169600';

async function legacy(query = '', as: Who = 'admin') {
  const res = await h.request(`/api/events${query ? `?${query}` : ''}`, { as });
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

describe('GET /api/events (deprecated export flow)', () => {
  it('starts a job: 202 {query_id} with the Deprecation header', async () => {
    h = createHarness();
    const r = await legacy('project_id=1');
    expect(r.status).toBe(202);
    expect(queryIdSchema.parse(r.body)).toEqual(r.body);
    expect(r.res.headers.get('deprecation')).toBe(DEPRECATION);
    expect(r.res.headers.get('content-type')).toBe('application/vnd.cvat+json');
  });

  it("reads an empty query_id (the SDK's first call) as absent: a new query, 202 with a fresh id", async () => {
    h = createHarness();
    const first = await legacy('query_id=');
    expect(first.status).toBe(202);
    expect(queryIdSchema.parse(first.body)).toEqual(first.body);
    const second = await legacy('query_id=&project_id=1');
    expect(second.status).toBe(202);
    expect(second.body.query_id).not.toBe(first.body.query_id);
    // The id it answered is a running job: polling it goes on as for any other query.
    expect((await legacy(`query_id=${first.body.query_id}`)).status).toBe(202);
  });

  it('answers 202 while running, 201 (empty) when ready, then 200 with the file, after which the job is gone', async () => {
    h = createHarness();
    await h.request('/api/events', {
      json: batch('2026-08-12T10:00:00Z', [{ scope: 'load:job', timestamp: '2026-08-12T10:00:00Z' }]),
    });
    const { query_id } = (await legacy()).body;
    const statuses: number[] = [];
    const poll = async (extra = '') => {
      const r = await legacy(`query_id=${query_id}${extra}`);
      statuses.push(r.status);
      return r;
    };
    expect((await poll()).body).toEqual({ query_id });
    await h.advance('1999ms');
    await poll();
    await h.advance('1ms');
    const ready = await poll();
    expect(ready.text).toBe('');
    expect(ready.res.headers.get('content-type')).toBeNull();
    expect(ready.res.headers.get('deprecation')).toBe(DEPRECATION);
    await h.advance('1h');
    const file = await poll('&action=download');
    expect(file.res.headers.get('content-type')).toBe('text/csv');
    // datetime.now() at download time, not the enqueue time.
    expect(file.res.headers.get('content-disposition')).toBe(
      'attachment; filename="logs_2026_08_12_11_00_02.csv"',
    );
    expect(file.res.headers.get('deprecation')).toBeNull();
    expect(csvRows(file.text).map((r) => r.scope)).toEqual(['load:job']);
    // The job was deleted: the same query_id starts a new export.
    const again = await poll();
    expect(statuses).toEqual([202, 202, 201, 200, 202]);
    expect(again.body).toEqual({ query_id });
  });

  it('answers 202 to action=download while the job is still running', async () => {
    h = createHarness();
    const { query_id } = (await legacy()).body;
    expect((await legacy(`query_id=${query_id}&action=download`)).status).toBe(202);
  });

  it('answers 500 with the error as a JSON string for a failed job, and forgets it', async () => {
    h = createHarness();
    h.events().settings.storeConnected = false;
    const { query_id } = (await legacy()).body;
    await h.advance('2s');
    const failed = await legacy(`query_id=${query_id}`);
    expect(failed.status).toBe(500);
    expect(failed.res.headers.get('deprecation')).toBe(DEPRECATION);
    expect(failed.body).toMatch(/^clickhouse_connect\.driver\.exceptions\.OperationalError: /);
    expect((await legacy(`query_id=${query_id}`)).status).toBe(202);
  });

  it('rejects cloud storage parameters and unknown actions with 400 lists', async () => {
    h = createHarness();
    const cloud = await legacy('location=cloud_storage&cloud_storage_id=1');
    expect(cloud.status).toBe(400);
    expect(cloud.body).toEqual(['This endpoint does not support exporting events to cloud storage']);
    expect(cloud.res.headers.get('deprecation')).toBeNull();
    const action = await legacy('action=upload');
    expect(action.body).toEqual(['Unexpected action specified for the request']);
  });

  it('applies the same filters and permission checks as the current flow', async () => {
    h = createHarness();
    expect((await legacy('from=2026-08-12T10:00:01Z&to=2026-08-12T10:00:00Z')).body).toEqual([
      "'from' must be before than 'to'",
    ]);
    const forbidden = await legacy('user_id=1', 'alice');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ detail: "You don't have permission to view events with user_id=1" });
    expect((await legacy('', null)).status).toBe(401);
  });

  it('answers 500 for a query_id that is not a UUID', async () => {
    h = createHarness();
    expect((await legacy('query_id=42')).status).toBe(500);
  });
});
