import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

let h: Harness;
afterEach(() => h?.close());

async function startExport(query = '') {
  const res = await h.request(`/api/events/export${query}`, { method: 'POST' });
  expect(res.status).toBe(202);
  return ((await res.json()) as { rq_id: string }).rq_id;
}
async function statusOf(rqId: string) {
  const res = await h.request(`/api/requests/${encodeURIComponent(rqId)}`);
  return (await res.json()) as { status: string; message: string; result_url: string | null };
}

describe('export faults', () => {
  it('keeps an export running for the duration of an exportDelay rule and finishes exactly when time passes it', async () => {
    h = createHarness();
    await h.addFault({
      match: { operation: 'events.create_export' },
      effect: { exportDelay: { duration: '30s' } },
    });
    const rqId = await startExport();
    await h.advance('29999ms');
    expect((await statusOf(rqId)).status).toBe('started');
    await h.advance('1ms');
    expect((await statusOf(rqId)).status).toBe('finished');
  });

  it('keeps an export queued for the queued part of a delay (no worker picking it up)', async () => {
    h = createHarness();
    await h.addFault({
      match: { operation: 'events.create_export' },
      effect: { exportDelay: { queued: '1h', duration: '1h' } },
    });
    const rqId = await startExport();
    await h.advance('59m');
    expect((await statusOf(rqId)).status).toBe('queued');
    await h.advance('1m');
    expect((await statusOf(rqId)).status).toBe('finished');
  });

  it('keeps an export queued for `queued` alone, then runs it for the usual remaining time', async () => {
    h = createHarness();
    await h.addFault({
      match: { operation: 'events.create_export' },
      effect: { exportDelay: { queued: '10m' } },
    });
    const rqId = await startExport();
    await h.advance('10m');
    expect((await statusOf(rqId)).status).toBe('started');
    await h.advance('1499ms');
    expect((await statusOf(rqId)).status).toBe('started');
    await h.advance('1ms');
    expect((await statusOf(rqId)).status).toBe('finished');
  });

  it('keeps an export running for N polls, then finishes on the next one, whatever the clock says', async () => {
    h = createHarness();
    await h.addFault({ match: { operation: 'events.create_export' }, effect: { exportDelay: { polls: 3 } } });
    const rqId = await startExport();
    await h.advance('1h');
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push((await statusOf(rqId)).status);
    expect(seen).toEqual(['started', 'started', 'started', 'finished', 'finished']);
  });

  it('fails an export with the message of an exportFails rule', async () => {
    h = createHarness();
    await h.addFault({
      match: { operation: 'events.create_export' },
      trigger: { times: 1 },
      effect: { exportFails: { message: 'MemoryError\n', after: '5s' } },
    });
    const rqId = await startExport();
    await h.advance('4s');
    expect((await statusOf(rqId)).status).toBe('started');
    await h.advance('1s');
    expect(await statusOf(rqId)).toMatchObject({
      status: 'failed',
      message: 'MemoryError\n',
      result_url: null,
    });
    const res = await h.request(`/api/events/download?rq_id=${encodeURIComponent(rqId)}`);
    expect(await res.text()).toBe('The export process is not finished');
    const journal = (await (await h.app.request('/_sim/journal?operation=events.create_export')).json()) as {
      entries: { faults: string[] }[];
    };
    expect(journal.entries[0]?.faults).toEqual(['rule-1']);
  });

  it("fails exports with CVAT's ClickHouse message while the analytics store is disconnected", async () => {
    h = createHarness();
    const res = await h.app.request('/_sim/events/settings', {
      method: 'PATCH',
      body: JSON.stringify({ storeConnected: false, exportDuration: '1s' }),
    });
    expect(await res.json()).toMatchObject({ storeConnected: false, exportDuration: 1000 });
    const rqId = await startExport();
    await h.advance('1s');
    const s = await statusOf(rqId);
    expect(s.status).toBe('failed');
    expect(s.message).toMatch(
      /^clickhouse_connect\.driver\.exceptions\.OperationalError: .*Connection refused/,
    );
  });

  it('fails only the export an analyticsStoreDown rule matches', async () => {
    h = createHarness();
    await h.addFault({
      match: { operation: 'events.create_export' },
      trigger: { nth: 1 },
      effect: { analyticsStoreDown: {} },
    });
    const a = await startExport();
    const b = await startExport();
    await h.advance('2s');
    expect((await statusOf(a)).status).toBe('failed');
    expect((await statusOf(b)).status).toBe('finished');
  });

  it('lets generic fault rules target one export by its rq_id as the resource', async () => {
    h = createHarness();
    const a = await startExport();
    const b = await startExport();
    await h.addFault({
      match: { operation: 'requests.retrieve', resource: a },
      effect: { http: { status: 503, body: { detail: 'busy' } } },
    });
    expect((await h.request(`/api/requests/${encodeURIComponent(a)}`)).status).toBe(503);
    expect((await h.request(`/api/requests/${encodeURIComponent(b)}`)).status).toBe(200);
  });

  it('rejects a malformed domain effect by name', async () => {
    h = createHarness();
    const res = await h.app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({ effect: { exportDelay: { duration: '1s', polls: 2 } } }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('duration and polls cannot be combined');
  });

  it('finishes or fails a job on demand through the control plane', async () => {
    h = createHarness();
    const a = await startExport();
    const b = await startExport();
    const done = await h.app.request('/_sim/events/exports/complete', {
      method: 'POST',
      body: JSON.stringify({ rq_id: a }),
    });
    expect(await done.json()).toMatchObject({ status: 'finished' });
    await h.app.request('/_sim/events/exports/complete', {
      method: 'POST',
      body: JSON.stringify({ rq_id: b, fail: 'boom' }),
    });
    expect(await statusOf(b)).toMatchObject({ status: 'failed', message: 'boom' });
    // The cancelled timer does not fire later.
    await h.advance('1h');
    expect((await statusOf(a)).status).toBe('finished');
  });

  it('keeps export jobs and their timing across a state snapshot', async () => {
    h = createHarness();
    const rqId = await startExport();
    const snapshot = await (await h.app.request('/_sim/state')).json();
    await h.app.request('/_sim/reset', { method: 'POST' });
    // The reset world has neither the job nor the users: the snapshot brings both back.
    expect(h.events().jobs.has(rqId)).toBe(false);
    const put = await h.app.request('/_sim/state', { method: 'PUT', body: JSON.stringify(snapshot) });
    expect(put.status, await put.clone().text()).toBeLessThan(300);
    expect((await statusOf(rqId)).status).toBe('queued');
    await h.advance('2s');
    expect((await statusOf(rqId)).status).toBe('finished');
  });
});
