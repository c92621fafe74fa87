/**
 * What an annotation write does besides storing: the server events CVAT's `handle_annotations_change`
 * logs for it (one row per kind and shape type, per action, PUT as the delete of the old and the create
 * of the new), and the `update:job|task|project` webhooks of the `updated_date` touch, which log no event.
 */
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf } from '../src/domain/events/state';
import { aWebhook } from './support/builders';
import { createHarness, type Harness, TEAM } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';

let h: Harness;
let receiver: Receiver | undefined;
afterEach(async () => {
  h?.close();
  await receiver?.close();
  receiver = undefined;
});

const LABELS = [{ name: 'car' }, { name: 'road', type: 'polygon' }];

/** Project acme-p of org acme (alice), its task of 10 frames in one job; the labels by name. */
async function world() {
  h = createHarness();
  const seeded = h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme', labels: LABELS }],
    tasks: [{ name: 't', owner: 'alice', project: 'acme-p', size: 10, segment_size: 10 }],
  });
  const task = seeded.tasks.t as { id: number; jobs: number[] };
  const labels = await h.get(`/api/labels?project_id=${seeded.projects['acme-p']}&org=acme`, { as: 'alice' });
  const id = (name: string) =>
    labels.body.results.find((l: { name: string }) => l.name === name).id as number;
  return { task, jobId: task.jobs[0] as number, car: id('car'), road: id('road') };
}

const rect = (label_id: number, frame: number) => ({
  type: 'rectangle',
  frame,
  label_id,
  points: [1.5, 2.5, 30.5, 40.5],
});

/** Every stored event row, oldest first: scope, obj_name, count, job, task, project, user, payload. */
function rows() {
  return [...eventsOf(h.state()).store.rows()].map((e) => ({
    scope: e.scope,
    obj_name: e.obj_name,
    count: e.count,
    job_id: e.job_id,
    task_id: e.task_id,
    project_id: e.project_id,
    org_slug: e.org_slug,
    user_name: e.user_name,
    payload: e.payload === null ? null : JSON.parse(e.payload),
  }));
}

const annotationRows = () =>
  rows().filter((r) => /^(create|update|delete):(tags|shapes|tracks)$/.test(r.scope));

describe('events of annotation writes', () => {
  it("logs CVAT's rows for a PUT, a PATCH update, a PATCH delete and a DELETE, in the job's task, project and org", async () => {
    const { task, jobId, car, road } = await world();
    const path = `/api/jobs/${jobId}/annotations?org=acme`;
    const first = await h.put(
      path,
      {
        version: 0,
        tags: [],
        shapes: [rect(car, 0), rect(car, 1), { ...rect(road, 2), type: 'polygon' }],
        tracks: [],
      },
      { as: 'alice', headers: { 'User-Agent': 'pre-annotator/1.0' } },
    );
    expect(first.status).toBe(200);
    const ids = first.body.shapes.map((s: { id: number }) => s.id);
    // The request's own id, as CVAT's middleware makes it (the answer's X-Request-Id).
    const request = { id: first.headers.get('x-request-id'), user_agent: 'pre-annotator/1.0' };
    expect(request.id).toMatch(/^[0-9a-f-]{36}$/);
    const context = { job_id: jobId, task_id: task.id, project_id: 1, org_slug: 'acme', user_name: 'alice' };
    expect(annotationRows()).toEqual([
      {
        ...context,
        scope: 'create:shapes',
        obj_name: 'rectangle',
        count: 2,
        payload: {
          shapes: [{ id: ids[0] }, { id: ids[1] }],
          request,
        },
      },
      {
        ...context,
        scope: 'create:shapes',
        obj_name: 'polygon',
        count: 1,
        payload: { shapes: [{ id: ids[2] }], request },
      },
    ]);
    const before = annotationRows().length;
    // A PUT replaces: the old objects' delete, then the new ones' create.
    await h.put(path, { version: 0, tags: [], shapes: [rect(car, 3)], tracks: [] }, { as: 'alice' });
    const put = annotationRows().slice(before);
    expect(put.map((r) => [r.scope, r.obj_name, r.count])).toEqual([
      ['delete:shapes', 'rectangle', 2],
      ['delete:shapes', 'polygon', 1],
      ['create:shapes', 'rectangle', 1],
    ]);
    const kept = (await h.get(path, { as: 'alice' })).body.shapes[0];
    const n = annotationRows().length;
    await h.patch(
      `${path}&action=update`,
      { version: 0, tags: [], shapes: [{ ...kept, frame: 4 }], tracks: [] },
      { as: 'alice' },
    );
    await h.patch(
      `${path}&action=delete`,
      { version: 0, tags: [], shapes: [kept], tracks: [] },
      { as: 'alice' },
    );
    await h.put(
      path,
      { version: 0, tags: [{ frame: 0, label_id: car }], shapes: [], tracks: [] },
      { as: 'alice' },
    );
    expect((await h.del(path, { as: 'alice' })).status).toBe(204);
    expect(
      annotationRows()
        .slice(n)
        .map((r) => [r.scope, r.obj_name, r.count, r.payload[r.scope.split(':')[1] as string]]),
    ).toEqual([
      ['update:shapes', 'rectangle', 1, [{ id: kept.id }]],
      ['delete:shapes', 'rectangle', 1, [{ id: kept.id }]],
      ['create:tags', null, 1, [{ id: expect.any(Number) }]],
      ['delete:tags', null, 1, [{ id: expect.any(Number) }]],
    ]);
  });

  it('logs nothing for a write that changes nothing, and nothing for a refused one', async () => {
    const { jobId, car } = await world();
    const path = `/api/jobs/${jobId}/annotations?org=acme`;
    await h.put(path, { version: 0, tags: [], shapes: [], tracks: [] }, { as: 'alice' });
    const refused = await h.put(
      path,
      { version: 0, tags: [], shapes: [rect(car + 100, 0)], tracks: [] },
      { as: 'alice' },
    );
    expect(refused.status).toBe(400);
    expect(annotationRows()).toEqual([]);
  });
});

