/**
 * A project's dataset import against the built CLI (support/cli-harness.ts), as CVAT 2.73's
 * `tests/python/rest_api/test_projects.py` runs it: `TestImportExportDatasetProject`'s
 * `_test_import_project` (`projects_api.create_dataset(id, format, dataset_file_request=…)` as one
 * multipart request, then the request polled until finished) after `export_project_dataset(save_images=True)`:
 * `test_can_import_export_annotations_with_rotation` (the project's first two tasks after the import
 * have the same rotation) and `test_can_import_dataset_in_org`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type CliHarness, cliHarness } from './support/cli-harness';
import { TEAM } from './support/harness';
import { fileForm } from './support/images';

const cli = cliHarness();
let h: CliHarness;
beforeEach(async () => {
  h = await cli.fresh();
});

/** Org acme: project 1 "acme-p" (car) with task 1 "Road t" (3 frames, subset Train) and a rotated car. */
async function world() {
  await h.seed({
    ...TEAM,
    projects: [{ name: 'acme-p', owner: 'alice', org: 'acme', labels: [{ name: 'car' }] }],
    tasks: [{ name: 'Road t', owner: 'alice', project: 'acme-p', size: 3, subset: 'Train' }],
  });
  const label = (await h.get('/api/labels?project_id=1&org=acme', { as: 'alice' })).body.results[0].id;
  const shape = {
    type: 'rectangle',
    frame: 2,
    label_id: label,
    points: [1, 2, 30.5, 40],
    rotation: 45,
    occluded: false,
    z_order: 0,
    attributes: [],
  };
  const put = await h.put(
    '/api/tasks/1/annotations?org=acme',
    { version: 0, tags: [], shapes: [shape], tracks: [] },
    { as: 'alice' },
  );
  expect(put.status).toBe(200);
}

/** The request once its worker ended. */
async function ended(rqId: string) {
  await h.advance('2s');
  const res = await h.get(`/api/requests/${encodeURIComponent(rqId)}?org=acme`, { as: 'alice' });
  expect(res.status).toBe(200);
  return res.body as { status: string; message: string; result_url: string | null };
}

/** `export_project_dataset(username, save_images=True, id=pid)`. */
async function exportDataset(pid: number): Promise<Uint8Array> {
  const started = await h.post(
    `/api/projects/${pid}/dataset/export?format=CVAT%20for%20images%201.1&save_images=true&org=acme`,
    undefined,
    { as: 'alice' },
  );
  expect(started.status).toBe(202);
  const request = await ended(started.body.rq_id);
  expect(request.status).toBe('finished');
  const url = new URL(request.result_url as string);
  const res = await h.send('GET', `${url.pathname}${url.search}&org=acme`, 'alice', {});
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** `_test_import_project(username, project_id, "CVAT 1.1", data)`. */
async function importProject(pid: number, data: Uint8Array) {
  const form = fileForm('dataset_file', 'dataset.zip', data);
  const res = await h.send(
    'POST',
    `/api/projects/${pid}/dataset/?format=CVAT%201.1&org=acme`,
    'alice',
    form.headers,
    form.body,
  );
  expect(res.status).toBe(202);
  const rqId = ((await res.json()) as { rq_id: string }).rq_id;
  expect(rqId, 'The rq_id was not found in the response').toBeTruthy();
  const request = await ended(rqId);
  expect(request.status, request.message).toBe('finished');
}

const rotationOf = async (taskId: number) =>
  (await h.get(`/api/tasks/${taskId}/annotations?org=acme`, { as: 'alice' })).body.shapes[0].rotation;

describe('TestImportExportDatasetProject (test_projects.py), on the CLI', () => {
  it('test_can_import_export_annotations_with_rotation', async () => {
    await world();
    await importProject(1, await exportDataset(1));
    const res = await h.get('/api/tasks?project_id=1&org=acme', { as: 'alice' });
    expect(res.status).toBe(200);
    const tasks = res.body.results as { id: number; name: string }[];
    expect(tasks).toHaveLength(2);
    const task1Rotation = await rotationOf(tasks[0]?.id as number);
    const task2Rotation = await rotationOf(tasks[1]?.id as number);
    expect(task1Rotation).toBe(task2Rotation);
    expect(task1Rotation).toBe(45);
  });

  it('test_can_import_dataset_in_org', async () => {
    await world();
    const dataset = await exportDataset(1);
    const empty = await h.post('/api/projects?org=acme', { name: 'empty' }, { as: 'alice' });
    expect(empty.status).toBe(201);
    await importProject(empty.body.id, dataset);
    const tasks = (await h.get(`/api/tasks?project_id=${empty.body.id}&org=acme`, { as: 'alice' })).body;
    expect(tasks.results.map((t: { name: string; size: number }) => [t.name, t.size])).toEqual([
      ['Train', 3],
    ]);
  });
});
