import { clientEventsSchema, requestSchema } from '@sims/annotation-schema';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { type AnnotationSim, createAnnotationSim } from '../../src/app';

const csvRows = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

let sim: AnnotationSim;
afterEach(() => sim?.close());

const ADMIN = `Basic ${Buffer.from('admin:admin').toString('base64')}`;

async function call(path: string, init: RequestInit & { json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  headers.set('authorization', ADMIN);
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    init.body = JSON.stringify(init.json);
  }
  return sim.app.request(path, { ...init, headers });
}

describe('events API inside the annotation simulator', () => {
  it('logs resource changes as server events linked to the request id, and exports them with client events', async () => {
    sim = createAnnotationSim({ clock: { mode: 'manual', start: '2026-08-12T10:00:00Z' } });
    const project = await call('/api/projects', { method: 'POST', json: { name: 'Signs' } });
    expect(project.status, await project.clone().text()).toBe(201);
    const projectId = ((await project.json()) as { id: number }).id;
    const task = await call('/api/tasks', {
      method: 'POST',
      json: { name: 'Street, "signs"', project_id: projectId },
    });
    expect(task.status, await task.clone().text()).toBe(201);
    const requestId = task.headers.get('x-request-id');

    const client = await call('/api/events', {
      method: 'POST',
      json: {
        timestamp: '2026-08-12T10:00:00Z',
        events: [{ scope: 'click:element', timestamp: '2026-08-12T10:00:00Z' }],
      },
    });
    expect(client.status, await client.clone().text()).toBe(201);
    expect(clientEventsSchema.safeParse(await client.json()).error).toBeUndefined();

    const start = await call(`/api/events/export?project_id=${projectId}`, { method: 'POST' });
    expect(start.status, await start.clone().text()).toBe(202);
    const { rq_id } = (await start.json()) as { rq_id: string };
    await sim.app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by: '2s' }) });
    const status = await call(`/api/requests/${encodeURIComponent(rq_id)}`);
    const body = await status.json();
    expect(requestSchema.safeParse(body).error).toBeUndefined();
    expect(body).toMatchObject({ status: 'finished', owner: { username: 'admin' } });

    const file = await call(`/api/events/download?rq_id=${encodeURIComponent(rq_id)}`);
    expect(file.status).toBe(200);
    const rows = csvRows(await file.text());
    const created = rows.filter((r) => r.scope?.startsWith('create:'));
    expect(created.map((r) => r.scope)).toEqual(expect.arrayContaining(['create:project', 'create:task']));
    const taskRow = rows.find((r) => r.scope === 'create:task');
    expect(taskRow).toMatchObject({
      obj_name: 'Street, "signs"',
      project_id: String(projectId),
      source: 'server',
      user_name: 'admin',
    });
    expect(JSON.parse(taskRow?.payload ?? '{}').request.id).toBe(requestId);
    // The client event has no project_id: the project filter leaves it out.
    expect(rows.some((r) => r.scope === 'click:element')).toBe(false);
  });

  it('answers 401 without credentials', async () => {
    sim = createAnnotationSim({ clock: { mode: 'manual' } });
    const res = await sim.app.request('/api/events/export', { method: 'POST' });
    expect(res.status).toBe(401);
  });
});
