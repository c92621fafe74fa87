import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

const QUERY_ID = '5f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
const RQ_ID = `action=export&target=events&id=${QUERY_ID}&user_id=2`;

async function seedJob(body: Record<string, unknown>) {
  const res = await h.app.request('/_sim/events/exports', { method: 'POST', body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

describe('events control plane', () => {
  it('seeds a running export that stays started until completed', async () => {
    h = createHarness();
    await seedJob({ query_id: QUERY_ID, user_id: 2, username: 'alice', status: 'started' });
    await h.advance('1d');
    const res = await h.request(`/api/requests/${encodeURIComponent(RQ_ID)}`, { as: 'alice' });
    expect(await res.json()).toMatchObject({
      id: RQ_ID,
      status: 'started',
      operation: { type: 'export:events' },
    });
    expect((await h.request(`/api/events?query_id=${QUERY_ID}`, { as: 'alice' })).status).toBe(202);
  });

  it('seeds a finished export whose file downloads with the enqueue time in its name', async () => {
    h = createHarness();
    await h.app.request('/_sim/events/records', {
      method: 'POST',
      body: JSON.stringify({
        events: [{ scope: 'create:task', obj_id: 3, project_id: 1, timestamp: '2026-08-12T09:59:58.104Z' }],
      }),
    });
    await seedJob({
      query_id: QUERY_ID,
      user_id: 2,
      username: 'alice',
      status: 'finished',
      created_at: '2026-08-12T10:00:05Z',
      filters: { project_id: 1 },
    });
    const res = await h.request(`/api/events/download?rq_id=${encodeURIComponent(RQ_ID)}`, { as: 'alice' });
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="logs_2026_08_12_10_00_05.csv"',
    );
    expect((await res.text()).split('\r\n')[1]).toBe(
      'create:task,,3,,server,2026-08-12 09:59:58.104000+00:00,,0,1,,,,,,,,,',
    );
    expect((await h.request(`/api/events?query_id=${QUERY_ID}`, { as: 'alice' })).status).toBe(201);
  });

  it('keeps a seeded queued export queued across a state snapshot, until completed', async () => {
    h = createHarness();
    await seedJob({ query_id: QUERY_ID, user_id: 2, username: 'alice', status: 'queued' });
    const snapshot = await (await h.app.request('/_sim/state')).json();
    const put = await h.app.request('/_sim/state', { method: 'PUT', body: JSON.stringify(snapshot) });
    expect(put.status, await put.clone().text()).toBeLessThan(300);
    const url = `/api/requests/${encodeURIComponent(RQ_ID)}`;
    expect(await (await h.request(url, { as: 'alice' })).json()).toMatchObject({
      status: 'queued',
      started_date: null,
    });
    await h.app.request('/_sim/events/exports/complete', {
      method: 'POST',
      body: JSON.stringify({ rq_id: RQ_ID }),
    });
    expect(await (await h.request(url, { as: 'alice' })).json()).toMatchObject({
      status: 'finished',
      // Completed in the instant it was seeded: its worker's start shown one microsecond after the queueing.
      started_date: '2026-08-12T10:00:00.000001Z',
    });
  });

  it('seeds a failed export with its message', async () => {
    h = createHarness();
    await seedJob({ query_id: QUERY_ID, user_id: 2, username: 'alice', status: 'failed', message: 'boom' });
    const res = await h.request(`/api/requests/${encodeURIComponent(RQ_ID)}`, { as: 'alice' });
    expect(await res.json()).toMatchObject({ status: 'failed', message: 'boom' });
  });

  it('reports settings, stored and dropped rows, and jobs', async () => {
    h = createHarness();
    await h.app.request('/_sim/events/settings', {
      method: 'PATCH',
      body: JSON.stringify({ storeConnected: false }),
    });
    await h.request('/api/events', {
      json: {
        timestamp: '2026-08-12T10:00:00Z',
        events: [{ scope: 'load:cvat', timestamp: '2026-08-12T10:00:00Z' }],
      },
    });
    const body = await (await h.app.request('/_sim/events')).json();
    expect(body).toMatchObject({
      settings: { storeConnected: false, exportDuration: 2000 },
      stored: 0,
      dropped: 1,
      jobs: [],
    });
  });

  it('caps the store at maxEvents, evicting the oldest rows and counting them', async () => {
    h = createHarness();
    await h.app.request('/_sim/events/settings', { method: 'PATCH', body: JSON.stringify({ maxEvents: 2 }) });
    const rows = [1, 2, 3].map((i) => ({ scope: 'load:job', obj_id: i }));
    const res = await h.app.request('/_sim/events/records', {
      method: 'POST',
      body: JSON.stringify({ events: rows }),
    });
    expect(await res.json()).toEqual({ stored: 3 });
    expect(await (await h.app.request('/_sim/events')).json()).toMatchObject({
      stored: 2,
      dropped: 0,
      evicted: 1,
    });
    expect([...h.events().store.rows()].map((r) => r.obj_id)).toEqual([2, 3]);
  });

  it('rejects bad control input with the control-plane envelope', async () => {
    h = createHarness();
    const res = await h.app.request('/_sim/events/settings', {
      method: 'PATCH',
      body: JSON.stringify({ exportDuration: 'soon' }),
    });
    expect(res.status).toBe(400);
    const bad = await h.app.request('/_sim/events/exports', {
      method: 'POST',
      body: JSON.stringify({ query_id: 'x' }),
    });
    expect(bad.status).toBe(400);
  });
});
