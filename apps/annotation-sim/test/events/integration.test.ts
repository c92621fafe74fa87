import { clientEventsSchema, requestSchema } from '@sims/annotation-schema';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AnnotationSim,
  createAnnotationSim,
  type StartedAnnotationSim,
  startAnnotationSim,
} from '../../src/app';

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

  it('logs updates field by field and cascaded deletes with the same request id', async () => {
    sim = createAnnotationSim({ clock: { mode: 'manual', start: '2026-08-12T10:00:00Z' } });
    const project = (await (await call('/api/projects', { method: 'POST', json: { name: 'P' } })).json()) as {
      id: number;
    };
    const task = await call('/api/tasks', { method: 'POST', json: { name: 'T', project_id: project.id } });
    const taskId = ((await task.json()) as { id: number }).id;
    const patch = await call(`/api/tasks/${taskId}`, { method: 'PATCH', json: { name: 'T2' } });
    expect(patch.status, await patch.clone().text()).toBe(200);
    const del = await call(`/api/projects/${project.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    const start = await call('/api/events/export', { method: 'POST' });
    const { rq_id } = (await start.json()) as { rq_id: string };
    await sim.app.request('/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ by: '2s' }) });
    const rows = csvRows(
      await (await call(`/api/events/download?rq_id=${encodeURIComponent(rq_id)}`)).text(),
    );
    const update = rows.filter((r) => r.scope === 'update:task');
    expect(update.map((r) => [r.obj_name, r.obj_val])).toContainEqual(['name', 'T2']);
    expect(JSON.parse(update.find((r) => r.obj_name === 'name')?.payload ?? '{}').old_value).toBe('T');
    const deletes = rows.filter((r) => r.scope?.startsWith('delete:'));
    expect(deletes.map((r) => r.scope)).toEqual(expect.arrayContaining(['delete:project', 'delete:task']));
    const ids = new Set(deletes.map((r) => JSON.parse(r.payload ?? '{}').request.id));
    expect(ids).toEqual(new Set([del.headers.get('x-request-id')]));
  });

  it('streams the CSV over a real socket, with the result_url pointing at the server', async () => {
    const started: StartedAnnotationSim = await startAnnotationSim({
      host: '127.0.0.1',
      clock: { mode: 'manual', start: '2026-08-12T10:00:00Z' },
    });
    try {
      const headers = { authorization: ADMIN };
      const store = started.world().state.extensions.get('events') as {
        store: { append(r: unknown): number };
      };
      for (let i = 0; i < 5000; i++) {
        store.store.append({
          scope: 'click:element',
          obj_name: null,
          obj_id: i,
          obj_val: null,
          source: 'client',
          timestamp: Date.parse('2026-08-12T09:00:00Z') + i,
          count: null,
          duration: 0,
          project_id: null,
          task_id: null,
          job_id: null,
          user_id: 1,
          user_name: 'admin',
          user_email: null,
          org_id: null,
          org_slug: null,
          payload: `{"i": ${i}}`,
          access_token_id: null,
        });
      }
      const start = await fetch(`${started.url}/api/events/export`, { method: 'POST', headers });
      const { rq_id } = (await start.json()) as { rq_id: string };
      await fetch(`${started.url}/_sim/clock/advance`, {
        method: 'POST',
        body: JSON.stringify({ by: '2s' }),
      });
      const status = (await (
        await fetch(`${started.url}/api/requests/${encodeURIComponent(rq_id)}`, { headers })
      ).json()) as {
        result_url: string;
      };
      expect(status.result_url.startsWith(`${started.url}/api/events/download?rq_id=`)).toBe(true);
      const file = await fetch(status.result_url, { headers });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('text/csv');
      expect(csvRows(await file.text())).toHaveLength(5000);
    } finally {
      await started.close();
    }
  });

  it('finishes exports in real time under a real clock (here 100x faster)', async () => {
    sim = createAnnotationSim({ clock: { mode: 'real', speed: 100 } });
    const start = await call('/api/events/export', { method: 'POST' });
    const { rq_id } = (await start.json()) as { rq_id: string };
    const statusOf = async () =>
      ((await (await call(`/api/requests/${encodeURIComponent(rq_id)}`)).json()) as { status: string })
        .status;
    await expect.poll(statusOf, { timeout: 5_000, interval: 5 }).toBe('finished');
  });

  it('accepts the events fault vocabulary in its fault rules and lists the control routes', async () => {
    sim = createAnnotationSim({ clock: { mode: 'manual', start: '2026-08-12T10:00:00Z' } });
    const rule = await sim.app.request('/_sim/faults', {
      method: 'POST',
      body: JSON.stringify({
        match: { operation: 'events.create_export' },
        effect: { exportDelay: { polls: 1 } },
      }),
    });
    expect(rule.status, await rule.clone().text()).toBe(201);
    const { rq_id } = (await (await call('/api/events/export', { method: 'POST' })).json()) as {
      rq_id: string;
    };
    const statusOf = async () =>
      ((await (await call(`/api/requests/${encodeURIComponent(rq_id)}`)).json()) as { status: string })
        .status;
    expect([await statusOf(), await statusOf()]).toEqual(['started', 'finished']);
    const openapi = (await (await sim.app.request('/_sim/openapi.json')).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/_sim/events', '/_sim/events/exports']),
    );
  });

  it('answers 401 without credentials', async () => {
    sim = createAnnotationSim({ clock: { mode: 'manual' } });
    const res = await sim.app.request('/api/events/export', { method: 'POST' });
    expect(res.status).toBe(401);
  });
});