describe('annotation events in the CSV export', () => {
  it("exports a PUT's rows with CVAT's columns, found by the job filter", async () => {
    const { task, jobId, car } = await world();
    const put = await h.put(
      `/api/jobs/${jobId}/annotations?org=acme`,
      { version: 0, tags: [], shapes: [rect(car, 0), rect(car, 5)], tracks: [] },
      { as: 'alice', headers: { 'User-Agent': 'collector/2.0' } },
    );
    const ids = put.body.shapes.map((s: { id: number }) => s.id);
    const start = await h.post(`/api/events/export?job_id=${jobId}`, undefined, { as: 'admin' });
    expect(start.status).toBe(202);
    h.advance('2s');
    const file = await h.get(`/api/events/download?rq_id=${encodeURIComponent(start.body.rq_id)}`, {
      as: 'admin',
    });
    expect(file.status).toBe(200);
    const csv = parse(file.text, { columns: true }) as Record<string, string>[];
    expect(csv).toEqual([
      expect.objectContaining({
        scope: 'create:shapes',
        obj_name: 'rectangle',
        obj_id: '',
        obj_val: '',
        source: 'server',
        count: '2',
        project_id: '1',
        task_id: String(task.id),
        job_id: String(jobId),
        user_name: 'alice',
        org_slug: 'acme',
        payload: JSON.stringify({
          shapes: ids.map((id: number) => ({ id })),
          request: { id: put.headers.get('x-request-id'), user_agent: 'collector/2.0' },
        }),
      }),
    ]);
  });
});

describe('webhooks of annotation writes', () => {
  it('sends update:job, update:task and update:project whose before_update holds only updated_date, and logs no event of them', async () => {
    const { jobId, car } = await world();
    receiver = await startReceiver();
    const hook = await h.post(
      '/api/webhooks?org=acme',
      aWebhook()
        .forProject(1)
        .to(receiver.url)
        .withEvents('update:job', 'update:task', 'update:project')
        .build(),
      { as: 'alice' },
    );
    expect(hook.status).toBe(201);
    const logged = rows().length;
    h.advance('1m');
    const res = await h.put(
      `/api/jobs/${jobId}/annotations?org=acme`,
      { version: 0, tags: [], shapes: [rect(car, 0)], tracks: [] },
      { as: 'alice' },
    );
    expect(res.status).toBe(200);
    await h.idle();
    const got = receiver.requests.map((r) => r.json as Record<string, Record<string, unknown>>);
    expect(got.map((b) => b.event)).toEqual(['update:job', 'update:task', 'update:project']);
    for (const body of got) expect(Object.keys(body.before_update ?? {})).toEqual(['updated_date']);
    expect(got[0]?.job?.updated_date).not.toBe(got[0]?.before_update?.updated_date);
    // Only the annotation rows were logged: the touches' saves log no update:job|task|project.
    expect(
      rows()
        .slice(logged)
        .map((r) => r.scope),
    ).toEqual(['create:shapes']);
    // A second save at the same instant changes no date: its touches send nothing (an empty diff).
    await h.put(
      `/api/jobs/${jobId}/annotations?org=acme`,
      { version: 0, tags: [], shapes: [rect(car, 1)], tracks: [] },
      { as: 'alice' },
    );
    await h.idle();
    expect(receiver.requests).toHaveLength(3);
    expect(
      rows()
        .slice(logged)
        .map((r) => r.scope),
    ).toEqual(['create:shapes', 'delete:shapes', 'create:shapes']);
  });
});
